"""CLI tests for `pmemids sweep`.

A sweep expands a TOML file into `pmemids run` configurations, runs each as a
child process and appends its records, stamped with a "sweep" object, to --out:
a configuration is recorded whole or not at all, already recorded ones are not
run again, progress goes to stderr and stdout stays empty.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from conftest import REPO, WORKLOADS, Result, read_records

SWEEPS = REPO / "sweeps"
WRITE = WORKLOADS / "pmemids-write"
READ = WORKLOADS / "pmemids-read"

# Shipped files: configurations per scale.
SHIPPED = {
    "fig3-single-thread.toml": {"default": 56, "quick": 56, "paper": 56},
    "fig5-btree-embedded.toml": {"default": 16, "quick": 16, "paper": 16},
    "fig6-parallel.toml": {"default": 224, "quick": 112, "paper": 280},
    "fig7-concurrent.toml": {"default": 56, "quick": 56, "paper": 56},
    "fig8-locks.toml": {"default": 8, "quick": 8, "paper": 20},
    "fig9-numa.toml": {"default": 112, "quick": 112, "paper": 112},
    "seed002-r5-flush-cold.toml": {"default": 14, "quick": 14, "paper": 14},
    "seed002-fig15-slot-flush.toml": {"default": 8, "quick": 8, "paper": 8},
    "seed003-readmissrate.toml": {"default": 8, "quick": 8, "paper": 8},
    "seed004-numa.toml": {"default": 4, "quick": 4, "paper": 10},
    "seed004-numa-spread.toml": {"default": 4, "quick": 4, "paper": 10},
    "seed004-requests.toml": {"default": 60, "quick": 60, "paper": 100},
    "seed004-smt.toml": {"default": 8, "quick": 8, "paper": 16},
    "seed004-stacks.toml": {"default": 15, "quick": 15, "paper": 25},
    "seed004-volatile-requests.toml": {"default": 6, "quick": 6, "paper": 10},
    "seed004-waiting.toml": {"default": 108, "quick": 108, "paper": 180},
    "table3-llc.toml": {"default": 15, "quick": 15, "paper": 15},
    "table3-llc-sim.toml": {"default": 45, "quick": 30, "paper": 150},
    "seed002-fig11-lists.toml": {"default": 360, "quick": 32, "paper": 360},
    "seed002-fig13-list-latency.toml": {"default": 6, "quick": 6, "paper": 6},
    "seed002-fig16-ring.toml": {"default": 8, "quick": 8, "paper": 8},
}
# Seed 002's lock-free structures: set and queue workloads, sized by operations only.
SEED_002 = {"seed002-fig11-lists.toml", "seed002-fig13-list-latency.toml",
            "seed002-fig15-slot-flush.toml", "seed002-fig16-ring.toml",
            "seed002-r5-flush-cold.toml"}  # R5's quick size is set by its premise (4x the LLC)


def write_sweep(d: Path, text: str, name: str = "s.toml") -> Path:
    p = d / name
    p.write_text(text)
    return p


def sweep(pmemids, *args, out: Path | None = None, pool: bool = True) -> Result:
    """`pmemids sweep ...` with the test's pool directory and, unless given, its --out."""
    args = [str(a) for a in args]
    if pool and "--pool-dir" not in args:
        args += ["--pool-dir", str(pmemids.pool_dir)]
    if "--dry-run" not in args and "--out" not in args:
        args += ["--out", str(out or pmemids.out)]
    res = pmemids("sweep", *args)
    o = Path(args[args.index("--out") + 1]) if "--out" in args else None
    res.out = o
    res.records = read_records(o) if o else []
    return res


def tiny(extra: str = "", matrix: str = 'ds = ["btree", "rbtree"]\nmode = ["dram", "pmem-persist"]',
         repeat: int = 2, records: int = 500) -> str:
    return f"""
workload = "{WRITE}"
repeat = {repeat}
{extra}
[matrix]
{matrix}
[properties]
recordcount = {records}
operationcount = {records}
"""


def expect_clean_lines(out: Path) -> None:
    data = out.read_bytes()
    assert data.endswith(b"\n"), "the output ends in a torn line"
    for line in data.decode().splitlines():
        json.loads(line)


def no_temp_files(d: Path) -> list[str]:
    return [p.name for p in d.iterdir() if p.name.endswith(".tmp")]


