"""Records -> the rows the checks read.

run_rows: the report's run rows (stats.runs: one per repetition, the configuration's
identity in columns, context hostname/pmem/git_revision included) plus a column per
metric the claims name, taken from the record ("a/b": a over b, "a-b": a minus b; a
name is the record's metric, else a number of its config, else of its context, e.g.
hit_ratio_achieved-hit_ratio, footprint_bytes/llc_bytes), and the context's timestamp
and the fields the verdict's labels read (CONTEXT_COLUMNS: the CPU, the pool's store
granularity and file system); records of `pmemids micro` give rows of the same shape (their
configuration's identity as micro.py groups points: micro.NOT_IDENTITY left out; the
`numa` setting as `locality`). Rounds of an interleaved sweep (docs/sweeps.md):
`round` (the record's round, from 0; an interleaved record without one, written
before rounds were recorded, its repetition; NaN for back-to-back repetitions and
plain runs), `round_key` ("<session>/<round>": the records that ran in one round of
one sweep invocation, which paired comparisons pair; None without a session) and
`round_calibration_s`; `loadavg`, the 1-minute load average around the record's run
(loadguard.py); `own_time_fraction`, the share of a one-thread record's timed phase
that other work did not take from it (1 - run_delay_seconds / seconds: the run-queue
wait its worker spent runnable without a CPU; NaN for several threads, a paced run or
a record without the reading), which the checks of rates read (evaluate.py, "own
time"). skipped_rows: one per configuration recorded as skipped or failed, its config
fields and `reason`.

Only records of the claim's sweeps are used: a record stamped by `pmemids sweep`
counts when its sweep file has the same name as one of the claim's; unstamped records
(plain `pmemids run`) always count.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from .. import micro, stats
from ..fields import asked_config
from ..load import Record
from . import predicate


def _sweep_name(r: Record) -> str | None:
    s = r.data.get("sweep")
    f = s.get("file") if isinstance(s, dict) else None
    return Path(f).name if isinstance(f, str) else None


def of_sweeps(records: list[Record], sweep_files: list[Path]) -> list[Record]:
    names = {Path(f).name for f in sweep_files}
    return [r for r in records if _sweep_name(r) is None or _sweep_name(r) in names]


def run_rows(records: list[Record], metrics: set[str]) -> pd.DataFrame:
    parts = [stats.runs(records),
             pd.DataFrame([_micro_row(r) for r in records if r.kind == "micro"], dtype=object)]
    parts = [p for p in parts if not p.empty]
    rows = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    if rows.empty:
        return rows
    by_line = {(r.file, r.line): r.data for r in records if r.kind in ("run", "micro")}
    keys = list(zip(rows["file"], rows["line"]))
    for m in sorted(metrics):
        rows[m] = [_metric(by_line[k], m) for k in keys]
    rows["timestamp"] = [str(by_line[k]["context"].get("timestamp", "")) for k in keys]
    for c in CONTEXT_COLUMNS:
        rows[f"context_{c}"] = [by_line[k]["context"].get(c) for k in keys]
    # The configuration's place in its sweep: groups are shown in sweep order, whatever
    # order the records arrive in (shards merged with --from interleave them).
    rows["sweep_index"] = [_sweep_index(by_line[k]) for k in keys]
    rounds = [_round_fields(by_line[k]) for k in keys]
    rows["round"] = [r[0] for r in rounds]
    rows["round_key"] = pd.Series([r[1] for r in rounds], index=rows.index, dtype=object)
    rows["round_calibration_s"] = [r[2] for r in rounds]
    rows["loadavg"] = [_load(by_line[k]) for k in keys]
    rows["own_time_fraction"] = [_own_time_fraction(by_line[k]) for k in keys]
    return rows


def _own_time_fraction(data: dict) -> float:
    """1 - run_delay_seconds / seconds of a one-thread record's timed phase, when both
    were read and the result is a share (in (0, 1]); NaN otherwise, and for a paced run
    (`--target`: its rate is the pace, whatever time other work took)."""
    config = data.get("config", {})
    if config.get("threads") != 1 or _number(config.get("target")) > 0:
        return math.nan
    m = data.get("metrics", {})
    seconds, delay = _number(m.get("seconds")), _number(m.get("run_delay_seconds"))
    if not seconds > 0 or not delay >= 0:
        return math.nan
    f = 1.0 - delay / seconds
    return f if f > 0 else math.nan


def _load(data: dict) -> float:
    """The mean of the 1-minute load averages read before and after the record's run: the
    sweep's readings around its run, else the run's own around its repetition (NaN when
    neither was read)."""
    for part in (data.get("sweep"), data.get("context")):
        if not isinstance(part, dict):
            continue
        ones = [v[0] for v in (part.get("loadavg_before"), part.get("loadavg_after"))
                if isinstance(v, list) and v and isinstance(v[0], int | float)]
        if ones:
            return sum(ones) / len(ones)
    return math.nan


def _round_fields(data: dict) -> tuple[float, str | None, float]:
    """(round, round_key, round_calibration_s) of a record (NaN, None, NaN when absent)."""
    s = data.get("sweep")
    if not isinstance(s, dict):
        return math.nan, None, math.nan
    k = s.get("round", s.get("repetition"))
    k = float(k) if isinstance(k, int) and not isinstance(k, bool) else math.nan
    session = s.get("session")
    key = f"{session}/{int(k)}" if isinstance(session, str) and not math.isnan(k) else None
    return k, key, _number(s.get("round_calibration_s"))


def _sweep_index(data: dict) -> float:
    s = data.get("sweep")
    i = s.get("index") if isinstance(s, dict) else None
    return float(i) if isinstance(i, int) and not isinstance(i, bool) else float("inf")


def _micro_row(r: Record) -> dict:
    """A micro record as a run row: its point's identity in columns (bench included), with
    the value asked of what --min-time grows (fields.asked_config)."""
    config = r.data["config"]
    identity = {k: json.dumps(v, sort_keys=True) if isinstance(v, dict | list) else v
                for k, v in asked_config(config).items() if k not in micro.NOT_IDENTITY}
    identity.update({k: r.data["context"].get(k) for k in stats.CONTEXT_IDENTITY})
    row = dict(identity)
    row.update(config=identity, config_id=json.dumps(identity, sort_keys=True, default=str),
               seed=config.get("seed"), repetition=config.get("repetition"), file=r.file,
               line=r.line, locality=config.get("numa"),
               ops_per_sec=_number(r.data["metrics"].get("ops_per_sec")))
    return row


# Context fields the verdict reads (verdict.py): the CPU the records ran on, whether
# the pool directory was DAX (store granularity byte or cache-line) or not (page), and
# the CPUs the load guard shares out (loadguard.py).
CONTEXT_COLUMNS = ("cpu_model", "store_granularity", "pool_fs", "cpus_online")


def _field(data: dict, name: str) -> float:
    """The record's metric `name` (null: NaN), else its config's, else its context's."""
    for part in ("metrics", "config", "context"):
        if name in data.get(part, {}):
            return _number(data[part][name])
    return float("nan")


def _metric(data: dict, name: str) -> float:
    """A metric, "a/b" (NaN when b is 0) or "a-b" of the same record."""
    names, op = predicate.metric_names(name), predicate.metric_operator(name)
    value = _field(data, names[0])
    if op == "/":
        d = _field(data, names[1])
        value = value / d if d else float("nan")
    elif op == "-":
        value = value - _field(data, names[1])
    return value


def skipped_rows(records: list[Record]) -> pd.DataFrame:
    out = []
    for r in records:
        if r.kind not in ("skipped", "failed"):
            continue
        config = stats.record_config(r.data["config"])
        row = {k: v for k, v in config.items() if not isinstance(v, dict | list)}
        row["locality"] = (config.get("numa") if config.get("kind") == "micro"
                           else stats.locality(config.get("cpu_node"), config.get("mem_node")))
        row["reason"] = r.data.get("reason", "")
        out.append(row)
    return pd.DataFrame(out, dtype=object)


def _number(v) -> float:
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else float("nan")
