"""Claims over `pmemids micro` records: micro records are rows the checks read (their
point's identity in columns, repetitions pooled), micro sweeps' dry-run lines are
configurations with their bench, and a select term is checked against a micro
option's lists and ranges."""

from __future__ import annotations

import copy
import json

import pytest

from conftest import FIXTURES
from pmemids_report.load import read_records
from pmemids_report.reproduce import evaluate, predicate, rows
from pmemids_report.reproduce.cli import covers, parse_run_line

PERSIST = next(json.loads(line) for line in (FIXTURES / "micro.jsonl").read_text().splitlines()
               if json.loads(line).get("bench") == "persist")


def micro(op: str, size: int, ops: float, rep: int, numa: str | None = None) -> dict:
    r = copy.deepcopy(PERSIST)
    r["config"].update(op=op, size=size, repetition=rep, seed=rep + 1, order_seeds=[rep + 1])
    if numa:
        r["config"]["numa"] = numa
    r["metrics"].update(ops_per_sec=ops, ns_per_op=1e9 / ops)
    return r


def frame(tmp_path, recs: list[dict], metrics=("ops_per_sec",)):
    p = tmp_path / "m.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    records = read_records([str(p)])
    return rows.run_rows(records, set(metrics)), rows.skipped_rows(records)


def test_micro_records_are_rows_one_configuration_per_point(tmp_path):
    recs = [micro(op, size, base * (1 + 0.01 * rep), rep)
            for op, base in (("flush", 3e7), ("persist", 1e7)) for size in (64, 256) for rep in range(3)]
    df, _ = frame(tmp_path, recs, metrics=("ops_per_sec", "ns_per_op"))
    assert len(df) == 12 and df["config_id"].nunique() == 4  # seeds and repetitions are not identity
    assert set(df["bench"]) == {"persist"} and set(df["pmem"]) == {PERSIST["context"]["pmem"]}
    res = evaluate.evaluate(predicate.parse(
        "ratio(select(bench=persist, op=flush), select(bench=persist, op=persist), "
        "metric=ops_per_sec, by=[size]) > 1.5 for all"), df)
    assert res.outcome == "reproduced" and len(res.groups) == 2
    assert res.groups[0].estimate == pytest.approx(3, rel=0.01)


def test_repetitions_min_time_grew_apart_are_one_point(tmp_path):
    """Fails on the old code: each repetition's --min-time growth made its own configuration,
    and a check refused the selection ("differ in ops_per_thread")."""
    recs = [micro("flush", 64, 3e7, rep) for rep in range(3)] + [micro("persist", 64, 1e7, rep) for rep in range(3)]
    for k, r in enumerate(recs):
        r["config"].update(ops_per_thread_asked=5000, ops_per_thread=65000 + 5000 * (k % 3), min_time=0.01)
    df, _ = frame(tmp_path, recs)
    assert df["config_id"].nunique() == 2 and set(df["ops_per_thread"]) == {5000}
    res = evaluate.evaluate(predicate.parse(
        "ratio(select(bench=persist, op=flush, ops_per_thread=5000), select(bench=persist, op=persist), "
        "metric=ops_per_sec) > 1.5"), df)
    assert res.outcome == "reproduced" and res.groups[0].n == (3, 3)


def test_micro_numa_setting_is_the_locality(tmp_path):
    recs = [micro("persist", 64, 1e7, rep, numa) for numa in ("local", "remote") for rep in range(2)]
    df, _ = frame(tmp_path, recs)
    assert sorted(set(df["locality"])) == ["local", "remote"]


def test_micro_sweep_lines_are_configurations_with_their_bench():
    cfg = parse_run_line("pmemids micro persist --op flush --ops-per-thread 20000 "
                         "--pattern seq,rand --size '8:*2:8192'")
    assert cfg == {"bench": "persist", "op": "flush", "ops_per_thread": 20000,
                   "pattern": "seq,rand", "size": "8:*2:8192"}
    assert parse_run_line("pmemids run --ds btree --threads 2")["ds"] == "btree"
    assert "bench" not in parse_run_line("pmemids run --ds btree --threads 2")


@pytest.mark.parametrize("value, word, key, expected", [
    ("seq,rand", "rand", "pattern", True),
    ("seq,rand", "random", "pattern", False),
    ("8:*2:8192", "64", "size", True),
    ("8:*2:8192", "16384", "size", False),
    ("64,128,256", "128", "io", True),
    ("64,128,256", "512", "io", False),
    ("0:0.1:1", "0.5", "hit_ratio", True),
    ("1:*2:N", "16", "threads", True),
    ("load,pstore", "pstore", "access", True),
    (64, "64", "size", True),
    (64, "65", "size", False),
])
def test_a_select_word_is_checked_against_a_micro_options_values(value, word, key, expected):
    assert covers(value, word, key) is expected