# ---------------------------------------------------------------- dry run


def test_dry_run_lists_run_command_lines(pmemids, tmp_path):
    f = write_sweep(tmp_path, tiny(matrix='ds = ["btree", "rbtree"]\n'
                                          'mode = ["dram", "pmem-persist"]\n'
                                          'threads = "1:*2:4"'))
    r = sweep(pmemids, f, "--dry-run", pool=False)
    assert r.returncode == 0, r.describe()
    lines = r.stdout.splitlines()
    assert len(lines) == 2 * 2 * 3
    assert all(l.startswith("pmemids run --ds ") for l in lines), r.stdout
    assert "--ds btree --mode dram --repeat 2 --threads 1 --workload" in lines[0]
    assert f"-p operationcount=500 -p recordcount=500" in lines[0]
    assert "--ds rbtree --mode pmem-persist --repeat 2 --threads 4" in lines[-1]
    assert "12 configurations" in r.stderr
    assert not (tmp_path / "results").exists() and not pmemids.out.exists()


def test_a_sweep_file_anywhere_names_shipped_workloads(pmemids, tmp_path):
    """Neither the current directory nor the file's directory has workloads/: the
    binary's source tree (or installation) supplies workloads/pmemids-read, and the
    configuration's id is that of the path as written."""
    text = tiny(matrix='ds = ["btree"]\nmode = ["dram"]').replace(f'"{WRITE}"', '"workloads/pmemids-write"')
    f = write_sweep(tmp_path, text)
    r = sweep(pmemids, f, "--dry-run", pool=False)
    assert r.returncode == 0, r.describe()
    assert f"--workload {WORKLOADS / 'pmemids-write'} " in r.stdout, r.stdout
    missing = write_sweep(tmp_path, text.replace("pmemids-write", "pmemids-nosuch"))
    r = sweep(pmemids, missing, "--dry-run", pool=False)
    assert r.returncode == 2 and "workloads/pmemids-nosuch" in r.stderr, r.describe()


@pytest.mark.parametrize("scale", ["default", "quick", "paper"])
@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_sweep_files_expand(pmemids, name, scale):
    # Run from a directory outside the repository: workload paths are found from the file.
    r = pmemids("sweep", SWEEPS / name, "--scale", scale, "--dry-run")
    assert r.returncode == 0, r.describe()
    lines = r.stdout.splitlines()
    assert len(lines) == SHIPPED[name][scale], r.describe()
    assert f"{SHIPPED[name][scale]} configurations" in r.stderr
    assert all(l.startswith("pmemids run ") for l in lines)
    assert len(set(lines)) == len(lines)
    if "--counters" in lines[0]:  # Table III: its own scales (docs/counters.md)
        return
    if "stack-pushpop" in lines[0]:  # seed 004: stacks start empty; its paper size is 1M pairs
        assert all("recordcount" not in l for l in lines)
        if scale == "paper":
            assert all("operationcount=2000000" in l and "--repeat 10" in l for l in lines)
        if scale == "quick":
            assert all("--min-time 0.2" in l and "--repeat 3" in l for l in lines)
        return
    if scale == "paper" and name not in SEED_002:
        assert all("recordcount=1000000" in l and "operationcount=1000000" in l for l in lines)
    if scale == "paper":
        assert all("--repeat 10" in l for l in lines)
    if scale == "quick" and name not in SEED_002:  # reproduce --scale quick: a minute per claim
        assert all("recordcount=20000 " in l + " " for l in lines)


def test_every_shipped_file_is_tested():
    assert sorted(p.name for p in SWEEPS.glob("*.toml")) == sorted(SHIPPED)


def test_fig8_has_the_papers_four_lock_cases(pmemids):
    r = pmemids("sweep", SWEEPS / "fig8-locks.toml", "--dry-run")
    cases = {(l.split("--mode ")[1].split()[0], l.split("--lock ")[1].split()[0])
             for l in r.stdout.splitlines()}
    assert cases == {("pmem-volatile", "pthread-dram"), ("pmem-volatile", "pthread-pmem"),
                     ("pmem-persist", "pmemobj"), ("pmem-persist", "pthread-dram")}


# ---------------------------------------------------------------- a real sweep


