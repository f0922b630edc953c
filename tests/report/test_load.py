"""Input validation (exit 2 naming file and line) and which records count as repetitions."""

from __future__ import annotations

import json
import math
import statistics

import pytest

from conftest import FIXTURES, fixture_lines, main
from pmemids_report import stats
from pmemids_report.load import read_records

GOOD = (FIXTURES / "real.jsonl").read_text().splitlines()


def run_main(capsys, *args) -> tuple[int, str]:
    code = main([str(a) for a in args])
    return code, capsys.readouterr().err


def write(tmp_path, lines: list[str], name="in.jsonl"):
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n")
    return p


def edited(line: str, edit) -> str:
    r = json.loads(line)
    edit(r)
    return json.dumps(r)


def test_missing_file(tmp_path, capsys):
    code, err = run_main(capsys, FIXTURES / "real.jsonl", tmp_path / "nope.jsonl", "--out", tmp_path / "out")
    assert code == 2
    assert err == f"pmemids report: error: {tmp_path / 'nope.jsonl'}: no such file or directory\n"
    assert not (tmp_path / "out").exists()


def test_bad_json_names_file_and_line(tmp_path, capsys):
    p = write(tmp_path, GOOD[:2] + ['{"schema_version": 1, "config": '] + GOOD[2:])
    code, err = run_main(capsys, p, "--out", tmp_path / "out")
    assert code == 2
    assert err.startswith(f"pmemids report: error: {p}:3: invalid JSON")


@pytest.mark.parametrize("edit,message", [
    (lambda r: r["config"].pop("ds"), "missing field 'config.ds'"),
    (lambda r: r.pop("config"), "missing field 'config'"),
    (lambda r: r["metrics"].pop("ops_per_sec"), "missing field 'metrics.ops_per_sec'"),
    (lambda r: r["metrics"].update(ops_per_sec="fast"), "field 'metrics.ops_per_sec' must be a finite number"),
    (lambda r: r.pop("context"), "missing field 'context'"),
    (lambda r: r.pop("schema_version"), "missing field 'schema_version'"),
    (lambda r: r.update(schema_version=2), "unsupported schema_version 2"),
    (lambda r: r["config"].update(threads=0), "field 'config.threads' must be an integer >= 1"),
    (lambda r: r.update(skipped=True), "missing field 'reason'"),
])
def test_missing_or_malformed_field(tmp_path, capsys, edit, message):
    p = write(tmp_path, GOOD[:4] + [edited(GOOD[4], edit)])
    code, err = run_main(capsys, p, "--out", tmp_path / "out")
    assert code == 2
    assert err.startswith(f"pmemids report: error: {p}:5: {message}"), err


def test_not_an_object(tmp_path, capsys):
    p = write(tmp_path, ["[1, 2]"])
    code, err = run_main(capsys, p, "--out", tmp_path / "out")
    assert code == 2 and f"{p}:1: expected a JSON object, found list" in err


def test_empty_file_and_empty_directory(tmp_path, capsys):
    empty = write(tmp_path, [""], "empty.jsonl")
    code, err = run_main(capsys, empty, "--out", tmp_path / "out")
    assert code == 2 and f"{empty}: no records" in err
    (tmp_path / "dir").mkdir()
    code, err = run_main(capsys, tmp_path / "dir", "--out", tmp_path / "out")
    assert code == 2 and f"{tmp_path / 'dir'}: directory contains no *.jsonl files" in err


def test_directory_reads_every_jsonl_and_a_file_once(tmp_path):
    write(tmp_path, GOOD[:3], "a.jsonl")
    write(tmp_path, GOOD[3:], "b.jsonl")
    write(tmp_path, ["not json"], "notes.txt")
    records = read_records([str(tmp_path), str(tmp_path / "a.jsonl")])
    assert [(r.file.rsplit("/", 1)[1], r.line) for r in records][:4] == [
        ("a.jsonl", 1), ("a.jsonl", 2), ("a.jsonl", 3), ("b.jsonl", 1)]
    assert len(records) == len(GOOD)


def test_unknown_top_level_keys_are_ignored(tmp_path, capsys):
    p = write(tmp_path, [edited(GOOD[0], lambda r: r.update(sweep={"name": "x"}, future=[1]))])
    code, err = run_main(capsys, p, "--out", tmp_path / "out")
    assert code == 0, err


def test_warmups_and_aggregates_are_not_repetitions():
    records = read_records([str(FIXTURES / "parallel.jsonl")])
    confs = stats.configurations(stats.runs(records), records)
    lines = fixture_lines("parallel.jsonl")
    for mode in ["dram", "pmem-volatile", "pmem-persist", "pmem-trans"]:
        mine = [r for r in lines if r["config"]["ds"] == "hashtable" and r["config"]["mode"] == mode
                and r["config"]["threads"] == 1]
        kinds = sorted("warmup" if r.get("warmup") else "aggregate" if r.get("aggregate") else "run" for r in mine)
        assert kinds == ["aggregate", "run", "run", "warmup"]
        xs = [r["metrics"]["ops_per_sec"] for r in mine if not r.get("warmup") and not r.get("aggregate")]
        row = confs[(confs["ds"] == "hashtable") & (confs["mode"] == mode) & (confs["threads"] == 1)]
        assert len(row) == 1
        row = row.iloc[0]
        assert row["n"] == 2 and row["warmups"] == 1
        assert math.isclose(row["mean"], statistics.mean(xs))
        assert math.isclose(row["sd"], statistics.stdev(xs))
        assert math.isclose(row["ci_high"] - row["mean"], 12.706 * statistics.stdev(xs) / math.sqrt(2))


