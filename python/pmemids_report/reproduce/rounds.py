"""Rounds added until a claim is decided: the sequential design of `pmemids reproduce`.

A claim's sweeps run as randomized interleaved rounds (`pmemids sweep --interleave
--rounds N`: every configuration once per round, in a fresh random order each
round), and the claim is decided at fixed looks: after LOOKS rounds (3, 5, 8, 12,
20, ... up to --max-rounds, which is always the last look). After each look, when
every deciding check and every requirement is decided (reproduced or not
reproduced; met or not met) -- or a requirement is decided not met, which makes
the claim not measurable whatever its checks say -- it stops: `decided`. Otherwise
the next look's rounds are added, unless the budget would be spent first (at the
pace of the rounds run so far: `budget`), or the last look was reached
(`maximum`).

The budget: `--budget` given is a hard cap, as written. Without it, the scale's
default (BUDGETS) is scaled to the claim's round time: once a look has measured the
pace (seconds per round), the budget is BUDGET_SLACK x BUDGET_ROUNDS rounds at that
pace -- enough for the looks after 3, 5 and 8 rounds -- never below the scale's
default and never above its cap (BUDGET_CAPS). A fast claim keeps the default; a slow
one (seed 001's figure sweeps at the quick scale, about a minute a round) gets 8
rounds where the default bought 3. The budget decides only when to stop looking: the
looks and their levels are the design's (the schedule up to --max-rounds), whatever
the budget, so the error guarantee below does not depend on it.

The level: the design has K looks planned (those up to --max-rounds) and each is
decided at 5%/K, its groups Bonferroni-divided again (evaluate.py): whichever look
it stops at, the chance that any look made a wrong decision is at most 5%
(Bonferroni over looks x groups), however the stopping depends on the data. The
cost: each look's intervals are those of a 5%/K test (docs/reproduce.md says how
much wider).

A look after n rounds uses the records of rounds 0 .. n-1 only (the claim's sweeps
may hold more: another claim added them), so deciding the same records again
(`--from`) replays the same looks and gives the same verdict: the looks of the
design below the rounds the records hold, and a last one at what they hold (at
most --max-rounds).

Noise: a round whose calibration (the sweep's timed CPU loop before the round,
`round_calibration_s`) exceeds NOISY_FACTOR times the best of its sweep output is
noisy; the verdict lists the noisy rounds, and leaves them out of the decision only
when the claim file sets `drop_noisy_rounds = true`.

Records without rounds (back-to-back repetitions with --no-interleave, a claim with
`interleave = false`, plain runs, --from records of an older sweep) are decided
once, at 5%.
"""

from __future__ import annotations

import argparse
import re
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .. import load
from . import rows as rows_mod
from . import verdict as verdict_mod
from .claims import Claim

LOOKS = (3, 5, 8, 12, 20, 30, 50, 80, 120, 200)
BUDGETS = {"quick": 180.0, "default": 900.0, "paper": 7200.0}
BUDGET_CAPS = {"quick": 720.0, "default": 3600.0, "paper": 28800.0}
BUDGET_ROUNDS = 8     # a default budget is scaled to reach the look after this many rounds
BUDGET_SLACK = 1.25   # for the decisions between looks and a pace that drifts
MAX_ROUNDS = {"quick": 50, "default": 50, "paper": 30}
NOISY_FACTOR = 3.0
MIN_ROUNDS = 2


@dataclass(frozen=True)
class Design:
    looks: tuple[int, ...]    # rounds after which the claim is decided; the last is the maximum
    budget_s: float           # given: the hard cap; scaled: the scale's default, the floor
    interleave: bool = True   # False: --no-interleave (back-to-back repetitions, one decision)
    cap_s: float | None = None  # a default budget scaled to round time, up to this; None: given

    def budget(self, pace: float | None) -> float:
        """The budget that applies at `pace` seconds per round (None: not measured yet)."""
        if self.cap_s is None or pace is None:
            return self.budget_s
        return min(self.cap_s, max(self.budget_s, BUDGET_SLACK * BUDGET_ROUNDS * pace))

    def budget_json(self, pace: float | None) -> dict:
        """Which budget applied and its value: given (--budget), or the default scaled to
        the round time (from the scale's default, up to its cap)."""
        if self.cap_s is None:
            return {"from": "given", "s": self.budget_s}
        return {"from": "default scaled", "s": round(self.budget(pace), 1), "default_s": self.budget_s,
                "cap_s": self.cap_s, "rounds": BUDGET_ROUNDS, "slack": BUDGET_SLACK,
                "pace_s": None if pace is None else round(pace, 2)}

    def to_json(self, ran: int, stopped: str, done: list[int], pace: float | None = None) -> dict:
        # The level per look is the design's (its looks), whatever the budget.
        budget = self.budget_json(pace)
        return {"ran": ran, "stopped": stopped, "looks": done, "schedule": list(self.looks),
                "level_per_look": 0.05 / len(self.looks), "budget_s": budget["s"],
                "budget": budget, "max_rounds": self.looks[-1], "order": "random"}


