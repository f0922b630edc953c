"""Drawing FigureSpecs with matplotlib (Agg backend): `<id>.png` (150 dpi) and
`<id>.svg` per figure. The spec's title heads the legend above the panels, and a
footer under them states the scale (records, operations, repetitions) and
"emulated PMEM" when it was, so a PNG stands alone.

SVG text is kept as text (svg.fonttype 'none'): labels stay searchable. Throughput
axes are in Kops/s (Mops/s when the figure's values pass 10,000 Kops/s, unit()); the
footer names the operation count that ran (metrics.operationcount, grown by --min-time)
and the whiskers; every panel of emulated-PMEM records outside --mode dram carries
style.EMULATED_MARK in its plot area; bars and points are means over repetitions with min-max
whiskers (never below zero). Bar figures put all their panels on one y scale
(a grid when the spec has rows); a y axis whose plotted values span more than
style.LOG_SCALE_RATIO is logarithmic, said in its label. Colour is the mode in
every figure; the spec's hatch column is drawn as bar hatches or line styles;
oversubscribed points of line figures are hollow.
"""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib
import matplotlib.axes

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import FuncFormatter, NullLocator  # noqa: E402

from .figures import FigureSpec  # noqa: E402
from .stats import missing  # noqa: E402
from .style import (HATCHES, LINESTYLES, LOCALITIES, LOCKS, LOG_SCALE_RATIO, MARKERS, MODES,  # noqa: E402
                    PERCENTILES, STRUCTURES, emulated_rows, mark_emulated, mode_color, order_key,
                    threads_label)

plt.rcParams.update({
    "svg.fonttype": "none",
    "font.size": 9,
    "axes.titlesize": 9.5,
    "axes.titlelocation": "left",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "hatch.linewidth": 0.6,
})

KNOWN_ORDER = {"ds": STRUCTURES, "mode": MODES, "lock": LOCKS, "locality": LOCALITIES}
MOPS_FROM = 1e7  # ops/s: past 10,000 Kops/s, throughput axes are in Mops/s


def unit(spec: FigureSpec) -> tuple[float, str]:
    """(divisor of ops/s, axis label) of the figure's throughput."""
    cols = [c for c in ("max", "mean") if c in spec.data]
    values = [v for c in cols for v in spec.data[c] if not missing(v)]
    if spec.kind == "timeline":
        values = [v for t in spec.data["timeline"] for v in t]
    return (1e6, "throughput (Mops/s)") if values and max(values) > MOPS_FROM else (1e3, "throughput (Kops/s)")


def render(spec: FigureSpec, out_dir: Path) -> list[str]:
    """Writes the PNG and SVG of spec into out_dir; returns their file names."""
    draw = {"bars": _bars, "lines": _lines, "percentiles": _percentiles, "timeline": _timeline}
    fig = draw[spec.kind](spec)
    fig.supxlabel(footer(spec.data) + ("; whiskers: min–max over repetitions" if spec.kind in ("bars", "lines")
                                       else ""), fontsize=7.5, color="#555555")
    if emulated_rows(spec.data):
        for ax in fig.findobj(matplotlib.axes.Axes):
            if ax.get_visible() and ax.get_label() != "<colorbar>":
                mark_emulated(ax)
    _fit_legend(fig)
    names = []
    for ext in ("png", "svg"):
        name = f"{spec.id}.{ext}"
        # PNG: zlib level 1 encodes several times faster than the default 6, for larger files.
        options = {"pil_kwargs": {"compress_level": 1}} if ext == "png" else {"metadata": {"Date": None}}
        fig.savefig(out_dir / name, dpi=150, **options)
        fig.set_layout_engine("none")  # laid out once, by the first save
        names.append(name)
    plt.close(fig)
    return names


def footer(df) -> str:
    """'5,000 records, 20,000 operations, 3 repetitions per point; emulated PMEM'."""
    parts = []
    # operations: the count that ran (--min-time grows it), else the count asked
    ran = "operations_ran" in df and df["operations_ran"].map(lambda v: not missing(v)).any()
    for column, what in (("recordcount", "records"),
                         ("operations_ran" if ran else "operationcount", "operations")):
        if column in df:
            parts.append(f"{_span(df[column])} {what}")
    if "duration" in df and df["duration"].map(lambda v: not missing(v)).any():
        parts.append(f"{_span(df['duration'])} s timed")
    reps = df["n"] if "n" in df else df.groupby("config_id").size()  # run rows: count them
    parts.append(f"{_span(reps)} repetition{'' if set(reps) == {1} else 's'} per point")
    text = ", ".join(parts)
    if "pmem" in df and (df["pmem"] == "emulated").any():
        text += "; emulated PMEM (DRAM behind the flushes)"
    return text


