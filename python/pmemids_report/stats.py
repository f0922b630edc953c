"""Configurations and their statistics, computed from run records only.

A configuration is a run record's `config` without the fields that tell
repetitions, files or seeds apart (NOT_IDENTITY), plus the context's hostname,
pmem (real/emulated) and git_revision: measurements from different machines,
memory or code are never pooled. Run records of one configuration are its
repetitions, whichever file they came from; warm-up and aggregate records are
never repetitions. Optional fields missing from older
records get the defaults they stand for (DEFAULTS: a record without
thread_mode/threads was single-threaded); of the structures' knobs a configuration
keeps those of its structure only (record_config: older records carried every knob).

`runs(records)` is one row per run record: config columns, `config` (the
identity as a dict), `config_id` (its JSON),
`locality` ("local", "remote" or None when no NUMA placement was given),
`workload_text`, `ops_per_sec`, the per-op costs, latency percentiles
(`latency_<op>_<pct>_ns`), `timer_overhead_ns` (the context's clock cost, which
every latency includes), `timeline` (list or None) and `oversubscribed`
(metrics.oversubscribed when the record has it, else more threads than the
context's cpus_online).

`configurations(runs, records)` is one row per configuration in plot order: its
config columns plus `n`, `mean`, `median`, `sd`, `cv`, `ci_low`, `ci_high`,
`min`, `max` of ops_per_sec (sd/cv/ci are NaN for n = 1; ci is the Student-t
95% interval of the mean), the mean of each per-op cost, latency percentile, timer overhead and
cache-miss ratio (COUNTER_RATIOS, NaN where not counted),
`seeds` (sorted distinct seeds), `warmups` (discarded warm-up records), `files`,
`oversubscribed` (any repetition was) and `label` ("C1", "C2", ...).
"""

from __future__ import annotations

import json
import math

import pandas as pd

from . import catalog
from .fields import COSTS, COUNTER_RATIOS
from .load import Record
from .style import LOCALITIES, LOCKS, MODES, PERCENTILES, OP_TYPES, STRUCTURES, order_key, workload_label

NOT_IDENTITY = {"repetition", "repeat", "seed", "stream_seeds", "stream_roles", "pool_dir", "pool_size",
                "workload_files", "ignored_properties", "keep_pool", "status_interval",
                "oversubscribed"}  # a config key of combining-stack runs before metrics had it
CONTEXT_IDENTITY = ["hostname", "pmem", "git_revision"]
# Each structure's knobs at their defaults (`pmemids list --json`): what runs before a
# knob existed used. A record carries the knobs of its own structure only; record_config
# drops the others from older records, which carried every knob.
KNOB_DEFAULTS = {k["name"]: k["default"] for k in catalog.knobs()}
DEFAULTS = {"thread_mode": "single", "threads": 1, "workload": "unnamed", "lock": None, "target": None,
            "pin": None, "cpu_node": None, "mem_node": None,
            # the combining stacks' workload properties (issue 16), before they existed
            "poolnodes": 0, "localwork": 0,
            **KNOB_DEFAULTS}
LATENCIES = [f"latency_{op}_{p}_ns" for op in OP_TYPES for p, _ in PERCENTILES] + \
            [f"latency_{op}_mean_ns" for op in OP_TYPES]
# Numbers per run averaged per configuration: costs, latencies and the clock's cost.
AVERAGED = COSTS + LATENCIES + COUNTER_RATIOS + ["timer_overhead_ns"]
THREAD_MODES = ["single", "parallel", "concurrent", "native"]
SORT_COLUMNS = [("workload", None), ("thread_mode", THREAD_MODES), ("ds", STRUCTURES),
                ("mode", MODES), ("threads", None), ("lock", LOCKS), ("locality", LOCALITIES),
                ("cpu_node", None), ("mem_node", None)]

# Two-sided 95% Student-t quantiles for 1..30 degrees of freedom.
_T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t95(df: int) -> float:
    """95% two-sided t quantile; beyond 30 degrees of freedom within 0.003 of exact."""
    return _T95[df - 1] if df <= len(_T95) else 1.96 + 2.5 / df


def _identity_value(v):
    return json.dumps(v, sort_keys=True) if isinstance(v, (dict, list)) else v


def runs(records: list[Record]) -> pd.DataFrame:
    df = pd.DataFrame([_row(r) for r in records if r.kind == "run"], dtype=object)
    for key in ["ops_per_sec"] + AVERAGED:
        if key in df:
            df[key] = df[key].astype(float)
    return df


def record_config(config: dict) -> dict:
    """A record's config with the defaults it stands for (DEFAULTS), and of the knobs only
    those of its structure (all of them when the structure is not one the binary lists)."""
    own = catalog.knobs_of(config.get("ds"))
    out = {**DEFAULTS, **config}
    if own is None:
        return out
    return {k: v for k, v in out.items() if k not in KNOB_DEFAULTS or k in own}


