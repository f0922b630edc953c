"""Deciding a check over records, with a test over the repetitions.

Rows are the report's run rows (stats.runs: one per repetition, the configuration's
identity in columns, including the context's hostname, pmem and git_revision) with the
checked metric added. For a check:

1. select(...) keeps the rows whose fields match (a number matches numerically, a
   workload by file name, `none` an absent field); by=[...] splits them into groups.
   A by-key a selection pins to one value matches every group for that selection
   (ratio(select(threads=2|4), select(threads=1), by=[threads]): each count vs one).
2. Records of different hosts, builds (git revision) or PMEM kinds are never pooled: a
   group is split per such context all its selections have ("ds=btree (on alpha)");
   when they share none (shards run on different machines, a sweep resumed after a
   rebuild), it compares across them, each selection keeping its most recent context,
   and says so. Then each selection must hold one configuration; any other ambiguity
   is an EvaluationError naming the fields that differ.
3. Per group, a two-sided confidence interval of the statistic over the repetitions:
     ratio     Welch's t interval of mean(log A) - mean(log B), exponentiated: the ratio
               of geometric means (values must be > 0)
     contrast  (A/B)/(C/D): the same for mean(log A) - mean(log B) - mean(log C) +
               mean(log D), Satterthwaite's degrees of freedom
     diff      Welch's t interval of mean(A) - mean(B)
     value     Student's t interval of mean(A)
   Paired: when the selections ran in the same rounds of an interleaved sweep (rows
   with the same `round_key`: one session's round; one record per selection each) in
   at least MIN_PAIRED_ROUNDS rounds, ratio, contrast and diff are computed per round
   and their interval taken over the rounds (paired.py: paired t, or Wilcoxon
   signed-rank with the Hodges-Lehmann interval when the per-round values are far
   from normal); records without a partner in their round are left out (the group's
   note counts them). Otherwise (back-to-back repetitions, records of a plain run,
   rounds of different sessions) Welch's. Each group says which test made it.
   The level is family-wise 95%: each group's interval at 1 - 0.05/(k m), m = the
   groups of the check with an interval, k = the looks of a sequential design
   (rounds.py; 1 without one): Bonferroni over both. An `equivalent` test is two
   one-sided tests at 0.05/(k m) each (TOST), whose decision is the interval at
   1 - 2 x 0.05/(k m). Each selection needs at least MIN_REPETITIONS values; one
   without spread (every repetition equal, e.g. a deterministic counter) adds no
   width.
   Own time: a rate (ops_per_sec, gib_per_sec; ns_per_op, its inverse) of a group
   whose records all ran one thread and read their run-queue wait (rows.py's
   own_time_fraction) is decided on the run's own time: the rate over the timed phase
   minus the time the worker spent runnable without a CPU, i.e. the time other work
   took from it (docs/reproduce.md, "Own time"). One thread that never waits for a CPU
   has all of its window (fraction 1: the same rate); on a loaded machine the other
   work's share is not charged to the configuration that happened to run beside it.
   Several threads (whose waits overlap each other's and the window's) and records
   without the reading are decided on the wall clock. Each group says which.
4. A group holds when its whole interval passes the test, fails when none of it does,
   and is within noise otherwise (`outside A..B` passes outside the range: it holds
   when the interval lies wholly on one side of it, fails when wholly inside). The check is reproduced when at least `needed` groups
   hold (the quantifier), not reproduced when so many fail that `needed` cannot be
   reached, and within noise otherwise. With no group measured, or fewer groups than
   the quantifier needs, the check has no data (its `reason` says why).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from . import paired, tdist
from .predicate import RANGE_TESTS, Check, Selection

ALPHA = 0.05
MIN_REPETITIONS = 2
MIN_PAIRED_ROUNDS = 3
HOLDS, FAILS, NOISE, MISSING = "holds", "fails", "within noise", "no data"
TEST_TEXT = ("Welch's t interval per group (ratio, contrast: of log values, i.e. of geometric "
             "means; value: Student's t), family-wise 95% (Bonferroni over the check's groups; "
             "an equivalence margin by two one-sided tests, TOST); a group holds when its whole "
             "interval passes, fails when none of it does")
# Each function is a linear combination of the selections' means, of their logarithms
# for the ratios.
COEFFICIENTS = {"ratio": (1, -1), "contrast": (1, -1, -1, 1), "diff": (1, -1), "value": (1,)}
LOGARITHMIC = ("ratio", "contrast")
PAIRABLE = ("ratio", "contrast", "diff")
# The rates decided on a one-thread run's own time, each with the power of its own-time
# fraction that converts it: a rate per second divides by the fraction, a time per
# operation multiplies by it.
OWN_TIME_POWER = {"ops_per_sec": -1, "gib_per_sec": -1, "ns_per_op": 1}
WALL_CLOCK, OWN_TIME = "wall clock", "own time"
STATUS_WORDS = {HOLDS: "hold", FAILS: "fail", NOISE: "within noise", MISSING: "no data"}


class EvaluationError(ValueError):
    """The records cannot decide the check as written (an ambiguous selection)."""


@dataclass
class Group:
    label: str                      # "ds=btree, mode=pmem-trans", or "all" without by
    key: str                        # the by-values joined by "/", for seed_values
    n: tuple[int, ...] = ()         # repetitions per selection
    mean: tuple[float, ...] = ()
    cv: tuple[float | None, ...] = ()
    estimate: float | None = None
    ci: tuple[float, float] | None = None
    status: str = MISSING
    note: str = ""                  # why no data / noise; "across hosts a, b"
    seed_value: float | None = None
    test: str | None = None         # the test that made the interval (paired.py's names)
    basis: str | None = None        # a rate's time: WALL_CLOCK or OWN_TIME; None: not a rate

    def to_json(self) -> dict:
        return {"group": self.label, "n": list(self.n), "mean": list(self.mean),
                "cv": list(self.cv), "estimate": self.estimate,
                "ci": list(self.ci) if self.ci else None, "status": self.status,
                "note": self.note or None, "seed_value": self.seed_value, "test": self.test,
                "basis": self.basis}


@dataclass
class CheckResult:
    outcome: str                    # "reproduced" | "not reproduced" | "within noise" | "no data"
    groups: list[Group] = field(default_factory=list)
    needed: int = 0
    level: float | None = None      # the per-group confidence level used
    skipped: list[str] = field(default_factory=list)  # reasons of skipped configurations selected
    reason: str = ""                # why there is no data
    looks: int = 1                  # the looks of the sequential design the level is divided over

    def tests(self) -> dict[str, int]:
        """Groups per test: {'paired t': 5, 'Welch': 2}."""
        out: dict[str, int] = {}
        for g in self.groups:
            if g.test:
                out[g.test] = out.get(g.test, 0) + 1
        return out

    def on_own_time(self) -> int:
        """The groups decided on their runs' own time."""
        return sum(1 for g in self.groups if g.basis == OWN_TIME)

    def count(self, status: str) -> int:
        return sum(1 for g in self.groups if g.status == status)

    def tally(self) -> str:
        """'1 of 3 groups fail', '3 of 3 groups hold', '2 of 3 groups within noise'."""
        status = {"reproduced": HOLDS, "not reproduced": FAILS}.get(self.outcome, NOISE)
        n = len(self.groups)
        return f"{self.count(status)} of {n} group{'s' if n != 1 else ''} {STATUS_WORDS[status]}"

    def magnitude(self, seed_range: tuple[float, float], function: str) -> dict:
        """Whether our magnitude meets the seed's range, with the same intervals: a group
        meets it when its interval overlaps [lo, hi] (a group without an interval: its
        estimate inside); the magnitude is within when at least as many groups meet it
        as the check's quantifier needs, outside otherwise."""
        lo, hi = seed_range
        est = [g.estimate for g in self.groups if g.estimate is not None]
        meets = sum(1 for g in self.groups if g.estimate is not None and (
            not (g.ci[1] < lo or g.ci[0] > hi) if g.ci else lo <= g.estimate <= hi))
        fmt = (lambda v: f"{v:.3g}x") if function in LOGARITHMIC else (lambda v: f"{v:.4g}")
        span = "-" if not est else fmt(min(est)) if fmt(min(est)) == fmt(max(est)) else \
            f"{fmt(min(est))} to {fmt(max(est))}"
        seed = fmt(lo) if lo == hi else f"{fmt(lo).rstrip('x')}-{fmt(hi)}"
        within = bool(est) and meets >= max(1, self.needed)
        text = f"magnitude {span} vs the seed's {seed}: {'within' if within else 'outside'}"
        if len(self.groups) > 1:
            text += f" ({meets} of {len(self.groups)} groups' intervals meet it, needs {max(1, self.needed)})"
        return {"seed_range": [lo, hi], "ours": span, "meets": meets, "within": within, "text": text}

    def summary(self, function: str) -> str:
        """'1.02x-1.31x over 7 groups: 5 hold, 2 within noise (needs 5)'."""
        est = [g.estimate for g in self.groups if g.estimate is not None]
        if not est:
            return "no data"
        fmt = (lambda v: f"{v:.3g}x") if function in LOGARITHMIC else (lambda v: f"{v:.4g}")
        lo, hi = fmt(min(est)), fmt(max(est))
        span = lo if lo == hi else f"{lo} to {hi}"
        counts = ", ".join(f"{self.count(s)} {w}" for s, w in STATUS_WORDS.items() if self.count(s))
        plural = "s" if len(self.groups) != 1 else ""
        return f"{span} over {len(self.groups)} group{plural}: {counts} (needs {self.needed})"


