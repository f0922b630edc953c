"""--counters through the binary: perf with software events, the refusal where
there is no PMU, and sim (callgrind) counting the timed phase only."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import READ_ONLY, WORKLOADS
from test_cli import expect_ok, expect_usage_error

INSERTS = ["-p", "readproportion=0", "-p", "updateproportion=0", "-p", "insertproportion=1",
           "-p", "fieldlength=4000"]
HARDWARE = ["cycles", "instructions", "branch_misses", "llc_loads", "llc_misses", "l1d_misses",
            "dtlb_misses"]


def has_pmu() -> bool:
    """What the binary's own probe would find first: a core PMU listed by the kernel."""
    root = Path("/sys/bus/event_source/devices")
    return root.is_dir() and any(p.name in ("cpu", "cpu_core", "cpu_atom") or p.name.startswith("armv")
                                 or (p / "events" / "cpu-cycles").exists() for p in root.iterdir())


def software_run(pmemids, operations: int) -> dict:
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", "-p", "recordcount=100",
                    "-p", f"operationcount={operations}", *INSERTS,
                    "--counters", "perf", "--perf-events", "software")
    [rec] = expect_ok(r)
    return rec


def test_software_events_follow_the_memory_the_timed_phase_touches(pmemids):
    small, large = software_run(pmemids, 500), software_run(pmemids, 5000)
    for rec in (small, large):
        m = rec["metrics"]
        assert rec["config"]["counters"] == "perf" and rec["context"]["counters"] == "perf"
        assert isinstance(m["page_faults"], (int, float))
        # Hardware events were not asked for: null with the reason, never 0.
        for e in HARDWARE:
            assert m[e] is None and m[f"{e}_per_op"] is None
            assert m["perf_unavailable"][e] == "not selected (--perf-events)"
        assert m["llc_miss_ratio"] is None
        if m["context_switches"] is None:
            assert "kernel" in m["perf_unavailable"]["context_switches"]
        else:
            assert m["context_switches"] >= 0
    # Ten times the 4 KB inserts (a page each): many times the page faults.
    assert large["metrics"]["page_faults"] > 5 * max(small["metrics"]["page_faults"], 50)
    assert small["metrics"]["page_faults"] >= 400


@pytest.mark.skipif(has_pmu(), reason="this machine has a PMU")
def test_hardware_events_without_a_pmu_are_refused_naming_sim(pmemids, out_path):
    for extra in ([], ["--perf-events", "all"], ["--perf-events", "instructions,page_faults"]):
        r = pmemids.run("--ds", "btree", "--mode", "dram", "-p", "recordcount=100",
                        "-p", "operationcount=100", "--counters", "perf", *extra)
        msg = expect_usage_error(r, "no hardware performance counters")
        assert "--counters sim" in msg and "perf_event_open" in msg
    assert not out_path.exists()


@pytest.mark.skipif(not has_pmu(), reason="this machine has no PMU")
def test_hardware_events_with_a_pmu_are_counted_or_null_with_a_reason(pmemids):
    r = pmemids.run("--ds", "btree", "--mode", "dram", "-p", "recordcount=1000",
                    "-p", "operationcount=1000", "--counters", "perf")
    [rec] = expect_ok(r)
    m = rec["metrics"]
    for e in HARDWARE:
        assert m[e] is None and m["perf_unavailable"][e] or m[e] > 0


@pytest.mark.parametrize("args, says", [
    (["--perf-events", "software"], "--perf-events applies to --counters perf only"),
    (["--counters", "perf", "--perf-events", "cache-misses"], "unknown event 'cache-misses'"),
    (["--counters", "sometimes"], "--counters"),
    (["--sim-instrument", "timed"], "--sim-instrument applies to --counters sim only"),
])
def test_counter_options_that_cannot_run_are_refused(pmemids, args, says):
    r = pmemids.run("--ds", "btree", "--mode", "dram", "-p", "recordcount=10",
                    "-p", "operationcount=10", *args)
    expect_usage_error(r, says)


needs_valgrind = pytest.mark.skipif(shutil.which("valgrind") is None, reason="no valgrind")


def sim_run(pmemids, operations: int, *extra: str) -> dict:
    r = pmemids.run("--ds", "arraylist", "--mode", "pmem-persist", "-P", WORKLOADS / "pmemids-read",
                    "-p", "recordcount=3000", "-p", f"operationcount={operations}",
                    "-p", "requestdistribution=uniform", *READ_ONLY, "--latency-sample", "0",
                    "--counters", "sim", *extra)
    [rec] = expect_ok(r)
    return rec


@needs_valgrind
def test_sim_counts_the_timed_phase_only(pmemids, pool_dir):
    """Instructions per read of an arraylist (uniform keys, no latency timing) are the
    timed loop's alone: the same per operation at 1000 and 3000 reads within 5%, where
    counting any of the 3000 untimed inserts of the load (each costs more than a read)
    would add several times a read's count at 1000 reads and a third of that at 3000;
    and the same whether the load warmed the simulated caches or not."""
    a, b = sim_run(pmemids, 1000), sim_run(pmemids, 3000)
    timed = sim_run(pmemids, 1000, "--sim-instrument", "timed")
    ia, ib = a["metrics"]["sim_instructions_per_op"], b["metrics"]["sim_instructions_per_op"]
    it = timed["metrics"]["sim_instructions_per_op"]
    assert 10 < ia < 1000
    assert ib == pytest.approx(ia, rel=0.05)
    assert it == pytest.approx(ia, rel=0.01)
    m, ctx = a["metrics"], a["context"]
    assert ctx["counters"] == "simulated" and a["config"]["counters"] == "sim"
    assert "not this machine's" in ctx["sim"]["model"]
    assert ctx["sim"]["LL"].endswith("64 B lines")
    assert 0 <= m["sim_ll_miss_ratio"] <= 1 and 0 <= m["sim_d1_miss_ratio"] <= 1
    assert m["sim_events"]["Ir"] == pytest.approx(ia * 1000)
    assert not [p for p in pool_dir.iterdir() if p.name.startswith(".pmemids-callgrind")]


@needs_valgrind
def test_sim_refuses_bad_options_before_starting_valgrind(pmemids):
    r = pmemids.run("--ds", "nosuch", "--mode", "dram", "--counters", "sim")
    msg = expect_usage_error(r, "nosuch")
    assert "callgrind" not in r.stderr


@needs_valgrind
def test_sim_timed_runs_one_repetition_per_process(pmemids):
    for extra in (["--repeat", "2"], ["--warmup", "1"], ["--mode", "pmem-volatile,pmem-trans"]):
        args = ["--ds", "btree", "-p", "recordcount=10", "-p", "operationcount=10",
                "--counters", "sim", "--sim-instrument", "timed", *extra]
        if "--mode" not in extra:
            args += ["--mode", "dram"]
        r = pmemids.run(*args)
        msg = expect_usage_error(r, "--sim-instrument timed simulates the caches of one repetition")
        assert "--sim-instrument load" in msg and "runs under callgrind" not in r.stderr


@needs_valgrind
def test_sim_repetitions_in_one_process_each_count_their_timed_phase(pmemids):
    r = pmemids.run("--ds", "arraylist", "--mode", "dram", "-p", "recordcount=2000",
                    "-p", "operationcount=1000", *READ_ONLY, "-p", "requestdistribution=uniform",
                    "--latency-sample", "0", "--counters", "sim", "--repeat", "2")
    recs = expect_ok(r, records=3)
    first, second = (x["metrics"]["sim_instructions_per_op"] for x in recs[:2])
    assert first > 10 and second == pytest.approx(first, rel=0.05)
