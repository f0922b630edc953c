"""Which figures a set of records gets, and what each one shows.

Selection looks only at what the configurations contain (rows of
stats.configurations; "single" means thread_mode single, the default):

  fig3_single_thread   single-thread configurations without NUMA placement (if
                       there are none: those on local memory), as the paper draws
                       its Fig. 3: a row of panels per workload, one panel per
                       structure, the modes along x; one y scale for every panel
  fig5_btree_node_size the same data restricted to btree and btree-embedded, when
                       both are present: modes along x, the two variants side by side
  fig6_parallel_<w>    parallel configurations, one figure per workload: one panel
                       per structure, throughput against threads, one line per mode;
                       points with more threads than CPUs (oversubscribed) hollow
  fig7_concurrent_<w>  concurrent configurations, one figure per workload: a panel
                       for the fewest and one for the most threads, structures along
                       x, one bar per mode (and lock kind, hatched, when a structure
                       and mode were run with several)
  fig8_locks_<w>       concurrent (structure, mode) pairs run with two or more lock
                       kinds: one panel per structure, threads along x, bars per
                       mode and lock kind
  fig9_numa            single-thread configurations with a NUMA placement, when
                       both local (cpu_node == mem_node) and remote exist: one panel
                       per workload, structures along x, bars per mode, remote hatched
  latency_<op>         configurations with sampled latencies of <op> (the single-thread
                       ones without NUMA placement when there are any): one panel
                       per structure, percentiles along x, one line per mode
  timeline             run records with timeline_ops_per_sec: one panel per
                       structure, throughput over time, one line per repetition

Throughput is drawn as the mean over repetitions with min-max whiskers (never
below zero, so they stay drawable on a log axis); bar figures share one y scale
across their panels.

Every figure's cells (panel, x, series) must each hold one configuration. Where
other settings differ within a cell (say two record counts), the figure is split
into one figure per combination of those settings; the settings are named in the
title and appended to the id (fig3_single_thread_recordcount-2000).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from .fields import chosen
from .stats import missing
from .style import OP_TYPES, PERCENTILES, figure_id, threads_label


@dataclass
class FigureSpec:
    id: str                      # file stem of the PNG and SVG
    title: str
    caption: str
    kind: str                    # "bars" | "lines" | "percentiles" | "timeline"
    data: pd.DataFrame           # configurations (timeline: run rows), in plot order
    panel: str | None            # one subplot per value of this column
    row: str | None = None       # bars: one row of panels per value of this column
    x: str | None = None         # bars: column of the groups along x; lines: numeric x column
    hatch: str | None = None     # series dimension besides mode: bar hatch / line style
    op: str | None = None        # percentiles: the operation type
    settings: dict = field(default_factory=dict)  # the split-out settings of this figure

    def __post_init__(self):
        # The id is short; the caption names the whole selection.
        if self.settings:
            self.caption += " Configurations with " + ", ".join(
                f"{k}={_setting(v)}" for k, v in self.settings.items()) + "."


def select(confs: pd.DataFrame, run_rows: pd.DataFrame) -> list[FigureSpec]:
    if confs.empty:
        return []
    specs: list[FigureSpec] = []
    single = confs[confs["thread_mode"] == "single"]
    # (astype: an empty object-typed mask would select columns, not rows)
    unbound = single[single["locality"].map(missing).astype(bool)]
    specs += _fig3_and_5(unbound if len(unbound) else single[single["locality"] == "local"])
    for workload, df in _by_workload(confs[confs["thread_mode"] == "parallel"]):
        specs += _fig6(workload, df)
    for workload, df in _by_workload(confs[confs["thread_mode"] == "concurrent"]):
        specs += _fig7(workload, df) + _fig8(workload, df)
    specs += _fig9(single[single["locality"].map(lambda v: not missing(v)).astype(bool)])
    # Latency percentiles of the single-thread (unplaced) runs when there are
    # any: one figure per operation type instead of one per thread setting.
    specs += _latency(confs, preferred=unbound if len(unbound) else single)
    specs += _timeline(run_rows)
    return specs


def _fig3_and_5(df: pd.DataFrame) -> list[FigureSpec]:
    specs = []
    for settings, part in split(df, ["workload", "ds", "mode"]):
        specs.append(FigureSpec(
            _id("fig3_single_thread", settings), _title("Single-thread throughput", settings),
            "Throughput of each structure in each mode, one thread: a row per workload, a panel "
            "per structure, every panel on the same scale. " + _bar_caption(part),
            "bars", part, panel="ds", row="workload", x="mode", settings=settings))
        btrees = part[part["ds"].isin(["btree", "btree-embedded"])]
        if any(set(w["ds"]) == {"btree", "btree-embedded"} for _, w in btrees.groupby("workload")):
            specs.append(FigureSpec(
                _id("fig5_btree_node_size", settings),
                _title("B-tree with values referenced (btree) vs embedded (btree-embedded)", settings),
                "Larger nodes with embedded values against small nodes with referenced values, "
                "per mode; btree-embedded is hatched. " + _bar_caption(btrees),
                "bars", btrees, panel="workload", x="mode", hatch="ds", settings=settings))
    return specs


def _fig6(workload: str, df: pd.DataFrame) -> list[FigureSpec]:
    return [FigureSpec(
        _id(f"fig6_parallel_{workload}", settings),
        _title(f"Parallel throughput vs threads — {_text(part)}", settings),
        "Each thread runs its own instance (parallel mode); total throughput of all threads. "
        "Points: mean over repetitions; whiskers: min–max. " + _oversubscribed_text(part)
        + _n_text(part),
        "lines", part, panel="ds", x="threads", settings=settings)
        for settings, part in split(df, ["ds", "mode", "threads"])]


def _fig7(workload: str, df: pd.DataFrame) -> list[FigureSpec]:
    ends = df[df["threads"].isin({df["threads"].min(), df["threads"].max()})]
    specs = []
    for settings, part in split(ends, ["threads", "ds", "mode", "lock"]):
        several_locks = part.groupby(["threads", "ds", "mode"])["lock"].nunique().max() > 1
        specs.append(FigureSpec(
            _id(f"fig7_concurrent_{workload}", settings),
            _title(f"Concurrent throughput, fewest vs most threads — {_text(part)}", settings),
            "All threads share one instance behind one lock (concurrent mode). "
            + ("Bars are hatched by lock kind. " if several_locks else "Lock kinds are in the table. ")
            + _oversubscribed_text(part) + _bar_caption(part),
            "bars", part, panel="threads", x="ds", hatch="lock" if several_locks else None,
            settings=settings))
    return specs


def _fig8(workload: str, df: pd.DataFrame) -> list[FigureSpec]:
    locks = df.groupby(["ds", "mode"])["lock"].nunique()
    pairs = set(locks[locks > 1].index)
    studied = df[[(d, m) in pairs for d, m in zip(df["ds"], df["mode"])]]
    if studied.empty:
        return []
    return [FigureSpec(
        _id(f"fig8_locks_{workload}", settings),
        _title(f"Lock kinds under contention — {_text(part)}", settings),
        "Structures and modes run with more than one lock kind (concurrent mode); "
        "colour: mode, hatch: lock kind. " + _oversubscribed_text(part) + _bar_caption(part),
        "bars", part, panel="ds", x="threads", hatch="lock", settings=settings)
        for settings, part in split(studied, ["ds", "mode", "lock", "threads"])]


def _fig9(df: pd.DataFrame) -> list[FigureSpec]:
    if not {"local", "remote"} <= set(df["locality"]):
        return []
    return [FigureSpec(
        _id("fig9_numa", settings), _title("Local vs remote memory, one thread", settings),
        "Threads on cpu_node, memory on mem_node: local when they are the same node, remote "
        "(hatched) otherwise. " + _bar_caption(part),
        "bars", part, panel="workload", x="ds", hatch="locality", settings=settings)
        for settings, part in split(df, ["workload", "ds", "mode", "locality"])]


def _latency(confs: pd.DataFrame, preferred: pd.DataFrame) -> list[FigureSpec]:
    specs = []
    for op in OP_TYPES:
        cols = [f"latency_{op}_{p}_ns" for p, _ in PERCENTILES]
        present = [c for c in cols if c in confs]
        if not present:
            continue
        sampled = confs[confs[present].notna().any(axis=1)]
        first = sampled[sampled.index.isin(preferred.index)]
        if len(first):
            sampled = first
        for settings, part in split(sampled, ["ds", "mode"]):
            specs.append(FigureSpec(
                _id(f"latency_{op}", settings), _title(f"{op} latency percentiles{_setup(part)}", settings),
                f"Sampled {op} latencies; each point is the mean over repetitions of that "
                "percentile. " + _n_text(part),
                "percentiles", part, panel="ds", op=op, settings=settings))
    return specs


def _timeline(run_rows: pd.DataFrame) -> list[FigureSpec]:
    if "timeline" not in run_rows:
        return []
    rows = run_rows[run_rows["timeline"].map(lambda t: isinstance(t, list))]
    return [FigureSpec(
        _id("timeline", settings), _title(f"Throughput over time{_setup(part)}", settings),
        "Throughput per interval during the timed phase; one line per repetition.",
        "timeline", part, panel="ds", settings=settings)
        for settings, part in split(rows, ["ds", "mode"])]


def split(df: pd.DataFrame, axes: list[str]) -> list[tuple[dict, pd.DataFrame]]:
    """Parts of df in which each cell (a value of every axis) holds one configuration,
    each with the settings that tell it apart. df must have a `config` column."""
    if df.empty:
        return []
    cells: dict[tuple, list[dict]] = {}
    for i in range(len(df)):
        row = df.iloc[i]
        cells.setdefault(tuple(_key(row[a]) for a in axes), []).append(row["config"])
    varying = sorted(chosen({k for configs in cells.values() for k in _differing(configs)}))
    if not varying:
        return [({}, df)]
    parts: dict[tuple, list[int]] = {}
    for i, config in enumerate(df["config"]):
        parts.setdefault(tuple(_key(config.get(k)) for k in varying), []).append(i)
    return [({k: df.iloc[idx[0]]["config"].get(k) for k in varying}, df.iloc[idx])
            for idx in parts.values()]


def _differing(configs: list[dict]) -> set[str]:
    keys = set().union(*configs)
    return {k for k in keys if len({_key(c.get(k)) for c in configs}) > 1}


def _key(v):
    return None if missing(v) else v


def _by_workload(df: pd.DataFrame):
    return [(w, df[df["workload"] == w]) for w in dict.fromkeys(df["workload"])]


def _setting(v) -> str:
    return "default" if missing(v) else str(v)


def _id(stem: str, settings: dict) -> str:
    return figure_id(stem, settings, _setting)


def _title(text: str, settings: dict) -> str:
    if not settings:
        return text
    return f"{text} ({', '.join(f'{k}={_setting(v)}' for k, v in settings.items())})"


def _text(df: pd.DataFrame) -> str:
    return df["workload_text"].iloc[0]


def _setup(df: pd.DataFrame) -> str:
    """' — <workload>, <thread mode and count>' for what the figure's rows share."""
    parts = []
    if df["workload_text"].nunique() == 1:
        parts.append(_text(df))
    if df["thread_mode"].nunique() == 1 and df["threads"].nunique() == 1:
        mode, n = df["thread_mode"].iloc[0], int(df["threads"].iloc[0])
        parts.append(threads_label(n) if mode == "single" else f"{mode}, {threads_label(n)}")
    return " — " + "; ".join(parts) if parts else ""


def _n_text(df: pd.DataFrame) -> str:
    lo, hi = int(df["n"].min()), int(df["n"].max())
    text = f"n = {lo}–{hi} repetitions" if lo != hi else f"n = {lo} repetition{'' if lo == 1 else 's'}"
    return text + (" (no error bar where n = 1)." if lo == 1 else ".")


def _bar_caption(df: pd.DataFrame) -> str:
    return "Bars: mean over repetitions; whiskers: min–max; " + _n_text(df)


def _oversubscribed_text(df: pd.DataFrame) -> str:
    if "oversubscribed" not in df or not df["oversubscribed"].any():
        return ""
    return ("Configurations marked oversubscribed in the table (hollow points in line figures) "
            "ran more threads than the machine has CPUs: they show time-sharing, not scaling. ")

