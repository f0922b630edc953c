"""Rounds (issue 26) without the binary: paired comparisons over the rounds of an
interleaved sweep where load drifts between rounds, Welch's test for records that do
not pair, the exact Wilcoxon signed-rank distribution and the Hodges-Lehmann interval,
noisy rounds kept or dropped, the looks of the sequential design (replayed over
records; rounds added by a runner until decided, out of budget or at the maximum), and
a seeded simulation of null claims under the sequential rule."""

from __future__ import annotations

import copy
import json
import math
import random

import pytest

from pmemids_report.reproduce import claims, evaluate, paired, predicate, rounds, verdict
from test_reproduce_engine import claim_file, frame, record

BELOW = ("ratio(select(mode=pmem-trans), select(mode=pmem-persist), metric=ops_per_sec, "
         "by=[ds]) < 1 for all")
CLAIM = f'[[sweep]]\nfile = "sweeps/s.toml"\n[[check]]\nwhat = "trans below persist"\npredicate = "{BELOW}"\n'
PAIRED = {paired.PAIRED_T, paired.WILCOXON}
DESIGN = rounds.Design(rounds.looks_up_to(20), budget_s=3600)


def in_round(r: dict, k: int, session: str = "s1", calibration: float = 0.02) -> dict:
    """`r` as round k of an interleaved sweep's session."""
    r = copy.deepcopy(r)
    r["sweep"] = {"file": "sweeps/s.toml", "scale": "quick", "config_id": r["config"]["mode"],
                  "index": 0, "total": 4, "record": 0, "records": 1, "repetition": k,
                  "repetitions": 20, "round": k, "position": 0, "session": session,
                  "order": "random", "order_seed": 1, "round_calibration_s": calibration}
    return r


def drifting(n: int, ratio: float, noise: float = 0.01, drift: float = 0.5, seed: int = 0,
             first: int = 0) -> list[dict]:
    """Rounds first .. first+n-1 of pmem-persist (1e6 ops/s) and pmem-trans (`ratio` of it)
    for two structures, each round's load (a factor of sd `drift` in log) shared by all."""
    rng = random.Random(seed)
    out = []
    for k in range(first, first + n):
        load = math.exp(rng.gauss(0, drift))
        for ds in ("btree", "rbtree"):
            for mode, base in (("pmem-persist", 1e6), ("pmem-trans", ratio * 1e6)):
                out.append(in_round(record(ds, mode, base * load * math.exp(rng.gauss(0, noise)), rep=k), k))
    return out


def check_of(tmp_path, recs, text=BELOW, looks=1):
    df, _ = frame(tmp_path, recs)
    return evaluate.evaluate(predicate.parse(text), df, looks=looks)


def unpaired(recs: list[dict]) -> list[dict]:
    out = copy.deepcopy(recs)
    for r in out:
        del r["sweep"]
    return out


# ------------------------------------------------------------------ paired comparisons


def test_pairing_by_round_cancels_load_that_drifts_between_rounds(tmp_path):
    recs = drifting(8, ratio=0.85)
    res = check_of(tmp_path, recs)
    assert res.outcome == "reproduced"
    assert {g.test for g in res.groups} <= PAIRED
    assert all(g.n == (8, 8) and g.estimate == pytest.approx(0.85, rel=0.02) for g in res.groups)
    # The same values as back-to-back repetitions: the rounds' load is noise to Welch's test.
    res = check_of(tmp_path, unpaired(recs))
    assert res.outcome == "within noise"
    assert [g.test for g in res.groups] == ["Welch"] * 2


def test_equal_configurations_under_drift_are_not_called_different(tmp_path):
    recs = drifting(12, ratio=1.0, seed=3)
    for text in (BELOW, BELOW.replace("< 1", "> 1")):
        res = check_of(tmp_path, recs, text)
        assert res.outcome == "within noise" and {g.test for g in res.groups} <= PAIRED


def test_records_without_a_partner_are_left_out_and_too_few_pairs_fall_back_to_welch(tmp_path):
    recs = drifting(6, ratio=0.85)
    lone = [r for r in recs if not (r["sweep"]["round"] == 2 and r["config"]["mode"] == "pmem-trans")]
    res = check_of(tmp_path, lone)
    assert [g.test for g in res.groups] == ["paired t"] * 2
    assert res.groups[0].n == (5, 5) and res.groups[0].note == (
        "1 record without a partner in their round left out")
    # Rounds of different sessions (another claim's invocation ran one side) do not pair.
    other = [in_round(r, r["sweep"]["round"], session="s2") if r["config"]["mode"] == "pmem-trans" else r
             for r in recs]
    assert [g.test for g in check_of(tmp_path, other).groups] == ["Welch"] * 2
    # Two pairs are too few.
    assert [g.test for g in check_of(tmp_path, drifting(2, ratio=0.85)).groups] == ["Welch"] * 2


