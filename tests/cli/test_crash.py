"""`pmemids crash`: the table, the JSON records, exit codes and bad input."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from conftest import DURABLE_INTERNAL, EADR_ONLY, STRUCTURES, names, read_records

SMALL = ["-p", "recordcount=20", "-p", "operationcount=40"]
METRICS = ["points", "recovered", "invariant_failures", "lost_acknowledged", "half_applied",
           "leaked_objects", "dangling_objects", "recovery_ms_median", "recovery_ms_max"]
CRASH_STRUCTURES = STRUCTURES  # the kv structures: crash-tested in both durable modes


def crash(pmemids, pool_dir: Path, *args: str):
    return pmemids("crash", "--pool-dir", str(pool_dir), *args)


def test_table_and_record(pmemids, pool_dir, out_path):
    r = crash(pmemids, pool_dir, "--ds", "linkedlist", "--mode", "pmem-trans", "--points", "5",
              "--seed", "9", "--out", str(out_path), *SMALL)
    assert r.returncode == 0, r.describe()
    header, row = r.stdout.splitlines()[:2]
    for col in ["ds", "mode", "model", "points", "recovered", "inv_fail", "lost_ack", "half",
                "torn", "leaked", "dangling", "rec_ms_med", "rec_ms_max"]:
        assert col in header.split()
    assert row.split()[:4] == ["linkedlist", "pmem-trans", "power", "5"]
    recs = read_records(out_path)
    assert len(recs) == 1
    rec = recs[0]
    assert rec["schema_version"] == 1
    assert "pmem" in rec["context"] or rec["context"]
    cfg, m = rec["config"], rec["metrics"]
    assert cfg["command"] == "crash"
    assert (cfg["ds"], cfg["mode"], cfg["model"], cfg["seed"]) == ("linkedlist", "pmem-trans",
                                                                     "power", 9)
    assert cfg["recordcount"] == 20 and cfg["operationcount"] == 40
    for name in METRICS:
        assert name in m, name
    assert m["points"] == 5 and m["recovered"] == 5
    assert m["invariant_failures"] == m["lost_acknowledged"] == m["half_applied"] == 0
    assert m["leaked_objects"] == m["dangling_objects"] == 0
    assert 0 < m["recovery_ms_median"] <= m["recovery_ms_max"]
    # Nothing is left behind in the pool directory.
    assert list(pool_dir.iterdir()) == []


def torn_pairs(pmemids) -> set:
    """The (structure, mode) pairs `list --json` declares not failure-atomic by design."""
    r = pmemids("list", "--json")
    assert r.returncode == 0, r.describe()
    return {(e["ds"], m) for e in json.loads(r.stdout) for m in e["torn_modes"]}


def test_all_covers_every_structure_and_durable_mode(pmemids, pool_dir, out_path):
    # recordcount does not apply to the set structures --all now includes.
    r = crash(pmemids, pool_dir, "--all", "--points", "2", "--out", str(out_path),
              "-p", "operationcount=40")
    assert r.returncode == 0, r.describe()
    pairs = {(x["config"]["ds"], x["config"]["mode"]) for x in read_records(out_path)}
    # The durable lock-free structures and stacks in their one mode; the
    # eADR-only ones are left out under ADR (they would fail: --unsafe runs them),
    # and so are the modes not failure-atomic by design, each named on stderr.
    durable = set(DURABLE_INTERNAL) - set(EADR_ONLY)
    durable_stacks = names(lambda e: e["operation_set"] == "stack" and e["crash_modes"])
    torn = torn_pairs(pmemids)
    assert torn, "the pmem-persist trees are declared torn"
    assert pairs == ({(d, m) for d in CRASH_STRUCTURES for m in ["pmem-persist", "pmem-trans"]}
                     | {(d, "pmem-persist") for d in durable | set(durable_stacks)}) - torn
    for d, m in torn:
        assert f"skipping {d} in {m} (not failure-atomic by design" in r.stderr, r.describe()
    for x in read_records(out_path):
        assert x["config"]["failure_atomic"] is True, x
        if x["config"]["mode"] == "pmem-trans":
            m = x["metrics"]
            assert m["recovered"] == m["points"] == 2, x
            assert m["lost_acknowledged"] == m["half_applied"] == m["leaked_objects"] == 0, x


def test_all_unsafe_adds_the_torn_modes_and_eadr_only_designs(pmemids, pool_dir, out_path):
    r = crash(pmemids, pool_dir, "--all", "--unsafe", "--mode", "pmem-persist", "--points", "1",
              "--out", str(out_path), "-p", "operationcount=20")
    assert r.returncode == 0, r.describe()
    recs = read_records(out_path)
    pairs = {(x["config"]["ds"], x["config"]["mode"]) for x in recs}
    torn = torn_pairs(pmemids)
    assert torn <= pairs
    assert {(d, "pmem-persist") for d in EADR_ONLY} <= pairs
    assert "skipping" not in r.stderr
    for x in recs:
        assert x["config"]["failure_atomic"] == ((x["config"]["ds"], "pmem-persist") not in torn), x
    # The columns stay aligned past the longest name (ringbuffer-txfree).
    header, *rows, summary = r.stdout.splitlines()
    assert len(rows) == len(recs)
    for row in rows:
        assert row.index(" pmem-persist ") == header.index(" mode "), (header, row)
    assert summary.startswith("summary: ") and summary.endswith("exit 0"
                                                                if "no violations" in summary
                                                                else "makes it 3)"), summary


def test_summary_says_the_violations_are_the_designs_and_the_exit(pmemids, pool_dir):
    """rbtree under pmem-persist is not failure-atomic by design (a negative control):
    the summary line says its violations are expected, and which exit follows."""
    args = ["--ds", "rbtree", "--mode", "pmem-persist", "--points", "20", "--unsafe"]
    r = crash(pmemids, pool_dir, *args)
    summary = r.stdout.splitlines()[-1]
    assert r.returncode == 0, r.describe()
    assert summary.startswith("summary: violations in 1 of 1"), summary
    assert "1 the design's (rbtree pmem-persist: not failure-atomic by design" in summary, summary
    assert "NOT expected" not in summary and summary.endswith("exit 0 (--fail-on-violation makes it 3)")
    r = crash(pmemids, pool_dir, *args, "--fail-on-violation")
    assert r.returncode == 3 and r.stdout.splitlines()[-1].endswith("exit 3 (--fail-on-violation)")


def test_process_model_and_survive_are_recorded(pmemids, pool_dir, out_path):
    r = crash(pmemids, pool_dir, "--ds", "hashtable", "--mode", "pmem-trans", "--points", "3",
              "--model", "process", "--out", str(out_path), *SMALL)
    assert r.returncode == 0, r.describe()
    r = crash(pmemids, pool_dir, "--ds", "hashtable", "--mode", "pmem-persist", "--points", "3",
              "--survive", "random", "--survive-probability", "0.25", "--out", str(out_path),
              *SMALL)
    assert r.returncode == 0, r.describe()
    proc, power = read_records(out_path)
    assert proc["config"]["model"] == "process" and proc["metrics"]["points"] == 3
    assert proc["metrics"]["recovered"] == 3
    assert power["config"]["survive"] == "random"
    assert power["config"]["survive_probability"] == 0.25


def test_points_all_checks_every_point_and_grain_is_recorded(pmemids, pool_dir, out_path):
    r = crash(pmemids, pool_dir, "--ds", "linkedlist", "--mode", "pmem-persist", "--points",
              "all", "--out", str(out_path), "-p", "recordcount=8", "-p", "operationcount=12")
    assert r.returncode == 0, r.describe()
    rec = read_records(out_path)[-1]
    assert rec["config"]["points_requested"] == "all"
    assert rec["config"]["grain"] == 64
    m = rec["metrics"]
    assert m["points"] == m["points_available"] > 12, m
    assert re.search(r"^  --points N\|all=100 ", pmemids("crash", "--help").stdout, re.M)
    r = crash(pmemids, pool_dir, "--ds", "linkedlist", "--mode", "pmem-persist", "--points", "3",
              "--survive", "random", "--grain", "8", "--out", str(out_path), *SMALL)
    assert r.returncode == 0, r.describe()
    rec = read_records(out_path)[-1]
    assert rec["config"]["grain"] == 8 and rec["config"]["points_requested"] == 3
    assert rec["metrics"]["points"] == 3


def test_torn_overwrites_are_counted_apart_not_as_violations(pmemids, pool_dir, out_path):
    # The hashtable overwrites a value in place under one persist: with lines
    # surviving at random, some in-flight update is torn at some point of this
    # stream. That is its declared design (torn_value_modes), not a violation;
    # in pmem-trans the same tear would be half-applied (torn_values null).
    args = ["--ds", "hashtable", "--points", "all", "--survive", "random", "--fail-on-violation",
            "-p", "recordcount=8", "-p", "operationcount=40", "-p", "updateproportion=1",
            "-p", "insertproportion=0", "-p", "deleteproportion=0", "--out", str(out_path)]
    r = crash(pmemids, pool_dir, "--mode", "pmem-persist", *args)
    assert r.returncode == 0, r.describe()
    rec = read_records(out_path)[-1]
    m = rec["metrics"]
    assert m["torn_values"] > 0 and m["half_applied"] == 0 and not m["violation"], m
    assert rec["config"]["overwrite_atomic"] is False and rec["config"]["failure_atomic"] is True
    assert f"hashtable pmem-persist: {m['torn_values']} in-flight update(s) left a torn value" \
        in r.stderr, r.describe()
    torn_column = r.stdout.splitlines()[0].split().index("torn")
    assert r.stdout.splitlines()[1].split()[torn_column] == str(m["torn_values"])
    r = crash(pmemids, pool_dir, "--mode", "pmem-trans", *args)
    assert r.returncode == 0, r.describe()
    rec = read_records(out_path)[-1]
    assert rec["metrics"]["torn_values"] is None and rec["metrics"]["half_applied"] == 0
    assert rec["config"]["overwrite_atomic"] is True
    assert r.stdout.splitlines()[1].split()[torn_column] == "-"


def test_violations_exit_3_only_with_fail_on_violation(pmemids, pool_dir, out_path):
    # The B-tree's in-place shifts in pmem-persist are exposed by design: over
    # every point of this stream some crash loses or tears a key.
    args = ["--ds", "btree", "--mode", "pmem-persist", "--points", "100000",
            "-p", "recordcount=20", "-p", "operationcount=30", "--out", str(out_path)]
    r = crash(pmemids, pool_dir, *args)
    assert r.returncode == 0, r.describe()
    rec = read_records(out_path)[-1]
    m = rec["metrics"]
    assert m["invariant_failures"] + m["lost_acknowledged"] + m["half_applied"] > 0, m
    assert rec["config"]["failure_atomic"] is False
    assert "btree pmem-persist: not failure-atomic by design" in r.stderr, r.describe()
    r = crash(pmemids, pool_dir, *args, "--fail-on-violation")
    assert r.returncode == 3, r.describe()
    r = crash(pmemids, pool_dir, "--ds", "skiplist", "--mode", "pmem-trans", "--points", "3",
              "--fail-on-violation", *SMALL, "--out", str(out_path))
    assert r.returncode == 0, r.describe()
    assert read_records(out_path)[-1]["config"]["failure_atomic"] is True
    assert "not failure-atomic" not in r.stderr, r.describe()


@pytest.mark.parametrize("args, message", [
    (["--ds", "nosuch", "--points", "3"], "unknown data structure 'nosuch'"),
    (["--ds", "blackhole", "--points", "3"], "measures the harness"),
    (["--ds", "linkedlist", "--mode", "dram"], "nothing to crash-test"),
    (["--ds", "linkedlist", "--mode", "pmem-volatile"], "nothing to crash-test"),
    (["--ds", "linkedlist", "--mode", "fast"], "unknown mode 'fast'"),
    (["--ds", "linkedlist", "--points", "0"], "--points 0"),
    (["--ds", "linkedlist", "--points", "-4"], "--points -4"),
    (["--ds", "linkedlist", "--points", "every"], "--points every"),
    (["--ds", "linkedlist", "--points", "3x"], "--points 3x"),
    (["--ds", "linkedlist", "--survive", "random", "--grain", "16"], "--grain"),
    (["--ds", "linkedlist", "--grain", "8"], "--grain 8"),
    (["--points", "3"], "--ds"),
    (["--ds", "linkedlist", "--all"], "--ds"),
    (["--ds", "linkedlist", "--model", "cosmic-ray"], "--model"),
])
def test_bad_input_is_exit_2(pmemids, pool_dir, args, message):
    r = crash(pmemids, pool_dir, *args, *SMALL)
    assert r.returncode == 2, r.describe()
    assert message in r.stderr, r.describe()


def test_missing_pool_dir_is_exit_2(pmemids, pool_dir):
    missing = pool_dir / "nope"
    r = pmemids("crash", "--ds", "linkedlist", "--points", "2", "--pool-dir", str(missing), *SMALL)
    assert r.returncode == 2, r.describe()
    assert str(missing) in r.stderr and "does not exist" in r.stderr


def test_pool_dir_from_environment(pmemids, pool_dir):
    r = pmemids("crash", "--ds", "arraylist", "--mode", "pmem-trans", "--points", "2", *SMALL,
                env={"PMEMIDS_POOL_DIR": str(pool_dir / "missing")})
    assert r.returncode == 2, r.describe()
    assert "missing" in r.stderr


MUTANTS = sorted((Path(__file__).resolve().parents[2] / "tests" / "mutation").glob("*.sed"))


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda p: p.stem)
def test_each_mutant_names_unit_tests_that_exist(binary, mutant):
    """scripts/mutation.sh runs a mutant's `tests:` gtest filter against the crash suites;
    a filter that matches no test passes every mutant (gtest runs nothing and exits 0)."""
    suite = Path(binary).parent / "pmemids_tests"
    if not suite.exists():
        pytest.skip(f"{suite} not built (the crash suites are in it)")
    (line,) = [l for l in mutant.read_text().splitlines() if l.startswith("# tests:")]
    pattern = line.split(":", 1)[1].strip()
    listed = subprocess.run([str(suite), "--gtest_list_tests", f"--gtest_filter={pattern}"],
                            capture_output=True, text=True, timeout=60, check=True).stdout
    assert any(l.startswith("  ") for l in listed.splitlines()), \
        f"{mutant.name}: '{pattern}' matches no test"
