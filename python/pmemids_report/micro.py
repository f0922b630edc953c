"""Figures of `pmemids micro` records, drawn as seeds 002 and 003 draw them.

points(records): one row per micro point (bench + configuration, repetitions
pooled; records from different hosts or PMEM kinds are kept apart; a key --min-time
grew is the value asked, fields.GROWN_CONFIG_KEYS): the
configuration's columns, `n`, and the mean and standard deviation over the
repetitions of every plotted metric, the flushes and fences per operation, and
the records' caveats (why this machine cannot show the seeds' effect).

select(points) picks the figures the points support, from FIGURES: a line
figure needs two or more values on its x axis (sizes and IO sizes on a log2
axis, as the seeds plot them); a heatmap (seed 002's Figures 5 and 6) needs two
or more thread counts and IO sizes of both its compared values. Points of one
figure that differ in a setting that is neither x, series nor panel are split
into one figure per value of that setting (named in its title and id), so no
cell ever pools two configurations (never on a key derived from another that splits
already, fields.chosen). A kind's further metrics (`more`) are rows of panels of the
same figure (micro_persist_size: the latency per cache line under the throughput), so
one `micro persist` call is one figure. Every figure carries the hardware caveat of
its records (expected_here: media, NUMA, counters, cores) on the image itself.

figures(points, fig_dir) draws them (PNG and SVG) and returns what the HTML
page shows per figure: id, title, caption, png, svg and the data table.
"""

from __future__ import annotations

import json
import math
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.ticker import NullLocator  # noqa: E402

from .fields import GROWN_CONFIG_KEYS, asked_config, chosen  # noqa: E402
from .load import Record  # noqa: E402
from .stats import missing  # noqa: E402
from .style import LINESTYLES, OTHER_COLORS, emulated_rows, figure_id, fmt_number, mark_emulated  # noqa: E402
from .tables import Table  # noqa: E402

# Not part of a point's identity: repetitions, seeds, where it ran, what follows
# from the rest.
NOT_IDENTITY = {"repetition", "repeat", "warmup", "seed", "order_seeds", "pool_dir", "mapped_bytes",
                "pool_bytes", "quick", "libpmem_env", "movnt_threshold_in_force", "latency_sample",
                "chunks_per_region", "region_bytes", "region_total_bytes", "lines", "touched_lines",
                "transactions_per_thread", "llc_bytes", "pmem2_force_granularity",
                # follow from the point's other settings (op, size, lock, ...)
                "implementation", "libpmem_path", "nt_store_bytes", "memory_node", "xpline_bytes",
                "range_stride_bytes", "lock_memory", "locks", "pmem2_granularity",
                "pmem2_granularity_forced", "hit_ratio_achieved", "latency_of", "flush_auto",
                # the value asked of a grown key: the key itself holds it (fields.GROWN_CONFIG_KEYS)
                *GROWN_CONFIG_KEYS.values()}
METRICS = ["ops_per_sec", "gib_per_sec", "ns_per_op", "ns_per_line", "latency_p50_ns", "latency_p99_ns",
           "flushes_per_op", "fences_per_op"]
LABELS = {"ops_per_sec": "throughput (Mops/s)", "gib_per_sec": "bandwidth (GiB/s)",
          "ns_per_op": "latency (ns per operation)", "ns_per_line": "latency per cache line (ns)"}
SCALE = {"ops_per_sec": 1e-6}
COLORS = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442",
          "#999999", "#8C564B"] + OTHER_COLORS
LOG2_X = {"size", "io", "ops_per_thread"}


@dataclass
class Figure:
    """One figure: `kind` lines (y against x, a line per series value, a panel per
    panel value) or heatmap (difference in % of `compare` b over a, threads x io)."""
    id: str
    title: str
    caption: str
    kind: str
    data: pd.DataFrame
    x: str
    y: str
    series: list[str] = field(default_factory=list)
    panel: list[str] = field(default_factory=list)
    compare: tuple[str, str, str] | None = None  # heatmap: (column, a, b)
    caveats: list[str] = field(default_factory=list)
    more: tuple[str, ...] = ()  # lines: further metrics, a row of panels each, under y's


@dataclass
class Kind:
    """A figure the records may support."""
    id: str
    bench: str
    title: str
    seed: str
    x: str
    y: str
    series: list[str]
    panel: list[str]
    where: dict = field(default_factory=dict)  # column -> allowed values
    compare: tuple[str, str, str] | None = None
    more: tuple[str, ...] = ()  # further metrics of the same points, a row of panels each