def test_value_checks_and_unpaired_records_keep_their_tests(tmp_path):
    res = check_of(tmp_path, drifting(4, ratio=0.85),
                   "value(select(mode=pmem-trans), metric=ops_per_sec, by=[ds]) > 1")
    assert [g.test for g in res.groups] == ["Student t"] * 2


# ------------------------------------------------------------------ the rank test


def test_signed_rank_distribution_is_exact():
    cdf = paired.signed_rank_cdf(5)
    assert [round(c * 32) for c in cdf[:4]] == [1, 2, 3, 5] and cdf[-1] == 1.0
    assert len(cdf) == 16
    ten = paired.signed_rank_cdf(10)  # the tables' two-sided 5% critical value for n = 10 is 8
    assert ten[8] == pytest.approx(0.0244, abs=1e-4) and ten[9] == pytest.approx(0.0322, abs=1e-4)


def test_hodges_lehmann_interval():
    est, ci = paired.hodges_lehmann([1, 2, 3, 4, 5, 6], 0.95)
    assert est == 3.5 and ci == (1, 6)  # n = 6: P(T+ = 0) = 1/64 <= 2.5%, P(T+ <= 1) = 2/64 is not
    d = [0.1, -0.2, 0.3, 0.05, 0.15, 0.0, 0.25, -0.05, 0.2, 0.12]
    walsh = sorted((d[i] + d[j]) / 2 for i in range(10) for j in range(i, 10))
    assert paired.hodges_lehmann(d, 0.95)[1] == (walsh[8], walsh[55 - 9])
    assert paired.hodges_lehmann([1, 2, 3, 4, 5], 0.95)[1] == (-math.inf, math.inf)


def test_far_from_normal_rounds_use_the_rank_test_when_it_can_decide():
    spike = [0.01, -0.01, 0.02, 0.0, -0.02, 0.01, 0.6]
    assert paired.far_from_normal(spike) and not paired.far_from_normal([0.01, -0.01, 0.02, 0.0, -0.02])
    assert paired.interval(spike, 0.95)[2] == paired.WILCOXON
    assert paired.interval(spike[:4] + [0.6], 0.95)[2] == paired.PAIRED_T  # 5 values: 2/32 > 5%
    assert paired.interval(spike, 0.999)[2] == paired.PAIRED_T            # 2/128 > 0.1%
    # The outlier moves the mean and widens the t interval; not the rank interval.
    est, ci, _ = paired.interval(spike, 0.95)
    assert est == pytest.approx(0.01, abs=0.006) and ci[1] < 0.31


# ------------------------------------------------------------------ verdicts, noise and looks


def decide(tmp_path, recs, body=CLAIM, design=DESIGN):
    c = claims.load(claim_file(tmp_path, body))
    return rounds.replay(c, "quick", design, frame(tmp_path, recs, metrics=tuple(c.metrics())) + ([],))


def test_verdict_says_which_test_decided_and_how_many_rounds_ran(tmp_path):
    v = decide(tmp_path, drifting(8, ratio=0.5, noise=0.02))
    assert v["class"] == "reproduced" and v["checks"][0]["tests"] == {"paired t": 2}
    assert v["rounds"]["stopped"] == "decided" and v["rounds"]["ran"] in (3, 5, 8)
    assert v["display"] == f"reproduced [{v['rounds']['ran']} rounds, stopped: decided]"
    assert v["checks"][0]["looks"] == 5 and v["checks"][0]["level"] == pytest.approx(1 - 0.05 / 10)
    text = verdict.text(v)
    assert "  rounds: " in text and "of the design's 3, 5, 8, 12, 20" in text
    assert "paired t (2 groups)" in v["test"] and "5 looks" in v["test"]
    assert len([l for l in text.splitlines() if l.strip().startswith("ds=") and "  paired t  holds" in l]) == 2
    # The records end before a decision: the last look is at what they hold.
    v = decide(tmp_path, drifting(7, ratio=1.0))
    assert (v["rounds"]["ran"], v["rounds"]["stopped"]) == (7, "records")
    assert v["rounds"]["looks"] == [3, 5, 7] and v["display"].endswith("[7 rounds, stopped: end of the records]")
    # Unpaired records: one decision, at 5%, no rounds.
    v = decide(tmp_path, unpaired(drifting(8, ratio=0.5)))
    assert "rounds" not in v and v["checks"][0]["tests"] == {"Welch": 2} and v["checks"][0]["looks"] == 1


