"""Records -> the rows the checks read.

run_rows: the report's run rows (stats.runs: one per repetition, the configuration's
identity in columns, context hostname/pmem/git_revision included) plus a column per
metric the claims name, taken from the record ("a/b": metric a over metric b), and the
context's timestamp. skipped_rows: one per configuration recorded
as skipped or failed, its config fields and `reason`.

Only records of the claim's sweeps are used: a record stamped by `pmemids sweep`
counts when its sweep file has the same name as one of the claim's; unstamped records
(plain `pmemids run`) always count.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .. import stats
from ..load import Record


def _sweep_name(r: Record) -> str | None:
    s = r.data.get("sweep")
    f = s.get("file") if isinstance(s, dict) else None
    return Path(f).name if isinstance(f, str) else None


def of_sweeps(records: list[Record], sweep_files: list[Path]) -> list[Record]:
    names = {Path(f).name for f in sweep_files}
    return [r for r in records if _sweep_name(r) is None or _sweep_name(r) in names]


def run_rows(records: list[Record], metrics: set[str]) -> pd.DataFrame:
    rows = stats.runs(records)
    if rows.empty:
        return rows
    by_line = {(r.file, r.line): r.data for r in records if r.kind == "run"}
    keys = list(zip(rows["file"], rows["line"]))
    for m in sorted(metrics):
        rows[m] = [_metric(by_line[k]["metrics"], m) for k in keys]
    rows["timestamp"] = [str(by_line[k]["context"].get("timestamp", "")) for k in keys]
    return rows


def _metric(metrics: dict, name: str) -> float:
    """A metric, or for "a/b" metric a over metric b of the same record (NaN when b is 0)."""
    num, _, den = name.partition("/")
    value = _number(metrics.get(num))
    if den:
        d = _number(metrics.get(den))
        value = value / d if d else float("nan")
    return value


def skipped_rows(records: list[Record]) -> pd.DataFrame:
    out = []
    for r in records:
        if r.kind not in ("skipped", "failed"):
            continue
        config = {**stats.DEFAULTS, **r.data["config"]}
        row = {k: v for k, v in config.items() if not isinstance(v, dict | list)}
        row["locality"] = stats.locality(config.get("cpu_node"), config.get("mem_node"))
        row["reason"] = r.data.get("reason", "")
        out.append(row)
    return pd.DataFrame(out, dtype=object)


def _number(v) -> float:
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else float("nan")