FIGURES = [
    Kind("micro_persist_size", "persist", "Persisting a written chunk, and the latency per cache line",
         "seed 003 Figures 4.1, 4.4 and (per line, sizes of whole lines) 4.2", "size", "ops_per_sec",
         ["op"], ["pattern"], more=("ns_per_line",)),
    Kind("micro_persist_threads", "persist", "Persist with threads", "seed 003 Figures 4.3, 4.5",
         "threads", "ops_per_sec", ["op"], ["size"]),
    Kind("micro_store_size", "store", "Stores and write-back instructions", "seed 002 R3",
         "size", "ops_per_sec", ["access"], ["fence"]),
    Kind("micro_copy_size", "copy", "Copying into persistent memory", "seed 003 Figures 4.6, 4.8",
         "size", "gib_per_sec", ["op"], ["pattern"]),
    Kind("micro_copy_movnt", "copy", "libpmem copies against the non-temporal threshold",
         "seed 003 Figure 4.6's 256-B step, attributed", "size", "gib_per_sec", ["movnt_threshold"], ["op"],
         where={"op": ["pmem-nodrain", "pmem-persist"]}),
    Kind("micro_copy_threads", "copy", "Copies with threads", "seed 003 Figures 4.7, 4.9",
         "threads", "gib_per_sec", ["op"], ["size"]),
    Kind("micro_bandwidth_io", "bandwidth", "Bandwidth against IO size",
         "seed 002 Figures 3(b)-(d), 4(a), 7(a)-(c)", "io", "gib_per_sec", ["access", "pattern"], ["memory"]),
    Kind("micro_bandwidth_store_pstore", "bandwidth", "Store against p-store bandwidth",
         "seed 002 Figure 6 (I5)", "io", "gib_per_sec", [], ["memory"], compare=("access", "store", "pstore")),
    Kind("micro_bandwidth_numa", "bandwidth", "Remote against local p-store bandwidth",
         "seed 002 Figure 5 (I4)", "io", "gib_per_sec", [], ["access"], compare=("numa", "local", "remote")),
    Kind("micro_latency_hit", "latency", "Load against p-store latency as the cache hit ratio varies",
         "seed 002 Figure 3(a) (I1)", "hit_ratio", "ns_per_op", ["access"], ["memory"]),
    Kind("micro_rmw_io", "rmw", "Repeated p-stores into one 256-B XPLine", "seed 002 Figure 7(d) (I7)",
         "io", "gib_per_sec", ["memory"], []),
    Kind("micro_txlog_size", "txlog", "pmemobj_tx_add_range against the range size",
         "seed 003 Figure 4.10", "size", "ops_per_sec", ["ranges_per_tx"], []),
    Kind("micro_txlog_threads", "txlog", "pmemobj_tx_add_range with threads", "seed 003 Figure 4.10",
         "threads", "ops_per_sec", ["size"], []),
    Kind("micro_alloc_size", "alloc", "Allocation and free, atomic and transactional",
         "seed 003 Figure 4.11", "size", "ops_per_sec", ["api", "op"], []),
    Kind("micro_alloc_threads", "alloc", "Allocation and free with threads", "seed 003 Figure 4.12",
         "threads", "ops_per_sec", ["api", "op"], ["size"]),
    Kind("micro_lock_ops", "lock", "Persistent against POSIX locks", "seed 003 Figure 4.13",
         "ops_per_thread", "ops_per_sec", ["lock"], []),
    Kind("micro_lock_threads", "lock", "Locks with threads", "seed 003 Figure 4.13", "threads",
         "ops_per_sec", ["lock"], ["region_sharing"]),
]