def test_a_look_reads_only_its_rounds(tmp_path):
    recs = drifting(25, ratio=1.0)
    v = decide(tmp_path, recs)
    assert (v["rounds"]["ran"], v["rounds"]["stopped"]) == (20, "maximum")
    assert all(g["n"] == [20, 20] for g in v["checks"][0]["groups"])


def noisy_rounds(drop: bool) -> tuple[list[dict], str]:
    recs = drifting(8, ratio=0.85)
    for r in recs:
        if r["sweep"]["round"] == 3:
            r["sweep"]["round_calibration_s"] = 0.07  # 3.5x the best
    return recs, ("drop_noisy_rounds = true\n" if drop else "") + CLAIM


def test_noisy_rounds_are_named_and_kept_unless_the_claim_allows_dropping(tmp_path):
    recs, body = noisy_rounds(drop=False)
    v = decide(tmp_path, recs, body, rounds.Design((8,), 3600))
    assert v["noise"]["noisy"] == [["s1/3", 0.07]] and not v["noise"]["dropped"]
    assert all(g["n"] == [8, 8] for g in v["checks"][0]["groups"])
    assert ("noise: 1 of 8 rounds noisy (calibration over 3x the best 20.0 ms): s1/3 (70.0 ms); kept"
            in verdict.text(v))
    recs, body = noisy_rounds(drop=True)
    v = decide(tmp_path, recs, body, rounds.Design((8,), 3600))
    assert v["noise"]["dropped"] and all(g["n"] == [7, 7] for g in v["checks"][0]["groups"])
    assert v["display"].endswith("[8 rounds, stopped: decided; 1 noisy round dropped]")
    assert "dropped from the decision (the claim file sets drop_noisy_rounds)" in verdict.text(v)


class FakeRunner:
    """Appends the claim's rounds up to N to one file, as `pmemids sweep --interleave
    --rounds N` would, counting the calls and the rounds run."""

    def __init__(self, tmp_path, ratio: float):
        self.path, self.ratio, self.calls, self.held = tmp_path / "s.jsonl", ratio, [], 0

    def run(self, claim, extra=()):
        n = int(extra[extra.index("--rounds") + 1])
        self.calls.append(n)
        recs = drifting(n - self.held, self.ratio, first=self.held, seed=self.held)
        with open(self.path, "a") as f:
            f.writelines(json.dumps(r) + "\n" for r in recs)
        self.held = max(self.held, n)
        return [self.path]


def test_rounds_are_added_until_decided_or_the_maximum(tmp_path):
    c = claims.load(claim_file(tmp_path, CLAIM))
    runner = FakeRunner(tmp_path, ratio=0.6)
    v = rounds.in_rounds(c, "quick", DESIGN, runner)
    assert v["class"] == "reproduced" and v["rounds"]["stopped"] == "decided"
    assert runner.calls == [3, 5, 8, 12, 20][:len(runner.calls)] and v["rounds"]["ran"] == runner.calls[-1]
    # Deciding the same records again replays the same looks.
    again = decide(tmp_path, [json.loads(l) for l in runner.path.read_text().splitlines()])
    assert again["rounds"] == v["rounds"] and again["checks"] == v["checks"]
    null = FakeRunner(tmp_path / "null", ratio=1.0)
    (tmp_path / "null").mkdir()
    v = rounds.in_rounds(c, "quick", DESIGN, null)
    assert null.calls == [3, 5, 8, 12, 20] and v["rounds"]["stopped"] == "maximum"
    assert v["display"] == "within noise [20 rounds, stopped: maximum]"


def test_a_spent_budget_stops_after_the_look_that_spent_it(tmp_path):
    c = claims.load(claim_file(tmp_path, CLAIM))
    runner = FakeRunner(tmp_path, ratio=1.0)
    v = rounds.in_rounds(c, "quick", rounds.Design(rounds.looks_up_to(20), budget_s=0), runner)
    assert runner.calls == [3] and v["rounds"]["stopped"] == "budget"
    assert v["display"] == "within noise [3 rounds, stopped: budget 0s spent]"


