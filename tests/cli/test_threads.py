"""Thread modes, locks, placement, duration/timeline, latency sampling and
repetition statistics, through the binary."""

from __future__ import annotations

import os
import statistics

import pytest

from conftest import TINY
from test_cli import expect_ok, expect_usage_error, pool_files

WRITE = ["-p", "readproportion=0", "-p", "updateproportion=0.8", "-p", "insertproportion=0.2"]


def test_parallel_runs_the_whole_workload_per_thread_on_its_own_pool(pmemids, pool_dir):
    r = pmemids.run("--ds", "hashtable", "--mode", "pmem-persist", "--thread-mode", "parallel",
                    "--threads", "2", "--keep-pool", *TINY, *WRITE)
    [rec] = expect_ok(r)
    m, c = rec["metrics"], rec["config"]
    assert c["thread_mode"] == "parallel" and c["threads"] == 2
    assert c["stream_seeds"] == [c["seed"], c["seed"] + 1]
    assert [t["ops"] for t in m["per_thread"]] == [500, 500]
    assert m["ops"] == 1000 and m["load_ops"] == 400
    assert m["sum_of_rates_ops_per_sec"] == pytest.approx(
        sum(t["ops_per_sec"] for t in m["per_thread"]))
    assert m["ops_per_sec"] == pytest.approx(m["ops"] / m["seconds"])
    assert pool_files(pool_dir) == ["hashtable.pmem-persist.0.pool", "hashtable.pmem-persist.1.pool"]


def test_parallel_reopen_uses_each_threads_pool(pmemids, pool_dir):
    expect_ok(pmemids.run("--ds", "btree", "--mode", "pmem-trans", "--thread-mode", "parallel",
                          "--threads", "2", "--keep-pool", *TINY))
    r = pmemids.run("--ds", "btree", "--mode", "pmem-trans", "--thread-mode", "parallel",
                    "--threads", "2", "--reopen", *TINY, "-p", "readproportion=1",
                    "-p", "updateproportion=0")
    [rec] = expect_ok(r)
    assert rec["metrics"]["read_found"] == 1000
    assert rec["metrics"]["recovery_seconds"] > 0


@pytest.mark.parametrize("mode,lock", [
    ("dram", "pthread-dram"), ("dram", "rwlock-dram"),
    ("pmem-volatile", "pthread-pmem"),
    ("pmem-persist", "pmemobj"), ("pmem-persist", "rwlock-pmemobj"),
    ("pmem-trans", "pthread-pmem"), ("pmem-trans", "rwlock-dram"),
])
def test_concurrent_slices_the_workload_under_the_chosen_lock(pmemids, mode, lock):
    r = pmemids.run("--ds", "rbtree", "--mode", mode, "--thread-mode", "concurrent",
                    "--threads", "2", "--lock", lock, *TINY)
    [rec] = expect_ok(r)
    assert rec["config"]["lock"] == lock
    assert rec["metrics"]["ops"] == 500
    assert [t["ops"] for t in rec["metrics"]["per_thread"]] == [250, 250]


@pytest.mark.parametrize("mode,lock", [("dram", "pthread-dram"), ("pmem-volatile", "pthread-dram"),
                                       ("pmem-persist", "pmemobj"), ("pmem-trans", "pmemobj")])
def test_concurrent_default_lock_follows_the_paper(pmemids, mode, lock):
    r = pmemids.run("--ds", "hashtable", "--mode", mode, "--thread-mode", "concurrent",
                    "--threads", "2", *TINY)
    assert expect_ok(r)[0]["config"]["lock"] == lock


def test_single_thread_records_no_lock(pmemids):
    [rec] = expect_ok(pmemids.run("--ds", "hashtable", "--mode", "dram", *TINY))
    assert rec["config"]["lock"] is None and rec["config"]["thread_mode"] == "single"
    assert len(rec["metrics"]["per_thread"]) == 1


