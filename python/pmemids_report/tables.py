"""The tables of the report, as header + rows of display strings.

figure_table(spec): the data behind a figure, one row per plotted configuration
(timeline: per repetition). Throughput figures show, next to throughput (Kops/s:
mean, sd, CV, half-width of the Student-t 95% CI of the mean over the n
repetitions), the per-op costs that are
non-zero somewhere in the figure: persists, flushed cache lines, transactions,
logged (transaction) bytes, allocations, frees and pointer translations per op
(n/a where the record holds null: not observed). Latency tables show the
context's timer overhead, which every sampled latency includes.

configurations_table(confs): every configuration with its label (C1, ...), the
settings that differ between configurations, repetitions, discarded warm-ups,
seeds and source files; the settings shared by all are returned separately.
Optional fields that no record has are left out.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from .figures import FigureSpec
from .stats import COSTS, missing
from .style import PERCENTILES, fmt_number

COST_LABELS = {"persists_per_op": "persists/op", "flushed_lines_per_op": "flushed lines/op",
               "tx_per_op": "tx/op", "tx_bytes_per_op": "logged B/op", "allocs_per_op": "allocs/op",
               "frees_per_op": "frees/op", "translations_per_op": "translations/op"}
# Columns describing a configuration, shown when a table's rows have them.
DESCRIBING = ["workload", "ds", "mode", "thread_mode", "threads", "lock", "pin", "cpu_node", "mem_node"]
# Shown in the configurations table first, in this order, whether they vary or not.
LEADING = ["workload", "ds", "mode", "thread_mode", "threads", "lock"]


@dataclass
class Table:
    columns: list[str]
    rows: list[list[str]]
    numeric: list[bool]   # right-aligned columns


def _text(v) -> str:
    if missing(v):
        return "–"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _describing(df: pd.DataFrame) -> list[str]:
    cols = []
    for c in DESCRIBING:
        if c not in df:
            continue
        values = {None if missing(v) else v for v in df[c]}
        if values == {None}:
            continue
        if c in ("thread_mode", "threads", "pin") and len(values) == 1:
            continue  # the same everywhere in this figure: said in its title or caption
        cols.append(c)
    return cols


def figure_table(spec: FigureSpec) -> Table:
    if spec.kind == "percentiles":
        return _latency_table(spec)
    if spec.kind == "timeline":
        return _timeline_table(spec)
    df = spec.data
    desc = _describing(df)
    costs = [c for c in COSTS if c in df and df[c].fillna(0).abs().sum() > 0]
    columns = ["config"] + desc + ["n", "Kops/s", "sd", "CV %", "95% CI ±"] + [COST_LABELS[c] for c in costs]
    rows = []
    for _, r in df.iterrows():
        ci = "–" if missing(r["sd"]) else fmt_number((r["ci_high"] - r["mean"]) / 1e3)
        cv = "–" if missing(r["cv"]) else f"{r['cv'] * 100:.1f}"
        rows.append([r["label"]] + [_text(r[c]) for c in desc]
                    + [str(r["n"]), fmt_number(r["mean"] / 1e3), fmt_number(r["sd"] / 1e3), cv, ci]
                    + [fmt_number(r[c]) for c in costs])
    return Table(columns, rows, [False] * (1 + len(desc)) + [True] * (len(columns) - 1 - len(desc)))


def _latency_table(spec: FigureSpec) -> Table:
    df = spec.data
    desc = _describing(df)
    pcts = [(f"latency_{spec.op}_{p}_ns", label) for p, label in PERCENTILES + [("mean", "mean")]
            if f"latency_{spec.op}_{p}_ns" in df and df[f"latency_{spec.op}_{p}_ns"].notna().any()]
    # Every sampled latency includes one clock read: its cost, beside them.
    columns = ["config"] + desc + ["n"] + [f"{label} (ns)" for _, label in pcts] + ["timer overhead (ns)"]
    rows = [[r["label"]] + [_text(r[c]) for c in desc] + [str(r["n"])] + [fmt_number(r[c]) for c, _ in pcts]
            + [fmt_number(r.get("timer_overhead_ns"))]
            for _, r in df.iterrows()]
    return Table(columns, rows, [False] * (1 + len(desc)) + [True] * (len(columns) - 1 - len(desc)))


def _timeline_table(spec: FigureSpec) -> Table:
    df = spec.data
    desc = _describing(df)
    columns = ["config"] + desc + ["repetition", "intervals", "interval ms", "mean Kops/s", "min Kops/s", "max Kops/s"]
    rows = []
    for _, r in df.iterrows():
        t = r["timeline"]
        rows.append([r["label"]] + [_text(r[c]) for c in desc]
                    + [_text(r["repetition"]), str(len(t)), _text(r.get("timeline_ms")),
                       fmt_number(sum(t) / len(t) / 1e3), fmt_number(min(t) / 1e3), fmt_number(max(t) / 1e3)])
    return Table(columns, rows, [False] * (1 + len(desc)) + [True] * (len(columns) - 1 - len(desc)))


def configurations_table(confs: pd.DataFrame) -> tuple[Table, dict]:
    """(table, common settings {key: value})."""
    keys = list(dict.fromkeys(k for c in confs["config"] for k in c))
    varying, common = [], {}
    for k in keys:
        values = {_text(c.get(k)) for c in confs["config"]}
        if values == {"–"}:
            continue  # an optional field no record has
        if len(values) > 1 or k in LEADING:
            varying.append(k)
        else:
            common[k] = values.pop()
    varying.sort(key=lambda k: (LEADING.index(k) if k in LEADING else len(LEADING), keys.index(k)))
    columns = ["config"] + varying + ["n", "warm-ups", "seeds", "files"]
    rows = [[r["label"]] + [_text(r["config"].get(k)) for k in varying]
            + [str(r["n"]), str(r["warmups"]), ", ".join(map(str, r["seeds"])) or "–", ", ".join(r["files"])]
            for _, r in confs.iterrows()]
    numeric = [False] + [False] * len(varying) + [True, True, False, False]
    return Table(columns, rows, numeric), common
