"""Thread counts on a loaded machine: a claim that compares configurations with
different thread counts is decided only when the machine had free CPUs for them in
every round (docs/reproduce.md, "Thread counts on a loaded machine").

Why: pairing by rounds cancels load that every configuration of a round shares
equally. Other work that is runnable beside a run does not take an equal share from
a 1-thread and a 2-thread configuration: with every runnable thread getting an equal
share of the CPUs, the 2-thread run holds less than two CPUs where the 1-thread run
still holds (nearly) one. What is compared is then the load, not the configurations.

Which claims: `compared(claim, configs)` -- some group of some check selects
configurations with different `threads` on its sides (001-Fig8's `select(threads=2)`
against `select(threads=1)` per lock and mode); a check comparing modes or structures
at each thread count (by=[threads]) does not. A claim file's `compares_threads =
true|false` overrides the derivation.

The rule (one measurable figure per round): L, the mean of the 1-minute load averages
read before and after the round's runs (`sweep.loadavg_before` / `loadavg_after`; a
plain run's `context.loadavg_before` / `loadavg_after`), over the runs of the
configurations the checks select; runs without rounds count as one more unit at the
highest of their readings. Of L, at most T is pmemids' own (T: the claim's
largest thread count), so other work holds at least L - T runnable threads; the round
had free CPUs when, sharing the C CPUs (`context.cpus_online`) equally among those and
the T threads, each of the T would get at least SHARE of a CPU:
C / ((L - T) + T) >= SHARE, i.e. L <= C / SHARE. A claim whose T exceeds C has no free
CPUs for its threads whatever the load. A round over the threshold, or a run without
a load reading, makes the requirement not met: the claim is not measurable here, with
the round's figure and the threshold. Rounds over it stay recorded (a later run in the
same --out reads them again: decide it in a new --out on an idle machine).

The requirement is a [[require]]-like entry of the verdict record (`requires`, `kind`
= "load"), so the verdict line, the JSON record and the report show it as every other
requirement: met, or not met (never within noise).
"""

from __future__ import annotations

import math
import numbers

import pandas as pd

from .evaluate import grouped, key_of, select

SHARE = 0.9
WHAT = "free CPUs for the thread counts compared"
RULE = ("every round: 1-minute load average (mean of the readings around its runs) <= "
        f"CPUs / {SHARE:g}, the claim's threads at most the CPUs")


def _threads(side: pd.DataFrame) -> frozenset:
    return frozenset(key_of(side, "threads")) if len(side) else frozenset()


def compared(claim, configs: pd.DataFrame) -> tuple[bool, list[str]]:
    """Whether some group of some check compares configurations of different thread
    counts, and the thread counts such groups compare (as shown: '1', '2')."""
    counts: set[str] = set()
    for ch in claim.checks:
        check = ch.check
        if len(check.selections) < 2:
            continue
        sides = [select(configs, s) for s in check.selections]
        _, groups = grouped(check, sides)
        for _, parts in groups:
            sets = [_threads(p) for p in parts if len(p)]
            if len(set(sets)) > 1:
                counts |= set().union(*sets)
    return bool(counts), sorted(counts, key=_as_number)


def _as_number(v: str) -> float:
    try:
        return float(v)
    except ValueError:
        return math.inf


def applies(claim, configs: pd.DataFrame) -> tuple[bool, str, list[str]]:
    """(whether the guard applies, "claim file" or "derived", the thread counts compared)."""
    derived, counts = compared(claim, configs)
    if claim.compares_threads is not None:
        return claim.compares_threads, "claim file", counts
    return derived, "derived", counts


def _selected(claim, rows: pd.DataFrame) -> pd.DataFrame:
    """The rows some selection of the claim's checks matches."""
    idx = set()
    for ch in claim.checks:
        for s in ch.check.selections:
            idx |= set(select(rows, s).index)
    return rows.loc[sorted(idx)]


def _number(v) -> float | None:
    """A number of a row (None: absent, NaN or not a number)."""
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or math.isnan(v):
        return None
    return float(v)