def _span(values) -> str:
    """'5,000' or '2,000–4,000' over the present values."""
    present = sorted({v for v in values if not missing(v)})
    if not present:
        return "–"
    lo, hi = (f"{v:,.0f}" if float(v).is_integer() else f"{v:g}" for v in (present[0], present[-1]))
    return lo if lo == hi else f"{lo}–{hi}"


def _fit_legend(fig) -> None:
    """Widens the figure when the legend (with the title) is wider than it."""
    width = fig.legends[0].get_window_extent(fig.canvas.get_renderer()).width / fig.dpi + 0.4
    w, h = fig.get_size_inches()
    if width > w:
        fig.set_size_inches(width, h)


def ordered(values, column: str | None) -> list:
    """Distinct values in display order: known names first, numbers ascending,
    workloads as first seen; a missing value (None/NaN) is one value, first."""
    distinct = list(dict.fromkeys(None if missing(v) else v for v in values))
    if column in KNOWN_ORDER:
        key = order_key(KNOWN_ORDER[column])
        return sorted(distinct, key=lambda v: (-1, "") if v is None else key(v))
    if column == "workload":
        return distinct
    return sorted(distinct, key=lambda v: (v is not None, v if v is not None else 0))


def _eq(series, value):
    return series.map(lambda v: (None if missing(v) else v) == value)


def _panels(spec: FigureSpec, data=None):
    """(title, rows) per panel value of spec (in order), rows taken from data
    (default: all of spec.data; a panel may then be empty)."""
    d = spec.data if data is None else data
    if spec.panel is None:
        return [("", d)]
    out = []
    for v in ordered(spec.data[spec.panel], spec.panel):
        rows = d[_eq(d[spec.panel], v)]
        if spec.panel == "workload" and len(rows):
            title = rows["workload_text"].iloc[0]
        elif spec.panel == "threads":
            title = threads_label(v)
        else:
            title = str(v)
        out.append((title, rows))
    return out


def _hatch_styles(spec: FigureSpec, styles: list[str]) -> dict:
    if spec.hatch is None:
        return {None: styles[0]}
    return {v: styles[i % len(styles)] for i, v in enumerate(ordered(spec.data[spec.hatch], spec.hatch))}


def _series_order(spec: FigureSpec, rows):
    """Rows sorted by mode, then hatch value."""
    mode_key = order_key(MODES)
    hatch_rank = {v: i for i, v in enumerate(_hatch_styles(spec, HATCHES))}
    key = [(mode_key(r["mode"]), hatch_rank[_hatch_value(spec, r)]) for _, r in rows.iterrows()]
    return [rows.iloc[i] for i in sorted(range(len(rows)), key=lambda i: key[i])]


def _hatch_value(spec: FigureSpec, row):
    if spec.hatch is None:
        return None
    v = row[spec.hatch]
    return None if missing(v) else v


def _y_axis(ax, values, label: str) -> None:
    """Log scale when values span more than LOG_SCALE_RATIO; plain tick numbers."""
    positive = [v for v in values if not missing(v) and v > 0]
    log = bool(positive) and max(positive) / min(positive) > LOG_SCALE_RATIO
    if log:
        ax.set_yscale("log")
        ax.yaxis.set_minor_locator(NullLocator())  # decades are enough, and minor ticks are costly
    else:
        ax.set_ylim(bottom=0)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if abs(v) >= 1 else f"{v:g}"))
    ax.set_ylabel(label + (", log scale" if log else ""))


def _legend(fig, spec: FigureSpec, line: bool, markers: bool = True, oversubscribed: bool = False) -> None:
    """Above the panels, under the title: one row of modes, one row of hatch values
    (and the hollow marker of oversubscribed points)."""
    modes = ordered(spec.data["mode"], "mode")
    if line:
        rows = [[Line2D([], [], color=mode_color(m), marker=MARKERS.get(m, "o") if markers else None, label=m)
                 for m in modes]]
    else:
        rows = [[Patch(facecolor=mode_color(m), edgecolor="#333333", linewidth=0.4, label=m) for m in modes]]
    if spec.hatch is not None:
        styles = _hatch_styles(spec, LINESTYLES if line else HATCHES)
        if line:
            rows.append([Line2D([], [], color="#555555", linestyle=style, label=_hatch_label(spec.hatch, v))
                         for v, style in styles.items()])
        else:
            rows.append([Patch(facecolor="white", edgecolor="#333333", hatch=style, label=_hatch_label(spec.hatch, v))
                         for v, style in styles.items()])
    if oversubscribed:
        rows[0].append(Line2D([], [], color="#555555", marker="o", markerfacecolor="white", linestyle="none",
                              label="more threads than CPUs"))
    rows = [r for r in rows if r]
    ncol = max(len(r) for r in rows)
    blank = Patch(visible=False, label="")
    # Legends fill column by column: interleave so that each list is one row.
    handles = [r[i] if i < len(r) else blank for i in range(ncol) for r in rows]
    fig.legend(handles=handles, loc="outside upper center", ncol=ncol, title=spec.title,
               title_fontproperties={"weight": "bold", "size": 10.5})