@pytest.mark.parametrize("args,needles", [
    (["--mode", "dram", "--thread-mode", "concurrent", "--lock", "pmemobj"],
     ["--lock pmemobj does not fit mode dram", "pthread-dram, rwlock-dram"]),
    (["--mode", "pmem-volatile", "--thread-mode", "concurrent", "--lock", "rwlock-pmemobj"],
     ["does not fit mode pmem-volatile", "pthread-pmem"]),
    (["--mode", "dram", "--thread-mode", "concurrent", "--lock", "pthread-pmem"],
     ["does not fit mode dram"]),
    (["--mode", "all", "--thread-mode", "concurrent", "--lock", "pmemobj"], ["does not fit mode dram"]),
    (["--mode", "pmem-persist", "--thread-mode", "concurrent", "--lock", "spinlock"],
     ["unknown lock 'spinlock'", "rwlock-pmemobj"]),
    (["--mode", "pmem-persist", "--lock", "pmemobj"], ["--thread-mode concurrent only"]),
    (["--mode", "dram", "--thread-mode", "single", "--threads", "2"], ["--threads 2 needs --thread-mode"]),
    (["--mode", "dram", "--thread-mode", "bogus"], ["--thread-mode"]),
    (["--mode", "dram", "--pin", "everywhere"], ["--pin"]),
])
def test_thread_option_errors_are_usage_errors(pmemids, args, needles):
    r = pmemids.run("--ds", "hashtable", *args, *TINY)
    expect_usage_error(r, *needles, prefixed=not any(a in args for a in ("bogus", "everywhere")))


def numa_nodes() -> list[int]:
    base = "/sys/devices/system/node"
    if not os.path.isdir(base):
        return [0]
    return sorted(int(d[4:]) for d in os.listdir(base) if d.startswith("node") and d[4:].isdigit())


@pytest.mark.parametrize("flag", ["--cpu-node", "--mem-node"])
def test_missing_numa_node_is_exit_2_naming_the_nodes(pmemids, flag):
    nodes = numa_nodes()
    missing = max(nodes) + 1
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", flag, str(missing), *TINY)
    expect_usage_error(r, f"{flag} {missing}: no such NUMA node",
                       "this machine has node" + ("" if len(nodes) == 1 else "s"),
                       ", ".join(map(str, nodes)))


def test_existing_node_binds_threads_and_is_recorded(pmemids):
    node = numa_nodes()[0]
    r = pmemids.run("--ds", "hashtable", "--mode", "pmem-persist", "--cpu-node", str(node),
                    "--mem-node", str(node), *TINY)
    if r.returncode == 2 and "cannot set NUMA policies" in r.stderr:
        pytest.skip("this process cannot set NUMA policies")
    [rec] = expect_ok(r)
    assert rec["config"]["cpu_node"] == node and rec["config"]["mem_node"] == node
    cpus = rec["metrics"]["per_thread"][0]["cpus"]
    assert cpus and rec["metrics"]["per_thread"][0]["start_cpu"] in cpus


def test_compact_pinning_gives_each_thread_its_own_cpu(pmemids):
    n = min(2, len(os.sched_getaffinity(0)))
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", "--thread-mode", "parallel",
                    "--threads", str(n), "--pin", "compact", *TINY)
    [rec] = expect_ok(r)
    cpus = [t["cpus"] for t in rec["metrics"]["per_thread"]]
    assert all(len(c) == 1 for c in cpus)
    assert len({c[0] for c in cpus}) == n
    assert all(c[0] in os.sched_getaffinity(0) for c in cpus)
    assert all(t["start_cpu"] == t["cpus"][0] for t in rec["metrics"]["per_thread"])


def test_duration_on_a_reopened_pool(pmemids, pool_dir):
    expect_ok(pmemids.run("--ds", "bplustree", "--mode", "pmem-persist", "--keep-pool", *TINY))
    r = pmemids.run("--ds", "bplustree", "--mode", "pmem-persist", "--reopen", "--duration", "0.2",
                    *TINY)
    [rec] = expect_ok(r)
    assert rec["metrics"]["ops"] > 500 and rec["metrics"]["recovery_seconds"] > 0


def test_duration_replays_the_stream_and_timeline_covers_it(pmemids):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", "--duration", "0.3",
                    "--timeline-ms", "50", *TINY)
    [rec] = expect_ok(r)
    m = rec["metrics"]
    assert m["ops"] > 500  # replayed cyclically
    assert m["seconds"] >= 0.3
    assert len(m["timeline_ops_per_sec"]) >= 5 and all(x >= 0 for x in m["timeline_ops_per_sec"])
    assert rec["config"]["duration"] == 0.3 and rec["config"]["timeline_ms"] == 50