def points(records: list[Record]) -> pd.DataFrame:
    groups: dict[str, dict] = {}
    for r in records:
        if r.kind != "micro":
            continue
        # A repetition's --min-time growth is not its point: the value asked is.
        config = {k: v for k, v in asked_config(r.data["config"]).items() if k not in NOT_IDENTITY}
        config["hostname"] = r.data["context"].get("hostname")
        config["pmem"] = r.data["context"].get("pmem")
        key = json.dumps(config, sort_keys=True, default=str)
        g = groups.setdefault(key, {"config": config, "metrics": [], "caveats": set()})
        m = dict(r.data["metrics"])
        size = config.get("size")
        whole = isinstance(size, (int, float)) and size >= 64  # per line: whole lines only
        lines = math.ceil(size / 64) if whole else None
        m["ns_per_line"] = m["ns_per_op"] / lines if lines and _num(m.get("ns_per_op")) else None
        g["metrics"].append(m)
        for c in r.data.get("caveats") or ([r.data["expected_here"]] if r.data.get("expected_here") else []):
            g["caveats"].add(c)
    rows = []
    for g in groups.values():
        row = {k: (json.dumps(v) if isinstance(v, (list, dict)) else v) for k, v in g["config"].items()}
        row["n"] = len(g["metrics"])
        for metric in METRICS:
            values = [m[metric] for m in g["metrics"] if _num(m.get(metric))]
            row[metric] = sum(values) / len(values) if values else math.nan
            row[metric + "_sd"] = (math.sqrt(sum((v - row[metric]) ** 2 for v in values) / (len(values) - 1))
                                   if len(values) > 1 else math.nan)
        row["caveats"] = tuple(sorted(g["caveats"]))
        rows.append(row)
    return pd.DataFrame(rows, dtype=object)


def _num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and not math.isnan(v)


def select(pts: pd.DataFrame) -> list[Figure]:
    if pts.empty:
        return []
    out = []
    for k in FIGURES:
        df = pts[pts["bench"] == k.bench]
        for col, allowed in k.where.items():
            if col in df:
                df = df[df[col].isin(allowed)]
        if df.empty or k.x not in df:
            continue
        if k.compare:
            col, a, b = k.compare
            if col not in df or not {a, b} <= set(df[col]):
                continue
        axes = [k.x] + k.series + k.panel + ([k.compare[0]] if k.compare else []) + \
               (["threads"] if k.compare else [])
        for settings, part in _split(df, axes):
            if k.compare:
                fig = _heatmap_figure(k, settings, part)
            else:
                fig = _line_figure(k, settings, part)
            if fig is not None:
                out.append(fig)
    return out


def _line_figure(k: Kind, settings: dict, df: pd.DataFrame) -> Figure | None:
    df = df[df[k.y].map(_num)]
    if df[k.x].nunique() < 2:
        return None
    what = " and ".join(LABELS.get(y, y) for y in (k.y, *k.more))
    return Figure(_id(k.id, settings), _title(k.title, settings),
                  f"{k.seed}: {what} against {k.x.replace('_', ' ')}; points are the mean "
                  f"over repetitions (n = {_n(df)}), error bars ±1 standard deviation."
                  + _selection(settings),
                  "lines", df, k.x, k.y, k.series, k.panel, caveats=_caveats(df), more=k.more)


def _heatmap_figure(k: Kind, settings: dict, df: pd.DataFrame) -> Figure | None:
    col, a, b = k.compare
    if df["threads"].nunique() < 2 or df[k.x].nunique() < 2 or not {a, b} <= set(df[col]):
        return None
    return Figure(_id(k.id, settings), _title(k.title, settings),
                  f"{k.seed}: difference in % of {col}={b} over {col}={a} in {LABELS[k.y]}, "
                  f"(b - a) / a, per thread count and IO size (n = {_n(df)})." + _selection(settings),
                  "heatmap", df, k.x, k.y, [], k.panel, compare=k.compare, caveats=_caveats(df))


def _split(df: pd.DataFrame, axes: list[str]) -> list[tuple[dict, pd.DataFrame]]:
    """Parts in which every (axes) cell is one point, with the settings telling them apart."""
    others = [c for c in df.columns if c not in axes and c not in METRICS and not c.endswith("_sd")
              and c not in ("n", "caveats", "bench", "kind")]
    varying = chosen(c for c in others if df[c].map(_key).nunique() > 1)
    if not varying:
        return [({}, df)]
    parts: dict[tuple, list[int]] = {}
    for i in range(len(df)):
        parts.setdefault(tuple(_key(df.iloc[i][c]) for c in varying), []).append(i)
    return [({c: df.iloc[idx[0]][c] for c in varying}, df.iloc[idx]) for idx in parts.values()]


def _key(v):
    return None if missing(v) else v


def _id(stem: str, settings: dict) -> str:
    return figure_id(stem, settings)


def _title(text: str, settings: dict) -> str:
    return text + (f" ({', '.join(f'{k}={v}' for k, v in settings.items())})" if settings else "")


