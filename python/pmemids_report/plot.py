"""Drawing FigureSpecs with matplotlib (Agg backend): `<id>.png` (150 dpi) and
`<id>.svg` per figure. The spec's title heads the legend above the panels, so a
PNG stands alone.

SVG text is kept as text (svg.fonttype 'none'): labels stay searchable. Throughput
axes are in Kops/s; bars and points are means over repetitions with ±1 standard
deviation error bars. A panel whose plotted values span more than
style.LOG_SCALE_RATIO gets a logarithmic y axis, said in its label. Colour is the
mode in every figure; the spec's hatch column is drawn as bar hatches or line styles.
"""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import FuncFormatter, NullLocator  # noqa: E402

from .figures import FigureSpec  # noqa: E402
from .stats import missing  # noqa: E402
from .style import (HATCHES, LINESTYLES, LOCALITIES, LOCKS, LOG_SCALE_RATIO, MARKERS, MODES,  # noqa: E402
                    PERCENTILES, STRUCTURES, mode_color, order_key, threads_label)

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
THROUGHPUT = "throughput (Kops/s)"


def render(spec: FigureSpec, out_dir: Path) -> list[str]:
    """Writes the PNG and SVG of spec into out_dir; returns their file names."""
    draw = {"bars": _bars, "lines": _lines, "percentiles": _percentiles, "timeline": _timeline}
    fig = draw[spec.kind](spec)
    _fit_legend(fig)
    names = []
    for ext in ("png", "svg"):
        name = f"{spec.id}.{ext}"
        fig.savefig(out_dir / name, dpi=150,
                    metadata={"Date": None} if ext == "svg" else None)
        names.append(name)
    plt.close(fig)
    return names


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


def _panels(spec: FigureSpec):
    """(title, rows) per panel, in order."""
    d = spec.data
    if spec.panel is None:
        return [("", d)]
    out = []
    for v in ordered(d[spec.panel], spec.panel):
        rows = d[_eq(d[spec.panel], v)]
        if spec.panel == "workload":
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
    else:
        ax.set_ylim(bottom=0)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if abs(v) >= 1 else f"{v:g}"))
    ax.set_ylabel(label + (", log scale" if log else ""))


def _legend(fig, spec: FigureSpec, line: bool, markers: bool = True) -> None:
    """Above the panels, under the title: one row of modes, one row of hatch values."""
    modes = [] if spec.x == "mode" else ordered(spec.data["mode"], "mode")  # else on the x axis
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


def _bars(spec: FigureSpec):
    panels = _panels(spec)
    hatches = _hatch_styles(spec, HATCHES)
    per_group = max(len(rows[_eq(rows[spec.x], g)]) for _, rows in panels
                    for g in ordered(rows[spec.x], spec.x))
    bars = max(len(rows) for _, rows in panels)
    fig, axes = plt.subplots(len(panels), 1, squeeze=False, layout="constrained",
                             figsize=(min(16.0, max(6.5, 1.5 + 0.24 * bars)), 0.9 + 2.7 * len(panels)))
    width = 0.8 / per_group
    for ax, (title, rows) in zip(axes[:, 0], panels):
        groups = ordered(rows[spec.x], spec.x)
        for gi, g in enumerate(groups):
            series = _series_order(spec, rows[_eq(rows[spec.x], g)])
            for j, r in enumerate(series):
                err = None if missing(r["sd"]) else r["sd"] / 1e3
                ax.bar(gi + (j - (len(series) - 1) / 2) * width, r["mean"] / 1e3, width * 0.95,
                       yerr=err, color=mode_color(r["mode"]), hatch=hatches[_hatch_value(spec, r)],
                       edgecolor="#333333", linewidth=0.4, capsize=2, error_kw={"elinewidth": 0.8})
        ax.set_xticks(range(len(groups)), ["none" if g is None else str(g) for g in groups])
        if spec.x == "threads":
            ax.set_xlabel("threads")
        _y_axis(ax, rows["mean"], THROUGHPUT)
        ax.set_title(title)
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
    _legend(fig, spec, line=False)
    return fig


def _lines(spec: FigureSpec):
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
            ax.errorbar([r[spec.x] for r in pts], [r["mean"] / 1e3 for r in pts],
                        yerr=[0 if missing(r["sd"]) else r["sd"] / 1e3 for r in pts],
                        color=mode_color(mode), marker=MARKERS.get(mode, "o"), markersize=4,
                        linestyle=styles[hv], linewidth=1.3, capsize=2)
        if xs and max(xs) / max(min(xs), 1) >= 8:
            ax.set_xscale("log", base=2)
        ax.set_xticks(xs, [str(x) for x in xs])
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlabel(spec.x)
        _y_axis(ax, rows["mean"], THROUGHPUT)
        ax.set_title(title)
        ax.grid(alpha=0.3)
    _legend(fig, spec, line=True)
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
    panels = _panels(spec)
    fig, axes = _grid(len(panels), 3.3, 2.6)
    for ax, (title, rows) in zip(axes, panels):
        for _, r in rows.iterrows():
            ms = r.get("timeline_ms")
            step = None if missing(ms) else ms / 1000
            t = [(i + 1) * step if step else i + 1 for i in range(len(r["timeline"]))]
            ax.plot(t, [v / 1e3 for v in r["timeline"]], color=mode_color(r["mode"]), linewidth=1, alpha=0.85)
            ax.set_xlabel("time (s)" if step else "interval")
        _y_axis(ax, [v for t in rows["timeline"] for v in t], THROUGHPUT)
        ax.set_title(title)
        ax.grid(alpha=0.3)
    _legend(fig, spec, line=True, markers=False)
    return fig