def test_tiny_sweep_records_everything_with_sweep_ids(pmemids, tmp_path):
    f = write_sweep(tmp_path, tiny())
    r = sweep(pmemids, f, "--no-interleave")
    assert r.returncode == 0, r.describe()
    assert r.stdout == ""
    recs = r.records  # per configuration: two repetitions and their aggregate
    assert len(recs) == 4 * 3
    ids = Counter(rec["sweep"]["config_id"] for rec in recs)
    assert len(ids) == 4 and set(ids.values()) == {3}
    for i, rec in enumerate(recs):
        s = rec["sweep"]
        assert s["file"] == str(f) and s["scale"] == "default"
        assert s["index"] == i // 3 and s["total"] == 4
        assert s["record"] == i % 3 and s["records"] == 3
        assert len(s["config_id"]) == 16
        assert rec["config"]["recordcount"] == 500
        if i % 3 == 2:
            assert rec["aggregate"] is True and rec["metrics"]["repetitions"] == 2
        else:
            assert rec["config"]["repetition"] == i % 3
    assert [(rec["config"]["ds"], rec["config"]["mode"]) for rec in recs[::3]] == [
        ("btree", "dram"), ("btree", "pmem-persist"),
        ("rbtree", "dram"), ("rbtree", "pmem-persist")]
    # Progress on stderr, one line per configuration.
    progress = [l for l in r.stderr.splitlines() if l.startswith("[")]
    assert len(progress) == 4, r.stderr
    assert progress[0].startswith("[1/4] ds=btree mode=dram ok ")
    assert progress[3].startswith("[4/4] ds=rbtree mode=pmem-persist ok ")
    assert all(" elapsed " in l and " ETA " in l for l in progress)
    assert no_temp_files(pmemids.out.parent) == []
    # Each configuration ran in a pool directory of its own, removed afterwards.
    assert {rec["config"]["pool_dir"] for rec in recs} == {
        str(pmemids.pool_dir / f"sweep-{i}") for i in ids}
    assert list(pmemids.pool_dir.iterdir()) == []
    # The dry run's ids agree with the records': a rerun finds everything done.
    again = sweep(pmemids, f, "--no-interleave")
    assert again.returncode == 0 and len(again.records) == 12, again.describe()
    assert "4 already in" in again.stderr and "0 to run" in again.stderr
    dry = sweep(pmemids, f, "--dry-run", "--out", pmemids.out, pool=False)
    assert "4 already recorded" in dry.stderr, dry.describe()


def test_repetitions_interleave_across_configurations_by_default(pmemids, tmp_path):
    f = write_sweep(tmp_path, tiny(repeat=2, matrix='ds = ["btree", "rbtree"]\nmode = "dram"'))
    r = sweep(pmemids, f)
    assert r.returncode == 0, r.describe()
    recs = r.records
    # Round 0: one record per configuration; round 1: the record and the aggregate.
    assert [(x["config"]["ds"], x["sweep"]["repetition"], "aggregate" in x) for x in recs] == [
        ("btree", 0, False), ("rbtree", 0, False),
        ("btree", 1, False), ("btree", 1, True), ("rbtree", 1, False), ("rbtree", 1, True)]
    for x in recs:
        assert x["config"]["repeat"] == 2 and x["sweep"]["repetitions"] == 2
    runs = [x for x in recs if "aggregate" not in x]
    assert [x["config"]["repetition"] for x in runs] == [0, 0, 1, 1]
    for agg in (recs[3], recs[5]):
        mine = [x["metrics"]["ops_per_sec"] for x in runs if x["config"]["ds"] == agg["config"]["ds"]]
        assert agg["metrics"]["ops_per_sec_mean"] == pytest.approx(sum(mine) / 2)
    progress = [l for l in r.stderr.splitlines() if l.startswith("[")]
    assert [l.split(" ok ")[0] for l in progress] == [
        "[1/4] ds=btree rep 1/2", "[2/4] ds=rbtree rep 1/2",
        "[3/4] ds=btree rep 2/2", "[4/4] ds=rbtree rep 2/2"]
    again = sweep(pmemids, f)
    assert "2 already in" in again.stderr and len(again.records) == 6, again.describe()


def test_shipped_sweeps_use_min_time_and_three_repetitions(pmemids):
    for name in SHIPPED:
        r = pmemids("sweep", SWEEPS / name, "--dry-run")
        lines = r.stdout.splitlines()
        # A simulated run gets its repetitions as runs of different seeds (docs/counters.md).
        assert lines and all("--min-time 0.5" in l and ("--repeat 3" in l or "--counters sim" in l)
                             for l in lines), name


