"""Orders, colours and labels shared by every figure and table.

Structures sort in the descriptor list's order and operation types are the
structures' own (both from `pmemids list --json`, catalog.py); modes in the
paper's order; unknown names follow, alphabetically. Each mode keeps one colour in every figure (Okabe-Ito palette,
readable by colour-blind readers); a second series dimension (lock kind,
local/remote memory, B-tree variant) is drawn with hatches on bars and line
styles on lines. Throughput is shown in Kops/s, or Mops/s where values pass
10,000 Kops/s. Every panel of a figure of emulated-PMEM records carries EMULATED_MARK
inside its plot area.
"""

from __future__ import annotations

import hashlib
import math
import re

from . import catalog

STRUCTURES = catalog.structures()
MODES = ["dram", "pmem-volatile", "pmem-persist", "pmem-trans"]
LOCKS = ["pthread-dram", "pthread-pmem", "pmemobj", "rwlock-dram", "rwlock-pmemobj"]
LOCALITIES = ["local", "remote"]
PERCENTILES = [("p50", "p50"), ("p90", "p90"), ("p99", "p99"), ("p999", "p99.9"),
               ("p9999", "p99.99"), ("max", "max")]
OP_TYPES = catalog.op_types()

MODE_COLORS = {"dram": "#0072B2", "pmem-volatile": "#009E73", "pmem-persist": "#E69F00",
               "pmem-trans": "#D55E00"}
OTHER_COLORS = ["#CC79A7", "#56B4E9", "#F0E442", "#000000"]
HATCHES = ["", "//", "..", "xx", "\\\\", "oo"]
LINESTYLES = ["-", "--", ":", "-."]
MARKERS = {"dram": "o", "pmem-volatile": "s", "pmem-persist": "^", "pmem-trans": "D"}

# A panel's values spanning more than this ratio get a logarithmic axis.
LOG_SCALE_RATIO = 20.0


def order_key(known: list[str]):
    """Sort key: known names in their listed order, then the rest alphabetically."""
    rank = {name: i for i, name in enumerate(known)}
    return lambda v: (rank.get(v, len(known)), str(v))


def mode_color(mode: str) -> str:
    if mode in MODE_COLORS:
        return MODE_COLORS[mode]
    return OTHER_COLORS[sum(map(ord, mode)) % len(OTHER_COLORS)]


def workload_label(config: dict) -> str:
    """'pmemids-write: 90% update, 10% insert, zipfian' from a configuration row."""
    parts = []
    for op in OP_TYPES:
        share = config.get(f"{op}proportion")
        if isinstance(share, (int, float)) and not math.isnan(share) and share > 0:
            parts.append(f"{share * 100:.0f}% {op}")
    dist = config.get("requestdistribution")
    if isinstance(dist, str):
        parts.append(dist)
    name = config.get("workload", "?")
    return f"{name}: {', '.join(parts)}" if parts else str(name)


def threads_label(n) -> str:
    return f"{int(n)} thread" + ("" if int(n) == 1 else "s")


def fmt_number(v, digits: int = 3) -> str:
    """Compact human number for tables: 3 significant digits, thousands separators; n/a for
    a value the records hold as null (not observed) or lack."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"  # not observed (null in the record)
    if v == 0:
        return "0"
    if abs(v) >= 10 ** digits:
        return f"{v:,.0f}"
    return f"{v:.{digits}g}"


# Figure ids name files (figures/<id>.png): the stem and the settings that split the
# figure; past ID_MAX characters the stem and a digest of the settings (the settings
# are in the title and caption either way).
ID_MAX = 48
EMULATED_MARK = "EMULATED PMEM"


def figure_id(stem: str, settings: dict, show=str) -> str:
    full = re.sub(r"[^A-Za-z0-9._-]+", "-", stem + "".join(f"_{k}-{show(v)}" for k, v in settings.items()))
    if len(full) <= ID_MAX:
        return full
    digest = hashlib.sha1(full.encode()).hexdigest()[:8]
    return f"{re.sub(r'[^A-Za-z0-9._-]+', '-', stem)[:ID_MAX - 9]}_{digest}"


def mark_emulated(ax) -> None:
    """The emulated-PMEM marker inside the plot area, so a cropped PNG keeps it."""
    ax.text(0.99, 0.98, EMULATED_MARK, transform=ax.transAxes, ha="right", va="top", fontsize=7,
            fontweight="bold", color="#B00020", alpha=0.8, zorder=10,
            bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "#B00020",
                  "alpha": 0.7, "linewidth": 0.6})


def emulated_rows(df) -> bool:
    """Rows measured on emulated PMEM that used PMEM (a dram-mode run or a micro point on
    DRAM used no PMEM, whatever its pool directory was)."""
    if "pmem" not in df:
        return False
    for _, r in df.iterrows():
        if r.get("pmem") == "emulated" and r.get("mode") != "dram" and r.get("memory") != "dram":
            return True
    return False