def matches(value, word: str, key: str) -> bool:
    """Whether a record's field value matches a word of a select term."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return word == "none"
    if isinstance(value, bool):
        return word == ("true" if value else "false")
    if isinstance(value, int | float):
        try:
            return float(word) == float(value)
        except ValueError:
            return False
    text = str(value)
    if text == word:
        return True
    return key == "workload" and text == word.rsplit("/", 1)[-1]


def select(rows: pd.DataFrame, sel: Selection) -> pd.DataFrame:
    mask = pd.Series(True, index=rows.index)
    for key, words in sel.terms:
        if key not in rows:
            return rows.iloc[0:0]
        mask &= rows[key].map(lambda v, k=key: any(matches(v, w, k) for w in words))
    return rows[mask]


def _label(keys: tuple[str, ...], values: tuple) -> tuple[str, str]:
    if not keys:
        return "all", "all"
    return (", ".join(f"{k}={v}" for k, v in zip(keys, values)), "/".join(values))


def _show(v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "none"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def key_of(rows: pd.DataFrame, key: str) -> pd.Series:
    """Each row's value of `key` as a grouping label ("none" where the rows lack it)."""
    return rows[key].map(_show) if key in rows else pd.Series("none", index=rows.index)


def grouped(check: Check, sides: list[pd.DataFrame]) -> tuple[tuple[str, ...], list[tuple[tuple, list]]]:
    """The grouping keys and, per group, its key values and each selection's rows.

    A by-key that a selection pins to one value (select(threads=1)) is a wildcard for
    that selection: ratio(select(threads=2|4), select(threads=1), by=[threads]) compares
    each thread count with one thread. A key every selection pins is not a grouping key."""
    pins = [{k for k, words in sel.terms if k in check.by and len(words) == 1} for sel in check.selections]
    free = tuple(k for k in check.by if not all(k in p for p in pins))
    full = [i for i, p in enumerate(pins) if not p & set(free)]
    if free and not full:
        raise EvaluationError(f"by=[{', '.join(check.by)}]: every selection pins one of "
                              f"{', '.join(free)}; at least one must leave them free")
    cols = [{k: key_of(side, k) for k in free} for side in sides]
    keys = list(dict.fromkeys(
        tuple(cols[i][k].loc[j] for k in free) for i in full for j in _in_sweep_order(sides[i])))
    out = []
    for key in keys:
        parts = []
        for i, side in enumerate(sides):
            mask = pd.Series(True, index=side.index)
            for k, v in zip(free, key):
                if k not in pins[i]:
                    mask &= cols[i][k] == v
            parts.append(side[mask])
        out.append((key, parts))
    return free, out