def looks_up_to(max_rounds: int) -> tuple[int, ...]:
    return tuple(n for n in LOOKS if n < max_rounds) + (max_rounds,)


def parse_duration(text: str) -> float:
    """'90s', '3m', '1h30m', '45' (seconds) -> seconds."""
    m = re.fullmatch(r"\s*(?:(\d+(?:\.\d+)?)h)?\s*(?:(\d+(?:\.\d+)?)m)?\s*(?:(\d+(?:\.\d+)?)s?)?\s*", text)
    if not text.strip() or not m or not any(m.groups()):
        raise argparse.ArgumentTypeError(
            f"'{text}' is not a duration; accepted: e.g. 90s, 3m, 1h30m (a bare number is seconds)")
    h, mi, s = (float(g) if g else 0.0 for g in m.groups())
    return 3600 * h + 60 * mi + s


def _max_rounds(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < MIN_ROUNDS:
        raise argparse.ArgumentTypeError(f"'{text}'; accepted: a whole number >= {MIN_ROUNDS}")
    return n


def _per_scale(seconds: dict) -> str:
    """'quick 3m, default 15m, paper 2h'."""
    return ", ".join(f"{k} {verdict_mod.minutes(v)}" for k, v in seconds.items())


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--budget", type=parse_duration, metavar="DURATION",
                   help="per claim: add interleaved rounds until every check is decided or this "
                        f"is spent (e.g. 90s, 3m, 1h): a hard cap. Default: the scale's "
                        f"({_per_scale(BUDGETS)}) scaled to the claim's round time, "
                        f"{BUDGET_SLACK:g} x {BUDGET_ROUNDS} rounds at the pace measured, up to "
                        f"{_per_scale(BUDGET_CAPS)}; the budget decides when to stop looking, "
                        "never the level of a look")
    p.add_argument("--max-rounds", type=_max_rounds, metavar="N",
                   help="the last look: at most N rounds (default: quick and default 50, paper 30)")
    p.add_argument("--no-interleave", action="store_true",
                   help="run each configuration's repetitions back to back (the sweep's "
                        "--no-interleave) and decide once, with Welch's test (an --out of its "
                        "own: configurations recorded there in rounds are not run again)")


def design_of(args) -> Design:
    looks = looks_up_to(args.max_rounds or MAX_ROUNDS[args.scale])
    if args.budget is not None:
        return Design(looks, args.budget, not args.no_interleave)
    return Design(looks, BUDGETS[args.scale], not args.no_interleave, BUDGET_CAPS[args.scale])


# ------------------------------------------------------------------ records of a look


def load_rows(claim: Claim, files: list) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """The claim's run rows, skipped rows and the files that had records."""
    present = [str(f) for f in files if Path(f).exists() and Path(f).stat().st_size > 0]
    records = load.read_records(present) if present else []
    records = rows_mod.of_sweeps(records, [s.file for s in claim.sweeps])
    return rows_mod.run_rows(records, claim.metrics()), rows_mod.skipped_rows(records), present


def rounds_held(rows: pd.DataFrame) -> int:
    """The rounds the records hold (0: none is a round's)."""
    if rows.empty or "round_key" not in rows or not rows["round_key"].notna().any():
        return 0
    return int(rows.loc[rows["round_key"].notna(), "round"].max()) + 1


def rows_at(rows: pd.DataFrame, n: int) -> pd.DataFrame:
    """The rows a look after n rounds reads: rounds 0 .. n-1, and rows of no round."""
    if rows.empty or "round" not in rows:
        return rows
    return rows[rows["round"].isna() | (rows["round"] < n)]