def test_default_out_is_named_after_the_file_and_scale(pmemids, tmp_path):
    f = write_sweep(tmp_path, tiny(repeat=1, matrix='ds = "btree"\nmode = "dram"')
                    + '[scale.small.properties]\nrecordcount = 100\n', name="mine.toml")
    r = pmemids("sweep", f, "--pool-dir", pmemids.pool_dir, "--scale", "small")
    assert r.returncode == 0, r.describe()
    out = tmp_path / "results" / "mine-small.jsonl"
    recs = read_records(out)
    assert len(recs) == 1 and recs[0]["config"]["recordcount"] == 100


# ---------------------------------------------------------------- resume


def test_resume_after_sigkill_loses_nothing_and_repeats_nothing(pmemids, tmp_path):
    f = write_sweep(tmp_path, tiny(matrix='ds = ["btree", "rbtree", "skiplist"]\n'
                                          'mode = ["pmem-persist", "pmem-trans"]',
                                   repeat=1, records=20000))
    out = pmemids.out
    args = [str(pmemids.binary), "sweep", str(f), "--out", str(out), "--pool-dir",
            str(pmemids.pool_dir)]
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not read_records(out):
        time.sleep(0.02)
    p.send_signal(signal.SIGKILL)
    p.communicate(timeout=10)
    first = read_records(out)
    assert 1 <= len(first) < 6, "the sweep finished before it could be killed"

    r = sweep(pmemids, f)
    assert r.returncode == 0, r.describe()
    expect_clean_lines(out)
    ids = Counter(rec["sweep"]["config_id"] for rec in r.records)
    assert len(ids) == 6 and set(ids.values()) == {1}, ids
    assert sorted(rec["sweep"]["index"] for rec in r.records) == list(range(6))
    # The killed run's pool did not block its rerun, and no pool is left behind.
    assert not any(rec.get("skipped") or rec.get("failed") for rec in r.records), r.records
    assert list(pmemids.pool_dir.iterdir()) == []
    assert f"{len(first)} already in" in r.stderr
    assert len([l for l in r.stderr.splitlines() if l.startswith("[")]) == 6 - len(first)
    assert no_temp_files(out.parent) == []


def test_interleaved_rounds_resume_after_sigkills_at_random_points(pmemids, tmp_path):
    """--interleave: killed at random points (between runs, in a run, in a round's
    calibration), resumed until done: every (round, configuration) cell once, each
    round's cells at the positions of the recorded seed's order, in that order."""
    f = write_sweep(tmp_path, tiny(matrix='ds = ["btree", "rbtree", "skiplist"]\nmode = "pmem-persist"',
                                   repeat=4, records=20000))
    out = pmemids.out
    args = [str(pmemids.binary), "sweep", str(f), "--interleave", "--out", str(out), "--pool-dir",
            str(pmemids.pool_dir)]
    runs = lambda: [r for r in read_records(out) if "aggregate" not in r]  # noqa: E731
    rng = random.Random(26)
    kills = 0
    while len(runs()) < 12 and kills < 8:
        target = len(runs()) + rng.randint(0, 2)
        p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and len(runs()) < target and p.poll() is None:
            time.sleep(0.01)
        time.sleep(rng.uniform(0, 0.15))
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=10)
        kills += 1
    assert kills >= 2, "the sweep finished before it could be killed twice"
    r = sweep(pmemids, f, "--interleave")
    assert r.returncode == 0, r.describe()
    expect_clean_lines(out)
    cells = Counter((x["sweep"]["round"], x["sweep"]["config_id"]) for x in runs())
    assert len(cells) == 12 and set(cells.values()) == {1}, cells
    assert len({x["sweep"]["order_seed"] for x in runs()}) == 1
    for k in range(4):
        this = [x["sweep"] for x in runs() if x["sweep"]["round"] == k]
        assert sorted(s["position"] for s in this) == [0, 1, 2]
        # Sessions ran the round's cells in the order of their positions.
        for session in {s["session"] for s in this}:
            mine = [s["position"] for s in this if s["session"] == session]
            assert mine == sorted(mine), this
    assert sum(1 for x in r.records if x.get("aggregate")) == 3
    assert list(pmemids.pool_dir.iterdir()) == []
    assert no_temp_files(out.parent) == []