def _in_sweep_order(side: pd.DataFrame) -> pd.Index:
    if "sweep_index" not in side.columns:
        return side.index
    return side.sort_values("sweep_index", kind="stable").index


def _one_configuration(rows: pd.DataFrame, sel: Selection, label: str) -> None:
    ids = rows["config_id"].unique()
    if len(ids) <= 1:
        return
    configs = [rows[rows["config_id"] == i].iloc[0]["config"] for i in ids]
    keys = sorted({k for c in configs for k in c if len({_show(x.get(k)) for x in configs}) > 1})
    raise EvaluationError(
        f"{sel.text()} holds {len(ids)} configurations in group '{label}' that differ in "
        f"{', '.join(keys)}; add them to select(...) or by=[...]")


CONTEXT_KEYS = ("hostname", "git_revision", "pmem")
CONTEXT_WORDS = {"hostname": "on {}", "git_revision": "git {}", "pmem": "{} PMEM"}
CONTEXT_PLURALS = {"hostname": "hosts", "git_revision": "builds", "pmem": "PMEM kinds"}


def _context(rows: pd.DataFrame) -> pd.Series:
    return rows.apply(lambda r: tuple(_show(r.get(k)) for k in CONTEXT_KEYS), axis=1) \
        if len(rows) else pd.Series([], dtype=object)


