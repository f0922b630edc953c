"""The tables of the report, as header + rows of display strings.

figure_table(spec): the data behind a figure, one row per plotted configuration
(timeline: per repetition). Throughput figures show, next to throughput (Kops/s:
mean, sd, CV, half-width of the Student-t 95% CI of the mean over the n
repetitions, min and max), in scaling figures (threads on an axis or as panels)
the speedup over the fewest threads of the same configuration otherwise and
which configurations were oversubscribed, and the per-op costs that are
non-zero somewhere in the figure: persists, flushed cache lines, transactions,
logged (transaction) bytes, allocations, frees and pointer translations per op
(n/a where the record holds null: not observed). Latency tables show the
context's timer overhead, which every sampled latency includes.

pivot_table(spec): the figure's numbers as the paper tabulates them, one row per
structure (and per other setting that tells rows apart), one column per mode:
mean Kops/s, or the p99 latency for a latency figure; None for a timeline or
when a cell would hold more than one configuration.

configurations_table(confs): every configuration with its label (C1, ...), the
settings that differ between configurations, repetitions, discarded warm-ups,
seeds and source files; the settings shared by all are returned separately.
Optional fields that no record has are left out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from .figures import FigureSpec
from .stats import COSTS, missing
from .style import MODES, PERCENTILES, fmt_number, order_key

COST_LABELS = {"persists_per_op": "persists/op", "flushed_lines_per_op": "flushed lines/op",
               "fences_per_op": "fences/op",
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
    title: str = ""       # what the cells are, when the columns do not say


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


def _scaling(spec: FigureSpec) -> bool:
    return "threads" in (spec.x, spec.panel) and spec.data["threads"].nunique() > 1


def speedups(df: pd.DataFrame, desc: list[str]) -> list[float]:
    """Each row's mean over the mean of the row with the fewest threads that agrees
    with it on every other describing column (NaN when there is none)."""
    others = [c for c in desc if c != "threads"]
    base: dict[tuple, tuple[int, float]] = {}
    keys = []
    for _, r in df.iterrows():
        key = tuple(_text(r[c]) for c in others)
        keys.append(key)
        if key not in base or r["threads"] < base[key][0]:
            base[key] = (r["threads"], r["mean"])
    return [m / base[k][1] if base[k][1] > 0 else math.nan for k, m in zip(keys, df["mean"])]


def figure_table(spec: FigureSpec) -> Table:
    if spec.kind == "percentiles":
        return _latency_table(spec)
    if spec.kind == "timeline":
        return _timeline_table(spec)
    df = spec.data
    desc = _describing(df)
    costs = [c for c in COSTS if c in df and df[c].fillna(0).abs().sum() > 0]
    scaling = _scaling(spec)
    over = "oversubscribed" in df and bool(df["oversubscribed"].any())
    columns = (["config"] + desc + ["n", "Kops/s", "sd", "CV %", "95% CI ±", "min", "max"]
               + (["speedup"] if scaling else []) + (["oversubscribed"] if over else [])
               + [COST_LABELS[c] for c in costs])
    speedup = speedups(df, desc) if scaling else []
    rows = []
    for i, (_, r) in enumerate(df.iterrows()):
        ci = "–" if missing(r["sd"]) else fmt_number((r["ci_high"] - r["mean"]) / 1e3)
        cv = "–" if missing(r["cv"]) else f"{r['cv'] * 100:.1f}"
        rows.append([r["label"]] + [_text(r[c]) for c in desc]
                    + [str(r["n"]), fmt_number(r["mean"] / 1e3), fmt_number(r["sd"] / 1e3), cv, ci,
                       fmt_number(r["min"] / 1e3), fmt_number(r["max"] / 1e3)]
                    + ([f"{speedup[i]:.2f}×" if not missing(speedup[i]) else "–"] if scaling else [])
                    + (["yes" if r["oversubscribed"] else ""] if over else [])
                    + [fmt_number(r[c]) for c in costs])
    numeric = [False] * (1 + len(desc)) + [True] * (len(columns) - 1 - len(desc))
    if over:
        numeric[columns.index("oversubscribed")] = False
    return Table(columns, rows, numeric)


# Settings that can tell the rows of a pivot table apart (mode is its columns).
PIVOT_ROWS = ["workload", "ds", "thread_mode", "threads", "lock", "locality", "pin", "cpu_node", "mem_node"]


def pivot_table(spec: FigureSpec) -> Table | None:
    if spec.kind == "timeline":
        return None
    df = spec.data
    if spec.kind == "percentiles":
        value, title = f"latency_{spec.op}_p99_ns", f"p99 {spec.op} latency (ns), mean over repetitions"
        if value not in df:
            return None
        cell = lambda r: fmt_number(r[value])  # noqa: E731
    else:
        title = "Throughput (Kops/s), mean over repetitions"
        cell = lambda r: fmt_number(r["mean"] / 1e3)  # noqa: E731
    dims = [d for d in PIVOT_ROWS if d in df and (d == "ds" or df[d].map(_text).nunique() > 1)]
    # A setting that follows from the others and the mode (each mode's default
    # lock) would only spread one row over several: leave it out.
    for d in [d for d in dims if d != "ds"]:
        rest = [x for x in dims if x != d]
        if not df.groupby([df[x].map(_text) for x in rest + ["mode"]]).size().gt(1).any():
            dims = rest
    modes = ordered_modes(df["mode"])
    cells: dict[tuple, dict[str, str]] = {}
    for _, r in df.iterrows():
        row = cells.setdefault(tuple(_text(r[d]) for d in dims), {})
        if r["mode"] in row:
            return None  # two configurations in one cell
        row[r["mode"]] = cell(r)
    rows = [list(key) + [values.get(m, "–") for m in modes] for key, values in cells.items()]
    return Table(dims + modes, rows, [False] * len(dims) + [True] * len(modes), title)


def ordered_modes(values) -> list[str]:
    return sorted(set(values), key=order_key(MODES))


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