def _hatch_label(column: str, value) -> str:
    if column == "locality":
        return f"{value} memory"
    if column == "ds":
        return str(value)
    return f"{column}: {'none' if value is None else value}"


def _grid(n: int, width: float, height: float, max_cols: int = 4):
    cols = min(max_cols, n)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows + 0.9),
                             squeeze=False, layout="constrained")
    flat = list(axes.flat)
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def _whiskers(rows, div: float) -> list[list[float]] | None:
    """Min-max whiskers around the means, in ops/s / div; None when no row has a spread."""
    if all(r["n"] < 2 for r in rows):
        return None
    return [[0 if r["n"] < 2 else (r["mean"] - r["min"]) / div for r in rows],
            [0 if r["n"] < 2 else (r["max"] - r["mean"]) / div for r in rows]]


def _bar_grid(spec: FigureSpec):
    """(figure, [(axes, title, rows)]): one column of panels, or, when the spec has
    rows, a row of panels (a subfigure headed by its value) per value of spec.row.
    (Axes are not shared across subfigures: matplotlib redraws the whole figure on
    every limit change then; _bars gives all panels one scale instead.)"""
    panels = _panels(spec)
    if spec.row is None:
        bars = max(len(rows) for _, rows in panels)
        fig, axes = plt.subplots(len(panels), 1, squeeze=False, layout="constrained",
                                 figsize=(min(16.0, max(6.5, 1.5 + 0.24 * bars)), 1.1 + 2.7 * len(panels)))
        return fig, [(ax, title, rows) for ax, (title, rows) in zip(axes[:, 0], panels)]
    row_values = ordered(spec.data[spec.row], spec.row)
    fig = plt.figure(layout="constrained", figsize=(0.6 + 1.45 * len(panels), 1.2 + 2.6 * len(row_values)))
    cells = []
    for sub, rv in zip(fig.subfigures(len(row_values), 1, squeeze=False)[:, 0], row_values):
        in_row = spec.data[_eq(spec.data[spec.row], rv)]
        sub.suptitle(_row_title(spec, in_row), x=0.01, ha="left", fontweight="bold", fontsize=9.5)
        axes = sub.subplots(1, len(panels), squeeze=False)[0]
        for ax, (title, rows) in zip(axes, _panels(spec, in_row)):
            cells.append((ax, title, rows))
    return fig, cells


def _row_title(spec: FigureSpec, rows) -> str:
    """The heading of a row of panels: the workload's description, or column: value."""
    return rows["workload_text"].iloc[0] if spec.row == "workload" else f"{spec.row}: {rows[spec.row].iloc[0]}"


def _bars(spec: FigureSpec):
    div, ylabel = unit(spec)
    hatches = _hatch_styles(spec, HATCHES)
    fig, cells = _bar_grid(spec)
    per_group = max(len(rows[_eq(rows[spec.x], g)]) for _, _, rows in cells
                    for g in ordered(rows[spec.x], spec.x))
    width = 0.8 / per_group
    for ax, title, rows in cells:
        groups = ordered(rows[spec.x], spec.x)
        for gi, g in enumerate(groups):
            series = _series_order(spec, rows[_eq(rows[spec.x], g)])
            for j, r in enumerate(series):
                err = _whiskers([r], div)
                ax.bar(gi + (j - (len(series) - 1) / 2) * width, r["mean"] / div, width * 0.95,
                       yerr=err, color=mode_color(r["mode"]), hatch=hatches[_hatch_value(spec, r)],
                       edgecolor="#333333", linewidth=0.4, capsize=2, error_kw={"elinewidth": 0.8})
        labels = ["none" if g is None else str(g) for g in groups]
        ax.set_xticks(range(len(groups)), labels)
        if spec.row is not None and len(groups) > 2:  # narrow panels
            ax.tick_params(axis="x", labelrotation=40, labelsize=7.5)
            for label in ax.get_xticklabels():
                label.set_horizontalalignment("right")
        if spec.x == "threads":
            ax.set_xlabel("threads")
        ax.set_title(title)
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
    # One scale for every panel: linear or log decided on every plotted value,
    # limits the union of the panels' own.
    values = [v / div for _, _, rows in cells for v in list(rows["min"]) + list(rows["max"]) + list(rows["mean"])]
    for ax, _, _ in cells:
        _y_axis(ax, values, ylabel)
    limits = [ax.get_ylim() for ax, _, _ in cells]
    low, high = min(lo for lo, _ in limits), max(hi for _, hi in limits)
    for ax, _, _ in cells:
        ax.set_ylim(low, high)
        if not ax.get_subplotspec().is_first_col():
            ax.set_ylabel("")
            ax.tick_params(axis="y", labelleft=False)
    _legend(fig, spec, line=False)
    return fig