class TimedRunner(FakeRunner):
    """A FakeRunner whose rounds take `pace` seconds each on its own clock."""

    def __init__(self, tmp_path, ratio: float, pace: float):
        super().__init__(tmp_path, ratio)
        self.pace, self.now = pace, 0.0

    def clock(self) -> float:
        return self.now

    def run(self, claim, extra=()):
        before = self.held
        out = super().run(claim, extra)
        self.now += self.pace * (self.held - before)
        return out


SCALED = rounds.Design(rounds.looks_up_to(rounds.MAX_ROUNDS["quick"]), rounds.BUDGETS["quick"],
                       cap_s=rounds.BUDGET_CAPS["quick"])


@pytest.mark.parametrize("pace, calls, stopped, budget", [
    (60.0, [3, 5, 8], "budget", 600.0),                 # 1.25 x 8 rounds at 1 min a round
    (120.0, [3, 5], "budget", 720.0),                   # the cap: 12 minutes at quick
    (5.0, [3, 5, 8, 12, 20, 30], "budget", 180.0),      # 50 rounds would take 250 s of 180
    (1.5, [3, 5, 8, 12, 20, 30, 50], "maximum", 180.0),  # a fast claim keeps the default 3m
])
def test_a_default_budget_is_scaled_to_the_round_time(tmp_path, pace, calls, stopped, budget):
    c = claims.load(claim_file(tmp_path, CLAIM))
    runner = TimedRunner(tmp_path, ratio=1.0, pace=pace)
    v = rounds.in_rounds(c, "quick", SCALED, runner, clock=runner.clock)
    assert runner.calls == calls and v["rounds"]["stopped"] == stopped
    assert v["rounds"]["budget_s"] == budget and v["rounds"]["budget"]["from"] == "default scaled"
    assert v["rounds"]["budget"]["pace_s"] == pace
    # The budget decides when to stop looking, never a look's level: the design's 7 looks.
    assert v["rounds"]["level_per_look"] == 0.05 / 7 and v["checks"][0]["looks"] == 7
    if stopped == "budget":
        assert v["display"] == (f"within noise [{calls[-1]} rounds, stopped: budget "
                                f"{budget / 60:g}m (the default 3m scaled to the round time) spent]")
    assert "cap 12m" in verdict.text(v)


def test_a_given_budget_stays_a_hard_cap(tmp_path):
    c = claims.load(claim_file(tmp_path, CLAIM))
    runner = TimedRunner(tmp_path, ratio=1.0, pace=60.0)
    given = rounds.Design(rounds.looks_up_to(rounds.MAX_ROUNDS["quick"]), 180.0)
    v = rounds.in_rounds(c, "quick", given, runner, clock=runner.clock)
    assert runner.calls == [3] and v["rounds"]["budget"] == {"from": "given", "s": 180.0}
    assert v["display"] == "within noise [3 rounds, stopped: budget 3m spent]"
    assert "budget 3m, given (--budget)" in verdict.text(v)
    args = rounds.argparse.Namespace(budget=None, max_rounds=None, scale="quick", no_interleave=False)
    assert rounds.design_of(args) == SCALED
    args.budget = 180.0
    assert rounds.design_of(args) == given


def test_settled_needs_every_deciding_check_and_requirement_decided():
    def rec(checks, requires=()):
        return {"checks": [{"outcome": o, "label_applies": a} for o, a in checks],
                "requires": [{"outcome": o} for o in requires]}
    assert rounds.settled(rec([("reproduced", False), ("not reproduced", False)]))
    assert not rounds.settled(rec([("reproduced", False), ("within noise", False)]))
    assert rounds.settled(rec([("reproduced", False), ("within noise", True)]))  # shown, not deciding
    assert not rounds.settled(rec([("reproduced", False)], ["within noise"]))
    assert rounds.settled(rec([("within noise", False)], ["not reproduced"]))  # not measurable: final


def test_design_options():
    assert rounds.looks_up_to(20) == (3, 5, 8, 12, 20) and rounds.looks_up_to(10) == (3, 5, 8, 10)
    assert rounds.looks_up_to(2) == (2,)
    assert [rounds.parse_duration(t) for t in ("90s", "3m", "1h30m", "45", "0")] == [90, 180, 5400, 45, 0]
    for bad in ("", "3x", "m", "-1m"):
        with pytest.raises(Exception, match="is not a duration"):
            rounds.parse_duration(bad)