def _selection(settings: dict) -> str:
    return (" Points with " + ", ".join(f"{k}={v}" for k, v in settings.items()) + ".") if settings else ""


def _n(df: pd.DataFrame) -> str:
    lo, hi = int(df["n"].min()), int(df["n"].max())
    return str(lo) if lo == hi else f"{lo}–{hi}"


def _caveats(df: pd.DataFrame) -> list[str]:
    return sorted({c for cs in df["caveats"] for c in cs})


def _values(df: pd.DataFrame, col: str) -> list:
    vals = list(dict.fromkeys(_key(v) for v in df[col]))
    try:
        return sorted(vals, key=lambda v: (v is None, v))
    except TypeError:
        return vals


def _label(cols: list[str], row) -> str:
    return " ".join(str(row[c]) if len(cols) == 1 else f"{c}={row[c]}" for c in cols) or "all"


def _panels(fig: Figure):
    if not fig.panel:
        return [("", fig.data)]
    keys = list(dict.fromkeys(tuple(_key(r[c]) for c in fig.panel) for _, r in fig.data.iterrows()))
    return [(" ".join(f"{c}={v}" for c, v in zip(fig.panel, key)),
             fig.data[[tuple(_key(r[c]) for c in fig.panel) == key for _, r in fig.data.iterrows()]])
            for key in keys]


def _caveat_text(fig: Figure) -> str | None:
    return ("Not expected here: " + "; ".join(fig.caveats)) if fig.caveats else None