def _row(r: Record) -> dict:
    config = record_config(r.data["config"])
    metrics = r.data["metrics"]
    identity = {k: _identity_value(v) for k, v in config.items() if k not in NOT_IDENTITY}
    identity.update({k: r.data["context"].get(k) for k in CONTEXT_IDENTITY})
    row = dict(identity)
    row["config"] = identity
    row["config_id"] = json.dumps(identity, sort_keys=True, default=str)
    row["seed"] = config.get("seed")
    row["repetition"] = config.get("repetition")
    row["file"] = r.file
    row["line"] = r.line
    row["locality"] = locality(config.get("cpu_node"), config.get("mem_node"))
    row["workload_text"] = workload_label(config)
    row["ops_per_sec"] = float(metrics["ops_per_sec"])
    # config.operationcount is the count asked; --min-time may have grown the count that ran
    row["operations_ran"] = metrics.get("operationcount")
    for key in COSTS + LATENCIES + COUNTER_RATIOS:
        row[key] = _number(metrics.get(key))
    row["timer_overhead_ns"] = _number(r.data["context"].get("timer_overhead_ns"))
    timeline = metrics.get("timeline_ops_per_sec")
    row["timeline"] = timeline if isinstance(timeline, list) and timeline else None
    row["oversubscribed"] = oversubscribed(config, r.data["context"], metrics)
    return row


def oversubscribed(config: dict, context: dict, metrics: dict) -> bool:
    """More worker threads than CPUs: the record's own verdict when it has one."""
    if isinstance(metrics.get("oversubscribed"), bool):
        return metrics["oversubscribed"]
    cpus = context.get("cpus_online")
    threads = config.get("threads", 1)
    return isinstance(cpus, int) and isinstance(threads, int) and threads > cpus


def missing(v) -> bool:
    """None, or the NaN pandas puts where a record lacked the field."""
    return v is None or (isinstance(v, float) and math.isnan(v))


def locality(cpu_node, mem_node) -> str | None:
    if cpu_node is None or mem_node is None:
        return None
    return "local" if cpu_node == mem_node else "remote"


def _number(v) -> float:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan


def warmups_per_config(records: list[Record]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in records:
        if r.kind == "warmup":
            cid = _row(r)["config_id"]
            counts[cid] = counts.get(cid, 0) + 1
    return counts


def sort_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Plot order: workload as first seen, thread mode, structure, mode, threads, lock, locality."""
    if df.empty:
        return df
    first_seen = {w: i for i, w in enumerate(dict.fromkeys(df["workload"]))}
    keys = []
    for col, known in SORT_COLUMNS:
        if col not in df:
            continue
        if col == "workload":
            keys.append(df[col].map(first_seen))
        elif known is not None:
            k = order_key(known)
            keys.append(df[col].map(lambda v: (-1, "") if missing(v) else k(v)))
        else:
            keys.append(df[col].map(lambda v: (-1, 0) if missing(v) else (0, v)))
    order = sorted(range(len(df)), key=lambda i: tuple(k.iloc[i] for k in keys))
    return df.iloc[order].reset_index(drop=True)


def configurations(run_rows: pd.DataFrame, records: list[Record]) -> pd.DataFrame:
    if run_rows.empty:
        return run_rows
    warm = warmups_per_config(records)
    out = []
    for cid, g in run_rows.groupby("config_id", sort=False):
        first = g.iloc[0]
        row = {k: first[k] for k in g.columns
               if k not in ("seed", "repetition", "file", "line", "ops_per_sec", "timeline",
                            "oversubscribed")
               and k not in AVERAGED}
        x = g["ops_per_sec"]
        n = len(x)
        mean = x.mean()
        sd = x.std(ddof=1) if n > 1 else math.nan
        half = t95(n - 1) * sd / math.sqrt(n) if n > 1 else math.nan
        row.update(n=n, mean=mean, median=x.median(), sd=sd,
                   cv=sd / mean if n > 1 and mean > 0 else math.nan,
                   ci_low=mean - half, ci_high=mean + half, min=x.min(), max=x.max())
        for key in AVERAGED:
            row[key] = g[key].mean()
        row["seeds"] = sorted({s for s in g["seed"] if not missing(s)}, key=str)
        row["warmups"] = warm.get(cid, 0)
        row["files"] = sorted(set(g["file"]))
        row["oversubscribed"] = bool(g["oversubscribed"].any())
        out.append(row)
    df = sort_rows(pd.DataFrame(out, dtype=object))
    df["n"] = df["n"].astype(int)
    for key in ["mean", "median", "sd", "cv", "ci_low", "ci_high", "min", "max"] + AVERAGED:
        df[key] = df[key].astype(float)
    df["label"] = [f"C{i + 1}" for i in range(len(df))]
    return df