def test_claim_keys_for_rounds_are_checked(tmp_path):
    c = claims.load(claim_file(tmp_path, "drop_noisy_rounds = true\ninterleave = false\n" + CLAIM))
    assert c.drop_noisy_rounds and not c.interleave
    with pytest.raises(claims.ClaimError, match="drop_noisy_rounds: 'yes'; accepted: true or false"):
        claims.load(claim_file(tmp_path, 'drop_noisy_rounds = "yes"\n' + CLAIM))


# ------------------------------------------------------------------ the sequential rule


def sequential(d: list[list[float]], looks, planned: int, test) -> tuple[str, set[str]]:
    """The outcome of a claim of len(d) groups (for all) decided at `looks` over its
    per-round log-ratios, each look at the level of `planned` looks; and the tests used."""
    used = set()
    for n in looks:
        level = evaluate.level_for(test.op, len(d), planned)
        decided = [evaluate.decide_group("ratio", test, None, g[:n], level) for g in d]
        used |= {x[2] for x in decided}
        outcome = evaluate.outcome_of([x[3] for x in decided], len(d))
        if outcome != "within noise":
            return outcome, used
    return "within noise", used


def null_claims(looks: tuple[int, ...], claims_n: int = 1000, groups: int = 2,
                seed: int = 26) -> tuple[float, float, set[str]]:
    """Null claims: both configurations' records drawn from one distribution (a load that
    drifts between rounds, noise of 5%, now and then a load spike on one run), decided at
    `looks` as `pmemids reproduce` does. Returns the rate of verdicts other than within
    noise (all wrong), the same when looking after every round at the undivided level,
    and the tests that decided groups."""
    rng = random.Random(seed)
    test = predicate.parse(BELOW).test
    wrong = naive = 0
    tests: set[str] = set()

    def run_value(load: float) -> float:
        spike = 0.6 if rng.random() < 0.08 else 1.0
        return load * spike * math.exp(rng.gauss(0, 0.05))

    for _ in range(claims_n):
        d = [[] for _g in range(groups)]
        for _k in range(looks[-1]):
            load = math.exp(rng.gauss(0, 0.4))
            for g in range(groups):
                d[g].append(math.log(run_value(load)) - math.log(run_value(load)))
        outcome, used = sequential(d, looks, len(looks), test)
        tests |= used
        wrong += outcome != "within noise"
        naive += sequential(d, range(3, looks[-1] + 1), 1, test)[0] != "within noise"
    return wrong / claims_n, naive / claims_n, tests


def test_sequential_rule_keeps_wrong_verdicts_at_the_stated_level():
    """The quick scale's looks (3, 5, 8, 12, 20, 30, 50) keep wrong verdicts of null
    claims under 5%; looking after every round at the undivided level would not: the
    simulation can tell."""
    looks = rounds.looks_up_to(rounds.MAX_ROUNDS["quick"])
    assert looks == (3, 5, 8, 12, 20, 30, 50)
    wrong, naive, tests = null_claims(looks)
    assert wrong <= 0.05, wrong
    assert naive > 0.05, naive
    assert tests == {paired.PAIRED_T, paired.WILCOXON}  # both paths of the rule ran


def test_readme_table_counts_rounds_stops_and_minutes():
    from pmemids_report.reproduce import table

    def v(ran, stopped, seconds):
        return {"rounds": {"ran": ran, "stopped": stopped}, "seconds": seconds}
    line = table.rounds_line([v(3, "decided", 30), v(20, "maximum", 150), v(8, "budget", 180), {}])
    assert line == ("Rounds: 3 claims decided in rounds, 3-20 rounds (median 8); stopped: 1 decided, "
                    "1 budget, 1 maximum; 0.5-3 minutes per claim (median 2.5).\n")
    assert table.rounds_line([{}]) == ""


if __name__ == "__main__":  # the rates docs/reproduce.md quotes, for looks up to 50 and 20
    for last in (rounds.MAX_ROUNDS["quick"], 20):
        wrong, naive, _ = null_claims(rounds.looks_up_to(last))
        print(f"looks up to {last} rounds: {wrong:.1%} wrong; after every round, undivided: {naive:.1%}")