def draw(fig: Figure):
    """The matplotlib figure of fig: a row of panels per metric (y, then fig.more), the
    title wrapped to the canvas, the emulated marker in every panel of emulated points."""
    panels = _panels(fig)
    cols = min(3, len(panels))
    per_metric = math.ceil(len(panels) / cols)
    ys = [fig.y, *fig.more]
    rows = per_metric * len(ys)
    width = max(6.5, 4.2 * cols)
    mpl_fig, axes = plt.subplots(rows, cols, squeeze=False, layout="constrained",
                                 figsize=(width, 3.2 * rows + 1.0))
    used = set()
    for m, y in enumerate(ys):
        for i, (title, df) in enumerate(panels):
            ax = axes[m * per_metric + i // cols][i % cols]
            used.add(id(ax))
            (_draw_heatmap if fig.kind == "heatmap" else _draw_lines)(ax, fig, df, y)
            ax.set_title(title)
            if emulated_rows(df):
                mark_emulated(ax)
    for ax in axes.flat:
        ax.set_visible(id(ax) in used)
    # ~0.6 of the font size per character: wrapped, the title stays inside the canvas
    mpl_fig.suptitle(textwrap.fill(fig.title, int(width * 72 / (10.5 * 0.62))), fontweight="bold",
                     fontsize=10.5)
    if fig.caveats:  # one line each, under the panels
        lines = [f"Not expected here: {c}" for c in fig.caveats]
        mpl_fig.text(0.5, 0.0, "\n".join(lines), ha="center", va="bottom", color="#B00020", fontsize=8)
        height = mpl_fig.get_size_inches()[1]
        mpl_fig.get_layout_engine().set(rect=(0, 0.17 * len(lines) / height, 1, 1 - 0.17 * len(lines) / height))
    return mpl_fig


def render(fig: Figure, out_dir: Path) -> tuple[str, str]:
    mpl_fig = draw(fig)
    names = []
    for ext in ("png", "svg"):
        name = f"{fig.id}.{ext}"
        mpl_fig.savefig(out_dir / name, dpi=150, metadata={"Date": None} if ext == "svg" else None)
        names.append(name)
    plt.close(mpl_fig)
    return names[0], names[1]


def _draw_lines(ax, fig: Figure, df: pd.DataFrame, y: str) -> None:
    scale = SCALE.get(y, 1.0)
    series = list(dict.fromkeys(_label(fig.series, r) for _, r in df.iterrows()))
    for i, s in enumerate(series):
        pts = df[[_label(fig.series, r) == s for _, r in df.iterrows()]].sort_values(fig.x)
        pts = pts[pts[y].map(_num)]
        ax.errorbar(pts[fig.x].astype(float), pts[y].astype(float) * scale,
                    yerr=[0 if missing(v) else v * scale for v in pts[y + "_sd"]],
                    color=COLORS[i % len(COLORS)], linestyle=LINESTYLES[(i // len(COLORS)) % len(LINESTYLES)],
                    marker="o", markersize=3.5, linewidth=1.2, capsize=2, label=s)
    xs = [float(x) for x in _values(df, fig.x) if x is not None]
    if fig.x in LOG2_X and len(xs) > 1 and min(xs) > 0:
        ax.set_xscale("log", base=2)
        ax.set_xticks(xs, [fmt_number(x) for x in xs], rotation=45)
        ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel(fig.x.replace("_", " ") + (" (bytes)" if fig.x in ("size", "io") else ""))
    positive = [v for v in df[y] if _num(v) and v > 0]
    log = bool(positive) and max(positive) / min(positive) > 100
    if log:
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    ax.set_ylabel(LABELS.get(y, y) + (", log scale" if log else ""))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, title=" ".join(fig.series) if len(fig.series) == 1 else None, title_fontsize=7)


def heat_cells(fig: Figure, df: pd.DataFrame) -> tuple[list, list, list[list[float]]]:
    """(threads, io sizes, difference in % [thread][io]; NaN where a side is missing)."""
    col, a, b = fig.compare
    threads, ios = _values(df, "threads"), _values(df, fig.x)
    cells = []
    for t in threads:
        row = []
        for io in ios:
            at = df[(df["threads"] == t) & (df[fig.x] == io)]
            va = at[at[col] == a][fig.y].astype(float)
            vb = at[at[col] == b][fig.y].astype(float)
            row.append(100 * (vb.iloc[0] - va.iloc[0]) / va.iloc[0] if len(va) and len(vb) and va.iloc[0] > 0
                       else math.nan)
        cells.append(row)
    return threads, ios, cells


def _draw_heatmap(ax, fig: Figure, df: pd.DataFrame, y: str) -> None:
    threads, ios, cells = heat_cells(fig, df)
    finite = [abs(v) for row in cells for v in row if not math.isnan(v)]
    lim = max(finite) if finite else 1
    im = ax.imshow(cells, cmap="RdBu", vmin=-lim, vmax=lim, aspect="auto", origin="lower")
    for i, row in enumerate(cells):
        for j, v in enumerate(row):
            ax.text(j, i, "n/a" if math.isnan(v) else f"{v:+.0f}", ha="center", va="center", fontsize=7)
    ax.set_xticks(range(len(ios)), [fmt_number(v) for v in ios], rotation=45)
    ax.set_yticks(range(len(threads)), [str(t) for t in threads])
    ax.set_xlabel("IO size (bytes)")
    ax.set_ylabel("threads")
    col, a, b = fig.compare
    ax.figure.colorbar(im, ax=ax, label=f"{col}={b} over {col}={a} (%)")


def table(fig: Figure) -> Table:
    if fig.kind == "heatmap":
        threads, ios, cells = heat_cells(fig, fig.data)
        col, a, b = fig.compare
        columns = ["threads"] + [f"{io} B" for io in ios]
        rows = [[str(t)] + ["–" if math.isnan(v) else f"{v:+.1f}" for v in row] for t, row in zip(threads, cells)]
        return Table(columns, rows, [False] + [True] * len(ios))
    desc = list(dict.fromkeys(fig.panel + fig.series + [fig.x]))
    extra = [m for m in ("ops_per_sec", "gib_per_sec", "ns_per_op", "latency_p50_ns", "latency_p99_ns",
                         "flushes_per_op", "fences_per_op", *fig.more)
             if m != fig.y and fig.data[m].map(_num).any()]
    columns = desc + ["n", fig.y, "sd"] + extra
    rows = []
    for _, r in fig.data.sort_values(desc).iterrows():
        rows.append([str(r[c]) for c in desc] + [str(r["n"]), fmt_number(r[fig.y]), fmt_number(r[fig.y + "_sd"])]
                    + [fmt_number(r[m]) if _num(r[m]) else "n/a" for m in extra])
    return Table(columns, rows, [False] * len(desc) + [True] * (len(columns) - len(desc)))


def figures(pts: pd.DataFrame, fig_dir: Path) -> list[dict]:
    """Draws every micro figure of points(records) into fig_dir; what index.html
    shows for each."""
    out = []
    for fig in select(pts):
        png, svg = render(fig, fig_dir)
        caveat = _caveat_text(fig)
        out.append({"id": fig.id, "title": fig.title,
                    "caption": fig.caption + (f" {caveat}." if caveat else ""),
                    "png": png, "svg": svg, "table": table(fig)})
    return out