def test_latency_sampling_reports_percentiles_per_op_type(pmemids):
    r = pmemids.run("--ds", "skiplist", "--mode", "pmem-persist", "--latency-sample", "1", *TINY,
                    "-p", "readproportion=0.5", "-p", "updateproportion=0.5")
    [rec] = expect_ok(r)
    m = rec["metrics"]
    for op in ("read", "update"):
        assert m[f"latency_{op}_samples"] == m[f"{op}_ops"]
        values = [m[f"latency_{op}_{p}_ns"] for p in ("p50", "p90", "p99", "p999", "p9999", "max")]
        assert values == sorted(values) and values[0] > 0
        assert m[f"latency_{op}_mean_ns"] > 0
    assert "latency_insert_p50_ns" not in m


def test_latency_sampling_off_and_default(pmemids):
    [off] = expect_ok(pmemids.run("--ds", "hashtable", "--mode", "dram", "--latency-sample", "0",
                                  *TINY))
    assert not any(k.startswith("latency_") for k in off["metrics"])
    [default] = expect_ok(pmemids.run("--ds", "hashtable", "--mode", "dram",
                                      "-p", "operationcount=20000", "-p", "recordcount=200"))
    assert default["config"]["latency_sample"] == 0.01
    n = default["metrics"]["latency_read_samples"]
    assert 100 < n < 300  # about 1% of ~19,000 reads


def test_warmup_and_aggregate_records(pmemids):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", "--warmup", "1", "--repeat", "3", *TINY)
    recs = expect_ok(r, records=5)
    assert recs[0].get("warmup") is True
    reps = recs[1:4]
    assert all("warmup" not in x and "aggregate" not in x for x in reps)
    assert [x["config"]["repetition"] for x in reps] == [0, 1, 2]
    agg = recs[4]
    assert agg["aggregate"] is True and "repetition" not in agg["config"]
    values = [x["metrics"]["ops_per_sec"] for x in reps]
    a = agg["metrics"]
    assert a["repetitions"] == 3
    assert a["ops_per_sec_mean"] == pytest.approx(statistics.mean(values))
    assert a["ops_per_sec_median"] == pytest.approx(statistics.median(values))
    assert a["ops_per_sec_stddev"] == pytest.approx(statistics.stdev(values))
    assert a["ops_per_sec_min"] == min(values) and a["ops_per_sec_max"] == max(values)
    half = 4.302653 * statistics.stdev(values) / 3 ** 0.5
    assert a["ops_per_sec_ci95_low"] == pytest.approx(statistics.mean(values) - half, rel=1e-5)
    assert a["ops_per_sec_ci95_high"] == pytest.approx(statistics.mean(values) + half, rel=1e-5)
    assert "all" in r.stdout  # the aggregate row of the table


def test_single_repetition_writes_no_aggregate(pmemids):
    expect_ok(pmemids.run("--ds", "hashtable", "--mode", "dram", *TINY), records=1)


@pytest.mark.parametrize("lock", ["pmemobj", "pthread-pmem", "rwlock-pmemobj"])
def test_blackhole_runs_concurrent_with_a_lock_in_the_pool(pmemids, pool_dir, lock):
    r = pmemids.run("--ds", "blackhole", "--mode", "pmem-trans", "--thread-mode", "concurrent",
                    "--threads", "2", "--lock", lock, *TINY)
    assert expect_ok(r)[0]["metrics"]["ops"] == 500
    assert pool_files(pool_dir) == []


def test_timeline_interval_longer_than_the_run_ends_with_the_run(pmemids):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", "--timeline-ms", "20000", *TINY)
    [rec] = expect_ok(r)
    m = rec["metrics"]
    assert len(m["timeline_ops_per_sec"]) == 1
    # The interval ends when the workers do, not 20 s later (which would give ~25 ops/s).
    assert m["timeline_ops_per_sec"][0] > 0.01 * m["wall_ops_per_sec"]


@pytest.mark.parametrize("rate", ["1e-12", "-0.5", "1.5"])
def test_latency_sample_outside_its_range_is_a_usage_error(pmemids, rate):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", "--latency-sample", rate, *TINY)
    expect_usage_error(r, "--latency-sample", prefixed=False)