def _context_text(contexts: list[tuple], which: tuple) -> str:
    """The parts of `which` that differ among `contexts`: "on alpha", "git 1a2b3c"."""
    varying = [i for i in range(len(CONTEXT_KEYS)) if len({c[i] for c in contexts}) > 1]
    return ", ".join(CONTEXT_WORDS[CONTEXT_KEYS[i]].format(which[i]) for i in varying)


def _split_context(sides: list[pd.DataFrame]) -> list[tuple[str, str, list[pd.DataFrame]]]:
    """(label suffix, note, sides): records of different hosts, builds or PMEM kinds are
    never pooled. One part per context every side has; when they share none, one part
    across contexts, each side keeping its most recent context (by record timestamp)."""
    ctx = [_context(s) for s in sides]
    sets = [set(c) for c in ctx]
    everything = sorted(set.union(*sets))
    if len(everything) == 1:
        return [("", "", sides)]
    common = sorted(set.intersection(*sets))
    if common:
        return [(_context_text(everything, c), "", [s[k == c] for s, k in zip(sides, ctx)])
                for c in common]
    kept = []
    for s, k in zip(sides, ctx):
        latest = max(set(k), key=lambda c: s[k == c]["timestamp"].max() if "timestamp" in s else "")
        kept.append(s[k == latest])
    used = [_context(s).iloc[0] for s in kept]
    note = "across " + "; ".join(
        f"{CONTEXT_PLURALS[k]} {', '.join(c[i] for c in used)}" for i, k in enumerate(CONTEXT_KEYS)
        if len({c[i] for c in used}) > 1)
    return [("", note, kept)]


def _values(rows: pd.DataFrame, metric: str) -> list[float]:
    return [float(v) for v in rows[metric] if v is not None and not (isinstance(v, float) and math.isnan(v))]


def _mean_sd(x: list[float]) -> tuple[float, float]:
    m = sum(x) / len(x)
    return m, math.sqrt(sum((v - m) ** 2 for v in x) / (len(x) - 1))


def _cv(x: list[float]) -> float | None:
    if len(x) < 2:
        return None
    m, sd = _mean_sd(x)
    return sd / m if m > 0 else None


def _interval(function: str, xs: list[list[float]], level: float) -> tuple[float, tuple[float, float]]:
    """The estimate and its two-sided interval at `level`: Welch's t for a linear
    combination of means (Satterthwaite's degrees of freedom), on logs for ratios."""
    if function in LOGARITHMIC:
        xs = [[math.log(v) for v in x] for x in xs]
    est, var, df_den = 0.0, 0.0, 0.0
    for c, x in zip(COEFFICIENTS[function], xs):
        m, sd = _mean_sd(x)
        v = sd * sd / len(x)
        est += c * m
        var += v
        df_den += v * v / (len(x) - 1)
    se = math.sqrt(var)
    half = tdist.quantile(1 - (1 - level) / 2, var * var / df_den) * se if se > 0 else 0.0
    lo, hi = est - half, est + half
    if function in LOGARITHMIC:
        return math.exp(est), (math.exp(lo), math.exp(hi))
    return est, (lo, hi)


def _point(function: str, xs: list[list[float]]) -> float:
    means = [sum(x) / len(x) for x in xs]
    if function in LOGARITHMIC:
        return math.exp(sum(c * math.log(m) for c, m in zip(COEFFICIENTS[function], means)))
    return sum(c * m for c, m in zip(COEFFICIENTS[function], means))


