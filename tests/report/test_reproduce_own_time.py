"""Own time (issue 26, deciding on a loaded machine) without the binary: a rate of
one-thread runs is decided per second of the run's own time, the timed phase less
the run-queue wait its worker spent without a CPU (rows.py's own_time_fraction,
evaluate.py's on_own_time). Other work that takes a different share from each run of
a round is then not charged to the configurations; records of several threads, or
without the reading, stay on the wall clock; every group says which."""

from __future__ import annotations

import math
import random

import pandas as pd
import pytest

from pmemids_report.reproduce import evaluate, paired, predicate, verdict
from test_reproduce_engine import frame, record
from test_reproduce_rounds import BELOW, in_round

PAIRED = {paired.PAIRED_T, paired.WILCOXON}


def stolen(n: int, ratio: float, seed: int = 0, threads: int = 1, reading: bool = True) -> list[dict]:
    """n rounds of pmem-persist (1e6 ops/s of its own time) and pmem-trans (`ratio` of
    it) for two structures, one thread each; every run loses its own random share of
    its 1-second timed phase (0 to 60%) to other work: its wall-clock rate falls by
    that share and its run-queue wait is that share (not read when not `reading`)."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        for ds in ("btree", "rbtree"):
            for mode, own in (("pmem-persist", 1e6), ("pmem-trans", ratio * 1e6)):
                share = rng.uniform(0.0, 0.6)
                own_rate = own * math.exp(rng.gauss(0, 0.01))
                metrics = {"seconds": 1.0}
                if reading:
                    metrics["run_delay_seconds"] = share
                r = record(ds, mode, own_rate * (1 - share), rep=k, **metrics)
                r["config"]["threads"] = threads
                out.append(in_round(r, k))
    return out


def check_of(tmp_path, recs, text=BELOW):
    df, _ = frame(tmp_path, recs)
    return evaluate.evaluate(predicate.parse(text), df)


def test_a_rate_of_one_thread_runs_is_decided_on_their_own_time(tmp_path):
    recs = stolen(8, ratio=0.9)
    res = check_of(tmp_path, recs)
    assert res.outcome == "reproduced"
    assert [g.basis for g in res.groups] == [evaluate.OWN_TIME] * 2
    assert {g.test for g in res.groups} <= PAIRED
    assert all(g.estimate == pytest.approx(0.9, rel=0.02) for g in res.groups)
    # The same runs without the reading (a binary before run_delay_seconds): the share
    # other work took from each run is noise that pairing by rounds cannot cancel.
    res = check_of(tmp_path, stolen(8, ratio=0.9, reading=False))
    assert res.outcome == "within noise"
    assert [g.basis for g in res.groups] == [evaluate.WALL_CLOCK] * 2


def test_equal_costs_with_other_work_taking_random_shares_are_not_called_different(tmp_path):
    recs = stolen(12, ratio=1.0, seed=5)
    for text in (BELOW, BELOW.replace("< 1", "> 1")):
        res = check_of(tmp_path, recs, text)
        assert res.outcome == "within noise"
        assert all(g.basis == evaluate.OWN_TIME for g in res.groups)


def test_several_threads_a_missing_reading_or_not_a_rate_stay_as_recorded(tmp_path):
    res = check_of(tmp_path, stolen(8, ratio=0.9, threads=2))
    assert [g.basis for g in res.groups] == [evaluate.WALL_CLOCK] * 2
    # One record of a group without the reading puts that group on the wall clock.
    recs = stolen(8, ratio=0.9)
    del recs[0]["metrics"]["run_delay_seconds"]
    assert [g.basis for g in check_of(tmp_path, recs).groups] == [
        evaluate.WALL_CLOCK, evaluate.OWN_TIME]
    # A paced run's rate is its pace (--target): nothing to give back.
    recs = stolen(8, ratio=0.9)
    for r in recs:
        r["config"]["target"] = 500000 if r["config"]["ds"] == "btree" else None
    assert [g.basis for g in check_of(tmp_path, recs).groups] == [
        evaluate.WALL_CLOCK, evaluate.OWN_TIME]
    # A run-queue wait longer than the timed phase is not a reading.
    recs = stolen(8, ratio=0.9)
    recs[0]["metrics"]["run_delay_seconds"] = 1.5
    assert check_of(tmp_path, recs).groups[0].basis == evaluate.WALL_CLOCK
    # Not a rate: no basis, values as recorded.
    for r in recs:
        r["metrics"]["tx_bytes_per_op"] = 100.0 if r["config"]["mode"] == "pmem-trans" else 50.0
    df, _ = frame(tmp_path, recs, metrics=("tx_bytes_per_op",))
    res = evaluate.evaluate(predicate.parse(BELOW.replace("ops_per_sec", "tx_bytes_per_op").replace(
        "< 1", "> 1")), df)
    assert [g.basis for g in res.groups] == [None, None]
    assert res.groups[0].estimate == pytest.approx(2.0)


def test_own_time_divides_a_rate_and_multiplies_a_time_per_operation():
    part = pd.DataFrame({"ops_per_sec": [100.0], "gib_per_sec": [2.0], "ns_per_op": [10.0],
                         "own_time_fraction": [0.5]})
    for metric, value in (("ops_per_sec", 200.0), ("gib_per_sec", 4.0), ("ns_per_op", 5.0)):
        [out], basis = evaluate.on_own_time(metric, [part])
        assert basis == evaluate.OWN_TIME and out[metric].iloc[0] == pytest.approx(value)
    assert part["ops_per_sec"].iloc[0] == 100.0  # the caller's rows are left as they were


def test_the_verdict_says_which_groups_were_decided_on_own_time(tmp_path):
    res = check_of(tmp_path, stolen(8, ratio=0.9))
    assert res.on_own_time() == 2
    assert evaluate.test_text([res], 1).endswith(
        "; rates of one-thread runs on their own time (2 groups: per second of the timed "
        "phase less the worker's run-queue wait)")
    wall = check_of(tmp_path, stolen(8, ratio=0.9, reading=False))
    assert "own time" not in evaluate.test_text([wall], 1)
    lines = verdict._check_lines(
        "check 1", {"what": "w", "predicate": BELOW, "outcome": res.outcome,
                    "summary": res.summary("ratio"), "level": res.level,
                    "groups": [g.to_json() for g in res.groups]})
    assert sum("paired t, own time" in ln or "Wilcoxon signed-rank, own time" in ln for ln in lines) == 2