def test_torn_end_is_cut_before_resuming(pmemids, tmp_path):
    f = write_sweep(tmp_path, tiny(repeat=1))
    r = sweep(pmemids, f)
    assert r.returncode == 0, r.describe()
    whole = pmemids.out.read_bytes()
    lines = whole.splitlines(keepends=True)
    # Drop the last configuration and leave half of its line, as a kill in write() would.
    pmemids.out.write_bytes(b"".join(lines[:-1]) + lines[-1][:40])
    r = sweep(pmemids, f)
    assert r.returncode == 0, r.describe()
    assert "cut 40 bytes" in r.stderr
    expect_clean_lines(pmemids.out)
    assert len(r.records) == 4
    assert len({rec["sweep"]["config_id"] for rec in r.records}) == 4


def test_sigterm_stops_without_recording_the_interrupted_run(pmemids, tmp_path):
    f = write_sweep(tmp_path, tiny(matrix='ds = ["btree", "rbtree", "skiplist"]\n'
                                          'mode = ["pmem-persist", "pmem-trans"]',
                                   repeat=1, records=20000))
    args = [str(pmemids.binary), "sweep", str(f), "--out", str(pmemids.out), "--pool-dir",
            str(pmemids.pool_dir)]
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
                         text=True)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not read_records(pmemids.out):
        time.sleep(0.02)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=20)
    recs = read_records(pmemids.out)
    if len(recs) == 6:
        pytest.skip("the sweep finished before SIGTERM arrived")
    assert p.returncode == 143, err  # 128 + SIGTERM
    assert "interrupted; run the same command again to resume" in err
    assert not any(rec.get("failed") for rec in recs)
    expect_clean_lines(pmemids.out)
    assert no_temp_files(pmemids.out.parent) == []


# ---------------------------------------------------------------- skipped and failed


def test_configuration_run_refuses_is_skipped_and_the_sweep_goes_on(pmemids, tmp_path):
    # hashtable cannot scan: `run` exits 2 for it; btree runs.
    f = write_sweep(tmp_path, tiny(repeat=1, matrix='ds = ["hashtable", "btree"]\nmode = "dram"',
                                   extra="")
                    + "readproportion = 0.5\nupdateproportion = 0\ninsertproportion = 0\n"
                      "scanproportion = 0.5\nmaxscanlength = 10\n")
    r = sweep(pmemids, f)
    assert r.returncode == 0, r.describe()
    skipped, ran = r.records
    assert skipped["skipped"] is True and skipped["schema_version"] == 1
    assert "hashtable cannot scan" in skipped["reason"]
    assert skipped["config"]["ds"] == "hashtable"
    assert skipped["config"]["scanproportion"] == 0.5
    assert skipped["config"]["workload"] == "pmemids-write"
    assert skipped["sweep"]["index"] == 0 and skipped["sweep"]["total"] == 2
    assert ran["config"]["ds"] == "btree" and "metrics" in ran
    assert "[1/2] ds=hashtable skipped (hashtable cannot scan" in r.stderr
    # Skipped configurations are not run again unless asked.
    again = sweep(pmemids, f)
    assert "2 already in" in again.stderr and len(again.records) == 2
    retry = sweep(pmemids, f, "--retry-skipped")
    assert "1 to run" in retry.stderr and len(retry.records) == 3


def test_numa_node_missing_here_is_skipped(pmemids, tmp_path):
    # One NUMA node here (or NUMA binding not implemented yet): `run` exits 2.
    f = write_sweep(tmp_path, tiny(repeat=1, matrix='ds = "btree"\nmode = "dram"\ncpu-node = [7]'))
    r = sweep(pmemids, f)
    assert r.returncode == 0, r.describe()
    assert len(r.records) == 1
    rec = r.records[0]
    assert rec["skipped"] is True and rec["reason"], rec
    assert rec["config"]["cpu_node"] == 7