def _status(test, ci: tuple[float, float]) -> str:
    lo, hi = ci
    inside = test.low <= lo and hi <= test.high if test.op in RANGE_TESTS else False
    apart = hi < test.low or lo > test.high if test.op in RANGE_TESTS else False
    if test.op in ("within", "equivalent"):
        return HOLDS if inside else FAILS if apart else NOISE
    if test.op == "outside":
        return HOLDS if apart else FAILS if inside else NOISE
    c = test.low
    passes = {"<": lambda v: v < c, "<=": lambda v: v <= c, ">": lambda v: v > c, ">=": lambda v: v >= c}[test.op]
    if passes(lo) and passes(hi):
        return HOLDS
    return FAILS if not passes(lo) and not passes(hi) else NOISE


def evaluate(check: Check, rows: pd.DataFrame, seed_values: dict | None = None,
             skipped: pd.DataFrame | None = None, looks: int = 1) -> CheckResult:
    """Decides `check` over run rows (with the check's metric as a column). `skipped`:
    configurations recorded as skipped (config fields and `reason`), for the reasons
    of groups without data. `looks`: the looks of the sequential design the level is
    divided over (rounds.py)."""
    seed_values = seed_values or {}
    if check.metric not in rows:
        rows = rows.assign(**{check.metric: math.nan})
    sides = [select(rows, s) for s in check.selections]
    free, parts_by_key = grouped(check, sides)
    skip_reasons = _skip_reasons(check, skipped)

    pending: list[tuple[Group, list[list[float]], list[float] | None]] = []
    groups: list[Group] = []
    for key, parts in parts_by_key:
        label, seed_key = _label(free, key)
        if any(p.empty for p in parts):
            missing = [check.selections[i].text() for i, p in enumerate(parts) if p.empty]
            groups.append(Group(label, seed_key, note="no records for " + " and ".join(missing),
                                seed_value=seed_values.get(seed_key)))
            continue
        for suffix, note, ctx_parts in _split_context(parts):
            glabel = f"{label} ({suffix})" if suffix else label
            for sel, part in zip(check.selections, ctx_parts):
                _one_configuration(part, sel, glabel)
            ctx_parts, basis = on_own_time(check.metric, ctx_parts)
            xs = [_values(p, check.metric) for p in ctx_parts]
            g = Group(glabel, seed_key, n=tuple(len(x) for x in xs),
                      mean=tuple(sum(x) / len(x) if x else math.nan for x in xs),
                      cv=tuple(_cv(x) for x in xs), note=note, seed_value=seed_values.get(seed_key),
                      basis=basis)
            groups.append(g)
            if any(not x for x in xs):
                g.note = f"{check.metric} not observed"
            elif check.function in LOGARITHMIC and any(v <= 0 for x in xs for v in x):
                g.note = f"{check.metric} <= 0: no ratio"
            elif any(len(x) < MIN_REPETITIONS for x in xs):
                g.status, g.note = NOISE, f"fewer than {MIN_REPETITIONS} repetitions: no spread"
                g.estimate = _point(check.function, xs)
            else:
                rounds = _paired(check, ctx_parts) if check.function in PAIRABLE else None
                if rounds is not None:
                    d, left_out = rounds
                    g.n = (len(d),) * len(xs)
                    if left_out:
                        g.note = (f"{left_out} record{'s' if left_out != 1 else ''} without a "
                                  "partner in their round left out")
                pending.append((g, xs, rounds[0] if rounds else None))

    level = level_for(check.test.op, len(pending), looks) if pending else None
    for g, xs, d in pending:
        g.estimate, g.ci, g.test, g.status = decide_group(check.function, check.test, xs, d, level)

    result = CheckResult("no data", groups, check.quantifier.needed(len(groups)), level, skip_reasons,
                         looks=looks)
    if not groups or all(g.status == MISSING for g in groups):
        result.reason = "; ".join(skip_reasons) or "no records for " + " and ".join(
            s.text() for s in check.selections)
        return result
    if result.needed > len(groups):
        result.reason = f"{len(groups)} groups measured, the claim needs {result.needed}"
        return result
    result.outcome = outcome_of([g.status for g in groups], result.needed)
    return result


def on_own_time(metric: str, parts: list[pd.DataFrame]) -> tuple[list[pd.DataFrame], str | None]:
    """The selections' rows with a rate on their runs' own time, and the basis: OWN_TIME
    when every row has an own_time_fraction (one thread, run-queue wait read),
    WALL_CLOCK for a rate otherwise, None for a metric that is not a rate."""
    power = OWN_TIME_POWER.get(metric)
    if power is None:
        return parts, None
    if any("own_time_fraction" not in p or p["own_time_fraction"].isna().any() for p in parts):
        return parts, WALL_CLOCK
    return [p.assign(**{metric: p[metric] * p["own_time_fraction"] ** power}) for p in parts], OWN_TIME