def rounds_load(rows: pd.DataFrame) -> list[tuple[str, float | None, int]]:
    """Per round (round_key): its label, the mean of its runs' load readings and its runs;
    the runs without a round (back-to-back repetitions, plain runs) as one more unit, at
    the highest of their readings (each run must be under the threshold). None: a run
    without a reading."""
    def unit(label: str, part: pd.DataFrame, combine) -> tuple[str, float | None, int]:
        loads = [_number(v) for v in part["loadavg"]] if "loadavg" in part else [None]
        ok = loads and all(v is not None for v in loads)
        return label, combine(loads) if ok else None, len(part)

    keyed = rows["round_key"].notna() if "round_key" in rows else pd.Series(False, index=rows.index)
    out = []
    for k in dict.fromkeys(rows.loc[keyed, "round_key"]):
        part = rows[rows["round_key"] == k]
        out.append(unit(f"round {int(part['round'].iloc[0])}", part, lambda x: sum(x) / len(x)))
    if (~keyed).any():
        out.append(unit("runs without rounds", rows[~keyed], max))
    return out


def requirement(claim, rows: pd.DataFrame) -> dict | None:
    """The load requirement as a `requires` entry of the verdict record (None when the
    claim does not compare thread counts)."""
    rows = _selected(claim, rows) if not rows.empty else rows
    on, source, counts = applies(claim, rows)
    if not on or rows.empty:
        return None
    threads = [_number(v) for v in rows.get("threads", pd.Series(dtype=float))]
    top = int(max([t for t in threads if t is not None] or [1]))
    cpus = [_number(v) for v in rows.get("context_cpus_online", pd.Series(dtype=float))]
    cpus = [c for c in cpus if c is not None]
    c = int(min(cpus)) if cpus else None
    threshold = c / SHARE if c else None
    units = rounds_load(rows)
    groups, over, unread = [], [], []
    for label, value, n in units:
        if value is None:
            status = "fails"
            unread.append(label)
        else:
            status = "holds" if threshold is not None and top <= c and value <= threshold else "fails"
            if status == "fails":
                over.append((label, value))
        groups.append({"group": label, "n": [n], "mean": [value], "cv": [], "estimate": value,
                       "ci": None, "status": status, "note": None if value is not None else
                       "load average not recorded", "seed_value": None, "test": None})
    met = not over and not unread and threshold is not None and top <= c
    values = [v for _, v, _ in units if v is not None]
    span = (f"{min(values):.2f}" if min(values) == max(values) else
            f"{min(values):.2f} to {max(values):.2f}") if values else "not recorded"
    if c is None:
        why = "the records do not say how many CPUs the machine has (context.cpus_online)"
    elif top > c:
        why = f"{top} threads compared on {c} CPUs: no free CPUs for them whatever the load"
    elif unread:
        why = f"load average not recorded in {len(unread)} of {len(units)} rounds"
    elif over:
        worst = max(over, key=lambda x: x[1])
        why = (f"load average {worst[1]:.2f} ({worst[0]}) over {threshold:.2f} = {c} CPUs / "
               f"{SHARE:g}, in {len(over)} of {len(units)} rounds")
    else:
        why = (f"load average {span} over {len(units)} rounds, at most {threshold:.2f} = {c} CPUs "
               f"/ {SHARE:g}")
    return {
        "kind": "load", "what": f"{WHAT} ({', '.join(counts) or '?'} threads; {source})",
        "predicate": RULE, "seed_figure": None,
        "outcome": "reproduced" if met else "not reproduced",
        "summary": why, "needed": len(units), "groups_total": len(units), "level": None,
        "groups": groups, "skipped": [], "label": None, "label_applies": False, "tests": {},
        "looks": 1,
        "load": {"source": source, "threads": counts, "max_threads": top, "cpus": c,
                 "share": SHARE, "threshold": None if threshold is None else round(threshold, 3),
                 "rounds": len(units), "loaded": [[k, round(v, 2)] for k, v in over],
                 "unread": unread, "max": round(max(values), 2) if values else None},
    }


__all__ = ["SHARE", "applies", "compared", "requirement", "rounds_load"]