def test_different_machines_are_not_pooled():
    records = read_records([str(FIXTURES / "single.jsonl"), str(FIXTURES / "real.jsonl")])
    confs = stats.configurations(stats.runs(records), records)
    hashtable = confs[(confs["ds"] == "hashtable") & (confs["mode"] == "dram") & (confs["workload"] == "pmemids-write")]
    assert sorted(hashtable["pmem"]) == ["emulated", "real"]
    assert list(hashtable["n"]) == [2, 2]


def test_seeds_are_listed_not_identity(tmp_path):
    p = write(tmp_path, [edited(GOOD[0], lambda r: r["config"].update(seed=7)), GOOD[1]])
    records = read_records([str(p)])
    confs = stats.configurations(stats.runs(records), records)
    assert len(confs) == 1 and confs.iloc[0]["seeds"] == [1, 7]


def _failed(line: str) -> str:
    """A sweep's record of a configuration whose run failed: no context, no metrics."""
    r = json.loads(line)
    return json.dumps({"schema_version": 1, "failed": True, "reason": "pool full", "exit_code": 1,
                       "config": r["config"], "sweep": {"config_id": "00", "record": 0, "records": 1}})


def test_failed_sweep_records_are_listed_not_measured(tmp_path, capsys):
    p = write(tmp_path, GOOD + [_failed(GOOD[0])])
    records = read_records([str(p)])
    assert [r.kind for r in records][-1] == "failed"
    assert len(stats.runs(records)) == len(GOOD)
    code, err = run_main(capsys, p, "--out", tmp_path / "out")
    assert code == 0, err
    html = (tmp_path / "out" / "index.html").read_text()
    assert "pool full" in html


def test_failed_record_needs_a_reason(tmp_path, capsys):
    bad = json.loads(_failed(GOOD[0]))
    bad.pop("reason")
    p = write(tmp_path, GOOD[:1] + [json.dumps(bad)])
    code, err = run_main(capsys, p, "--out", tmp_path / "out")
    assert code == 2 and f"{p}:2: missing field 'reason'" in err


# Keys a kv record carried before records kept only their operation set's (issue 27).
OTHER_SETS = {"pushproportion": 0.5, "popproportion": 0.5, "pushpoppairs": False, "keyrange": 1024,
              "queueslots": 32768, "slotsize": 4096, "poolnodes": 0, "localwork": 0,
              "wait": "adaptive", "combining_rounds": 20}


def _stack(r):
    for k in ("readproportion", "updateproportion", "insertproportion", "requestdistribution"):
        r["config"].pop(k, None)
    r["config"].update(ds="stack-lock", workload="stack-random", operationset="stack",
                       pushproportion=0.5, popproportion=0.5, wait="adaptive", poolnodes=0)


def test_records_with_and_without_other_sets_keys_load_and_group(tmp_path):
    # This version's kv records (none of the keys), an older version's (all of them, on
    # another revision), and a stack record beside them: each kind pools its own
    # repetitions, and only the stack's workload is labelled with push and pop.
    old = [edited(l, lambda r: r["config"].update(OTHER_SETS) or r["context"].update(
        git_revision="old")) for l in GOOD]
    p = write(tmp_path, GOOD + old + [edited(GOOD[0], _stack), edited(GOOD[1], _stack)])
    records = read_records([str(p)])
    confs = stats.configurations(stats.runs(records), records)
    kv = confs[confs["ds"] == "hashtable"]
    assert len(kv) == 8 and set(kv["n"]) == {2}
    new = kv[kv["git_revision"] != "old"]
    assert len(new) == 4 and all(stats.missing(v) for v in new["pushproportion"])
    assert all("push" not in t for t in new["workload_text"])
    [stack] = confs[confs["ds"] == "stack-lock"].itertuples()
    assert stack.n == 2 and "50% push, 50% pop" in stack.workload_text


def test_knobs_of_other_structures_in_older_records_do_not_split_a_configuration(tmp_path):
    # Older records carried every structure's knobs (issue 27): a hashtable record's
    # node_keys, max_height or wait (btree's, skiplist's, the combining stacks') is dropped as
    # it is read, whatever its value; its own knob, load_factor, still tells configurations apart.
    others = [edited(l, lambda r: r["config"].update(node_keys=7, max_height=3, wait="yield"))
              for l in GOOD]
    own = [edited(l, lambda r: r["config"].update(load_factor=0.5)) for l in GOOD]
    records = read_records([str(write(tmp_path, GOOD + others + own))])
    kv = stats.configurations(stats.runs(records), records)
    assert len(kv) == 8 and sorted(kv["n"]) == [2] * 4 + [4] * 4
    assert "node_keys" not in kv.columns and "wait" not in kv.columns
    assert sorted(kv["load_factor"]) == [0.5] * 4 + [0.75] * 4