def test_failed_configuration_is_recorded_and_retried(pmemids, tmp_path):
    # A 9 MiB pool cannot hold 200k records: the run fails (exit 1) loading them.
    f = write_sweep(tmp_path, f"""
ds = "btree"
workload = "{WRITE}"
[matrix]
mode = ["pmem-persist", "dram"]
pool-size = ["9M"]
[properties]
recordcount = 200000
operationcount = 100
""")
    r = sweep(pmemids, f)
    assert r.returncode == 1, r.describe()
    failed, ran = r.records
    assert failed["failed"] is True and failed["exit_code"] == 1
    assert "pool full" in failed["reason"]
    assert ran["config"]["mode"] == "dram" and "metrics" in ran
    assert "FAILED (" in r.stderr
    assert any(l.startswith("pmemids: error: some configurations failed")
               for l in r.stderr.splitlines())
    again = sweep(pmemids, f)
    assert again.returncode == 1 and "1 to run" in again.stderr, again.describe()
    assert len(again.records) == 3


# ---------------------------------------------------------------- bad files

BASE = 'ds = "btree"\nmode = "dram"\n'
BAD = {  # file text, pieces of the error message
    "unknown_key": (BASE + 'colour = "red"\n', ["colour", "unknown key", "accepted:"]),
    "unknown_matrix_key": ('ds = "btree"\n[matrix]\nmodes = ["dram"]\n',
                           ["matrix.modes", "unknown option"]),
    "bad_range": (BASE + '[matrix]\nthreads = "4:1"\n',
                  ["matrix.threads", "'4:1'", "accepted: \"a:b\""]),
    "bad_range_factor": (BASE + '[matrix]\nthreads = "1:*1:16"\n',
                         ["matrix.threads", "factor 1", "\"a:*f:b\""]),
    "wrong_type": (BASE + 'repeat = "many"\n', ["repeat", "many", "accepted: INT"]),
    "wrong_type_flag": (BASE + 'keep-pool = "yes"\n', ["keep-pool", "accepted: true or false"]),
    "out_in_file": (BASE + 'out = "x.jsonl"\n', ["out", "not allowed"]),
    "reopen_in_file": (BASE + 'reopen = true\n', ["reopen", "not supported"]),
    "unknown_ds": ('ds = "btre"\nmode = "dram"\n', ["ds", "btre", "rbtree"]),
    "unknown_property": (BASE + '[properties]\nrecordcont = 5\n', ["properties", "recordcont"]),
    "toml_syntax": ('ds = "btree"\nmode = = "dram"\n', [":2:", "TOML syntax"]),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_file_is_exit_2_naming_file_and_key(pmemids, tmp_path, case):
    text, needles = BAD[case]
    f = write_sweep(tmp_path, text, name=f"{case}.toml")
    for extra in (["--dry-run"], []):
        r = sweep(pmemids, f, *extra)
        assert r.returncode == 2, r.describe()
        errors = r.error_lines()
        assert len(errors) == 1, r.describe()
        assert errors[0].startswith(f"pmemids: error: {f}"), r.describe()
        for n in needles:
            assert n in errors[0], f"{n!r} not in {errors[0]!r}"
        assert r.stdout == ""
        assert not pmemids.out.exists()


def test_missing_file_is_exit_2(pmemids, tmp_path):
    r = sweep(pmemids, tmp_path / "nope.toml", "--dry-run")
    assert r.returncode == 2, r.describe()
    assert f"sweep file '{tmp_path / 'nope.toml'}' cannot be read: No such file" in r.stderr


def test_unknown_scale_is_exit_2(pmemids):
    r = pmemids("sweep", SWEEPS / "fig3-single-thread.toml", "--scale", "huge", "--dry-run")
    assert r.returncode == 2, r.describe()
    assert "scale: no [scale.huge]" in r.stderr and "accepted: default, quick, paper" in r.stderr


def test_dry_run_estimate_counts_repeat_times_min_time(binary, tmp_path):
    """fig3-single-thread: 56 configurations x 3 repetitions x min-time 0.5 s is 84 s of
    timed phases alone; the estimate's bound says at least that, and its expectation
    (src/sweep/estimate.h, calibrated on measured sweeps) more."""
    p = subprocess.run([str(binary), "sweep", str(REPO / "sweeps" / "fig3-single-thread.toml"),
                        "--dry-run"], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    unit = {"s": 1, "min": 60, "h": 3600}
    m = re.search(r"at least ([0-9.]+) (s|min|h); expected about ([0-9.]+) (s|min|h)", p.stderr)
    assert m, p.stderr
    least = float(m.group(1)) * unit[m.group(2)]
    expected = float(m.group(3)) * unit[m.group(4)]
    assert 84 <= least < expected, p.stderr
