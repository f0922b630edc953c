"""Seed 001's Table III in the paper's layout: the last-level-cache miss ratio of
hashtable, skiplist, btree, bplustree and rbtree in PMEM-Volatile, PMEM-Persist and
PMEM-Trans over the 100% read workload, the seed's percentages beside ours.

`tables(confs)` gives one table per kind of count the configurations hold:
  table3_llc      llc_miss_ratio (--counters perf: the CPU's PMU, as the seed's perf)
  table3_llc_sim  sim_ll_miss_ratio (--counters sim: callgrind's model of a cache,
                  not this machine's; the title and caption say so)
Rows are structures, columns each mode's seed and measured percentage (mean over
the repetitions; "–" where not measured), one table per host/setting combination
the configurations do not share (named in the caption). A table appears when at
least one of its cells is measured. The direction line states, per structure,
whether PMEM-Volatile has the lowest ratio of the three modes and whether Persist and
Trans are within 10% of each other, the two things the seed concludes.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from .stats import missing
from .tables import Table

STRUCTURES = ["hashtable", "skiplist", "btree", "bplustree", "rbtree"]
MODES = ["pmem-volatile", "pmem-persist", "pmem-trans"]
MODE_LABELS = {"pmem-volatile": "PMEM-Volatile", "pmem-persist": "PMEM-Persist",
               "pmem-trans": "PMEM-Trans"}
# Seed 001, Table III (perf, 100% read workload), in per cent.
SEED = {"hashtable": (50.831, 66.081, 65.958), "skiplist": (44.002, 68.366, 72.643),
        "btree": (31.771, 74.940, 76.309), "bplustree": (37.333, 69.854, 73.858),
        "rbtree": (37.205, 65.296, 67.832)}
WORKLOAD = "pmemids-read"
KINDS = [("table3_llc", "llc_miss_ratio", "measured with the CPU's PMU (perf_event_open)"),
         ("table3_llc_sim", "sim_ll_miss_ratio",
          "SIMULATED by callgrind: a model of a cache (LL read misses / LL reads), not this "
          "machine's caches")]
# Settings the tables are split by when they differ (never pooled).
SPLIT = ["hostname", "pmem", "git_revision", "recordcount", "operationcount", "counters"]


@dataclass
class CounterTable:
    id: str
    title: str
    caption: str
    table: Table
    direction: list[str]


def _pct(v) -> str:
    return "–" if missing(v) else f"{100 * v:.1f}%"


def _direction(ds: str, ours: list) -> str:
    if any(missing(v) for v in ours):
        return f"{ds}: not all three modes measured"
    vol, per, tra = ours
    lowest = vol < per and vol < tra
    similar = per > 0 and 0.9 <= tra / per <= 1.1
    return (f"{ds}: PMEM-Volatile {'lowest' if lowest else 'NOT lowest'}; Persist and Trans "
            f"{'similar' if similar else 'NOT similar'} (Trans/Persist {tra / per:.2f})"
            if per > 0 else f"{ds}: PMEM-Persist ratio 0")


def tables(confs: pd.DataFrame) -> list[CounterTable]:
    out: list[CounterTable] = []
    if confs.empty or "workload" not in confs:
        return out
    rows = confs[(confs["workload"] == WORKLOAD) & confs["ds"].isin(STRUCTURES)
                 & confs["mode"].isin(MODES)]
    for tid, metric, how in KINDS:
        if metric not in rows or rows[metric].isna().all():
            continue
        have = rows[rows[metric].notna()]
        split = [k for k in SPLIT if k in have and have[k].map(str).nunique() > 1]
        groups = have.groupby(split, sort=False) if split else [((), have)]
        for key, g in groups:
            key = key if isinstance(key, tuple) else (key,)
            settings = ", ".join(f"{k}={v}" for k, v in zip(split, key))
            suffix = "_" + "_".join(str(v) for v in key) if split else ""
            body, direction = [], []
            for ds in STRUCTURES:
                ours = []
                for mode in MODES:
                    cell = g[(g["ds"] == ds) & (g["mode"] == mode)][metric]
                    ours.append(cell.mean() if len(cell) else float("nan"))
                row = [ds]
                for i, _ in enumerate(MODES):
                    row += [f"{SEED[ds][i]:.1f}%", _pct(ours[i])]
                body.append(row)
                direction.append(_direction(ds, ours))
            columns = ["structure"] + [f"{MODE_LABELS[m]} {who}" for m in MODES
                                       for who in ("seed", "ours")]
            n = g["n"].min() if "n" in g else None
            caption = (f"Last-level-cache miss ratio over the 100% read workload ({WORKLOAD}), "
                       f"ours {how}; mean of {n}+ repetitions per cell. The seed's numbers are "
                       f"perf's on its Optane machine (seed 001, Table III)."
                       + (f" Settings: {settings}." if settings else ""))
            out.append(CounterTable(tid + suffix,
                                    "Table III: LLC miss ratio, 100% read"
                                    + (" (SIMULATED caches, callgrind)" if "sim" in metric else ""),
                                    caption,
                                    Table(columns, body, [False] + [True] * (len(columns) - 1)),
                                    direction))
    return out