def level_for(op: str, groups: int, looks: int = 1) -> float:
    """Each group's two-sided confidence level: Bonferroni over the groups and the looks;
    TOST's two one-sided tests at that rate each."""
    return 1 - (2 if op == "equivalent" else 1) * ALPHA / (looks * groups)


def decide_group(function: str, test, xs: list[list[float]], d: list[float] | None,
                 level: float) -> tuple[float, tuple[float, float], str, str]:
    """A group's estimate, interval, the test that made it and its status: over the
    per-round values `d` when paired, else over the selections' values `xs`."""
    if d is not None:
        est, ci, name = paired.interval(d, level)
        if function in LOGARITHMIC:
            est, ci = math.exp(est), (math.exp(ci[0]), math.exp(ci[1]))
    else:
        est, ci = _interval(function, xs, level)
        name = paired.STUDENT if function == "value" else paired.WELCH
    return est, ci, name, _status(test, ci)


def outcome_of(statuses: list[str], needed: int) -> str:
    """Reproduced when at least `needed` groups hold, not reproduced when so many fail
    that `needed` cannot be reached, within noise otherwise."""
    if statuses.count(HOLDS) >= needed:
        return "reproduced"
    if statuses.count(FAILS) > len(statuses) - needed:
        return "not reproduced"
    return "within noise"


def _paired(check: Check, parts: list[pd.DataFrame]) -> tuple[list[float], int] | None:
    """The per-round statistic over the rounds every selection ran in (one record each),
    and the count of records left out for want of a partner; None when fewer than
    MIN_PAIRED_ROUNDS rounds pair (or a selection has several records in one round)."""
    if any("round_key" not in p for p in parts):
        return None
    per_round = []
    for p in parts:
        keyed = p[p["round_key"].notna()]
        if keyed["round_key"].duplicated().any():
            return None
        per_round.append({k: v for k, v in zip(keyed["round_key"], keyed[check.metric])
                          if v is not None and not (isinstance(v, float) and math.isnan(v))})
    common = sorted(set.intersection(*(set(r) for r in per_round)))
    if len(common) < MIN_PAIRED_ROUNDS:
        return None
    f = math.log if check.function in LOGARITHMIC else float
    d = [sum(c * f(r[k]) for c, r in zip(COEFFICIENTS[check.function], per_round)) for k in common]
    used = len(common) * len(parts)
    return d, sum(len(_values(p, check.metric)) for p in parts) - used


def test_text(results: list[CheckResult], looks: int) -> str:
    """The tests behind a verdict, as its `test` line: which decided how many groups,
    and the level."""
    counts: dict[str, int] = {}
    for r in results:
        for t, n in r.tests().items():
            counts[t] = counts.get(t, 0) + n
    own = sum(r.on_own_time() for r in results)
    basis = "" if not own else (
        f"; rates of one-thread runs on their own time ({own} group{'s' if own != 1 else ''}: "
        "per second of the timed phase less the worker's run-queue wait)")
    if set(counts) <= {paired.WELCH, paired.STUDENT} and looks == 1:
        return TEST_TEXT + basis
    used = ", ".join(f"{t} ({n} group{'s' if n != 1 else ''})" for t, n in counts.items()) or "none"
    over = "the check's groups" if looks == 1 else \
        f"the check's groups and the sequential design's {looks} looks"
    return (f"per group: {used}; paired: per round over the rounds the selections ran in together "
            "(ratio, contrast: of log values), Wilcoxon signed-rank with the Hodges-Lehmann interval "
            "when the per-round values are far from normal; Welch's t otherwise; family-wise 95% "
            f"(Bonferroni over {over}; an equivalence margin by two one-sided tests, TOST); a group "
            "holds when its whole interval passes, fails when none of it does" + basis)


def _skip_reasons(check: Check, skipped: pd.DataFrame | None) -> list[str]:
    if skipped is None or skipped.empty:
        return []
    reasons: list[str] = []
    for sel in check.selections:
        for r in select(skipped, sel)["reason"]:
            if r not in reasons:
                reasons.append(r)
    return reasons