def _lines(spec: FigureSpec):
    div, label = unit(spec)
    panels = _panels(spec)
    styles = _hatch_styles(spec, LINESTYLES)
    xs = [x for x in ordered(spec.data[spec.x], spec.x) if x is not None]
    fig, axes = _grid(len(panels), 3.3, 2.6)
    for ax, (title, rows) in zip(axes, panels):
        series: dict[tuple, list] = {}
        for r in _series_order(spec, rows):
            series.setdefault((r["mode"], _hatch_value(spec, r)), []).append(r)
        for (mode, hv), pts in series.items():
            pts.sort(key=lambda r: r[spec.x])
            ax.errorbar([r[spec.x] for r in pts], [r["mean"] / div for r in pts], yerr=_whiskers(pts, div),
                        color=mode_color(mode), marker=MARKERS.get(mode, "o"), markersize=4,
                        linestyle=styles[hv], linewidth=1.3, capsize=2)
            over = [r for r in pts if r.get("oversubscribed") is True]
            if over:  # hollow: more threads than CPUs
                ax.plot([r[spec.x] for r in over], [r["mean"] / div for r in over], linestyle="none",
                        marker=MARKERS.get(mode, "o"), markersize=4, markerfacecolor="white",
                        markeredgecolor=mode_color(mode), zorder=5)
        if xs and max(xs) / max(min(xs), 1) >= 8:
            ax.set_xscale("log", base=2)
        ax.set_xticks(xs, [str(x) for x in xs])
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlabel(spec.x)
        _y_axis(ax, [v / div for v in list(rows["min"]) + list(rows["max"]) + list(rows["mean"])], label)
        ax.set_title(title)
        ax.grid(alpha=0.3)
    _legend(fig, spec, line=True,
            oversubscribed="oversubscribed" in spec.data and bool(spec.data["oversubscribed"].any()))
    return fig


def _percentiles(spec: FigureSpec):
    cols = [(f"latency_{spec.op}_{p}_ns", label) for p, label in PERCENTILES
            if f"latency_{spec.op}_{p}_ns" in spec.data and spec.data[f"latency_{spec.op}_{p}_ns"].notna().any()]
    panels = _panels(spec)
    fig, axes = _grid(len(panels), 3.3, 2.6)
    for ax, (title, rows) in zip(axes, panels):
        values = []
        for r in _series_order(spec, rows):
            ys = [r[c] for c, _ in cols]
            values += ys
            ax.plot(range(len(cols)), ys, color=mode_color(r["mode"]), marker=MARKERS.get(r["mode"], "o"),
                    markersize=4, linewidth=1.3)
        ax.set_xticks(range(len(cols)), [label.removeprefix("p") for _, label in cols])
        ax.set_xlabel("percentile")
        _y_axis(ax, values, f"{spec.op} latency (ns)")
        ax.set_title(title)
        ax.grid(alpha=0.3)
    _legend(fig, spec, line=True)
    return fig


def _timeline(spec: FigureSpec):
    div, label = unit(spec)
    panels = _panels(spec)
    fig, axes = _grid(len(panels), 3.3, 2.6)
    for ax, (title, rows) in zip(axes, panels):
        for _, r in rows.iterrows():
            ms = r.get("timeline_ms")
            step = None if missing(ms) else ms / 1000
            t = [(i + 1) * step if step else i + 1 for i in range(len(r["timeline"]))]
            ax.plot(t, [v / div for v in r["timeline"]], color=mode_color(r["mode"]), linewidth=1, alpha=0.85)
            ax.set_xlabel("time (s)" if step else "interval")
        _y_axis(ax, [v / div for t in rows["timeline"] for v in t], label)
        ax.set_title(title)
        ax.grid(alpha=0.3)
    _legend(fig, spec, line=True, markers=False)
    return fig