def noise(rows: pd.DataFrame, drop: bool) -> tuple[pd.DataFrame, dict | None]:
    """The noisy rounds of `rows` (calibration over NOISY_FACTOR x the best of their
    sweep output) and the rows, without them when `drop`."""
    if rows.empty or "round_calibration_s" not in rows:
        return rows, None
    cal = rows[rows["round_key"].notna() & rows["round_calibration_s"].notna()]
    if cal.empty:
        return rows, None
    best = cal.groupby("file")["round_calibration_s"].transform("min")
    flagged = cal[cal["round_calibration_s"] > NOISY_FACTOR * best]
    noisy = sorted({(k, s) for k, s in zip(flagged["round_key"], flagged["round_calibration_s"])})
    info = {"rounds": int(cal["round_key"].nunique()), "best_s": float(cal["round_calibration_s"].min()),
            "factor": NOISY_FACTOR, "noisy": [[k, s] for k, s in noisy], "dropped": bool(drop and noisy)}
    if drop and noisy:
        rows = rows[~rows["round_key"].isin({k for k, _ in noisy})]
    return rows, info


def decide_at(claim: Claim, scale: str, loaded, n: int | None, looks: int) -> dict:
    """The verdict record of a look after n rounds (None: every record)."""
    rows, skipped, present = loaded
    if n is not None:
        rows = rows_at(rows, n)
    rows, info = noise(rows, claim.drop_noisy_rounds)
    record = verdict_mod.decide(claim, scale, rows, skipped, present, looks=looks)
    if info is not None:
        record["noise"] = info
    return record


def settled(record: dict) -> bool:
    """Whether more rounds cannot change the verdict's class: every deciding check and
    requirement decided, or a requirement decided not met."""
    if any(r["outcome"] == verdict_mod.NOT_REPRODUCED for r in record.get("requires", [])):
        return True
    open_checks = [c for c in record.get("checks", []) if not c.get("label_applies")]
    return not any(x["outcome"] == verdict_mod.NOISE for x in open_checks + record.get("requires", []))


def _finish(record: dict, design: Design, ran: int, stopped: str, done: list[int],
            pace: float | None = None) -> dict:
    record["rounds"] = design.to_json(ran, stopped, done, pace)
    record["display"] = verdict_mod.display(record)
    return record


# ------------------------------------------------------------------ deciding a claim


def decide_claim(claim: Claim, scale: str, design: Design, runner, sources: list[str] | None) -> dict:
    """The claim's verdict: from `sources` (replaying the looks), back to back, or in
    rounds added until decided."""
    if sources is not None:
        return replay(claim, scale, design, load_rows(claim, sources))
    if not design.interleave:
        files = runner.run(claim, ("--no-interleave",))
    elif not claim.interleave:
        files = runner.run(claim, ())
    else:
        return in_rounds(claim, scale, design, runner)
    return decide_at(claim, scale, load_rows(claim, files), None, 1)


def replay(claim: Claim, scale: str, design: Design, loaded) -> dict:
    """The looks of the design over records already made: those below the rounds held
    and one at the rounds held (at most the maximum); one decision without rounds."""
    held = rounds_held(loaded[0])
    if held == 0:
        return decide_at(claim, scale, loaded, None, 1)
    last = min(held, design.looks[-1])
    looks = [n for n in design.looks if n < last] + [last]
    done: list[int] = []
    for n in looks:
        done.append(n)
        record = decide_at(claim, scale, loaded, n, len(design.looks))
        if settled(record):
            return _finish(record, design, n, "decided", done)
    return _finish(record, design, last, "maximum" if last == design.looks[-1] else "records", done)


def in_rounds(claim: Claim, scale: str, design: Design, runner, clock=time.monotonic) -> dict:
    """Runs the claim's sweeps to each look's rounds and decides, until decided, out of
    budget (design.budget at the pace of the last rounds run) or at the maximum."""
    start, pace, prev, done = clock(), None, 0, []
    record = None
    for n in design.looks:
        if record is not None:
            spent, budget = clock() - start, design.budget(pace)
            if spent >= budget or (pace is not None and spent + pace * (n - prev) > budget):
                return _finish(record, design, prev, "budget", done, pace)
        t = clock()
        files = runner.run(claim, ("--interleave", "--rounds", str(n)))
        took = clock() - t
        if took > 1.0:  # rounds ran (an extension already recorded takes well under a second)
            pace = took / (n - prev)
        record = decide_at(claim, scale, load_rows(claim, files), n, len(design.looks))
        done.append(n)
        if settled(record):
            return _finish(record, design, n, "decided", done, pace)
        prev = n
    return _finish(record, design, prev, "maximum", done, pace)


__all__ = ["Design", "LOOKS", "add_arguments", "decide_claim", "design_of", "looks_up_to",
           "parse_duration", "settled"]
