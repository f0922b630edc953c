"""Operation sets, native thread mode and the descriptor list through the
binary: `list --json` traits, queue/set/stack workloads and their records,
refusals that name the structures that fit, and the crash command's checks."""

from __future__ import annotations

import json

import pytest

from conftest import CATALOG, INTERNAL, MODES, STRUCTURES, WORKLOADS
from test_cli import expect_ok, expect_usage_error

SMALL = ["-p", "operationcount=4000"]


def test_list_json_carries_every_trait(pmemids):
    r = pmemids("list", "--json")
    assert r.returncode == 0, r.describe()
    by_ds = {e["ds"]: e for e in json.loads(r.stdout)}
    for e in by_ds.values():
        assert {"ds", "description", "operation_set", "operations", "synchronisation", "modes",
                "domains", "crash_modes", "torn_modes", "torn_value_modes", "harness",
                "element_bytes"} <= e.keys(), e
        assert set(e["torn_modes"]) <= set(e["crash_modes"]), e
        assert e["operation_set"] in ("kv", "ordered-kv", "queue", "set", "stack")
        assert e["synchronisation"] in ("internal", "external")
        for m in MODES:
            assert (e["element_bytes"][m] is None) == (m not in e["modes"]), e
    assert by_ds["blackhole"]["harness"] is True
    assert by_ds["hashtable"]["harness"] is False
    rb, ll = by_ds["ringbuffer-volatile"], by_ds["lflist-harris"]
    assert rb["operation_set"] == "queue" and rb["operations"] == ["push", "pop"]
    assert ll["operation_set"] == "set" and ll["operations"] == ["insert", "delete", "contains"]
    for e in (rb, ll):
        assert e["synchronisation"] == "internal"
        assert e["modes"] == ["dram", "pmem-volatile"]
        assert e["crash_modes"] == []
    assert by_ds["btree"]["crash_modes"] == ["pmem-persist", "pmem-trans"]
    # The pmem-persist trees are not failure-atomic by design (docs/crash.md).
    for ds in ("btree", "btree-embedded", "bplustree", "rbtree"):
        assert by_ds[ds]["torn_modes"] == ["pmem-persist"], ds
    for ds in ("arraylist", "linkedlist", "hashtable", "skiplist"):
        assert by_ds[ds]["torn_modes"] == [], ds
    # Every key-value structure overwrites a value in place under one persist.
    for ds in STRUCTURES:
        assert by_ds[ds]["torn_value_modes"] == ["pmem-persist"], ds
    for e in by_ds.values():
        assert set(e["torn_value_modes"]) <= set(e["crash_modes"]), e
        if e["operation_set"] not in ("kv", "ordered-kv"):
            assert e["torn_value_modes"] == [], e


def test_native_queue_run_splits_producers_and_consumers(pmemids):
    r = pmemids.run("--ds", "ringbuffer-volatile", "--mode", "dram", "--thread-mode", "native",
                    "--threads", "2", "-P", WORKLOADS / "ring-5050", *SMALL,
                    "-p", "queueslots=512", "-p", "recordcount=256", "-p", "slotsize=128",
                    "-p", "fieldlength=64")
    [rec] = expect_ok(r)
    m, c = rec["metrics"], rec["config"]
    assert c["thread_mode"] == "native" and c["operationset"] == "queue"
    assert c["stream_roles"] == ["producer", "consumer"]
    assert m["push_ops"] == 2000 and m["pop_ops"] == 2000
    assert m["push_found"] + m["push_not_found"] == 2000
    assert [t["ops"] for t in m["per_thread"]] == [2000, 2000]
    assert m["load_ops"] == 256
    assert "read_ops" not in m and "contains_ops" not in m


QUEUE_SMALL = ["-p", "queueslots=512", "-p", "recordcount=256", "-p", "slotsize=128",
               "-p", "fieldlength=64"]
NATIVE = {"lflist-harris": ["-P", WORKLOADS / "set-u20"],
          "ringbuffer-volatile": ["-P", WORKLOADS / "ring-5050", *QUEUE_SMALL]}


@pytest.mark.parametrize("ds", INTERNAL)
def test_native_runs_replay_cycles_over_one_common_window(pmemids, ds):
    """Issue 10's run layer holds in native mode: --duration replays every
    worker's stream in cycles (queue and set streams unchanged), throughput is
    all operations over the common window, the timer's cost is recorded."""
    r = pmemids.run("--ds", ds, "--mode", "dram", "--thread-mode", "native", "--threads", "2",
                    *NATIVE[ds], *SMALL, "--duration", "0.3")
    [rec] = expect_ok(r)
    m = rec["metrics"]
    assert m["cycles"] >= 2 and all(t["cycles"] >= 2 for t in m["per_thread"]), m
    assert m["cycles_exhausted"] is False
    assert m["ops_per_sec"] == pytest.approx(m["ops"] / m["seconds"], rel=1e-9)
    assert m["seconds"] >= max(t["seconds"] for t in m["per_thread"])
    assert rec["context"]["timer_overhead_ns"] > 0


@pytest.mark.parametrize("ds", INTERNAL)
def test_native_min_time_grows_every_workers_stream(pmemids, ds):
    r = pmemids.run("--ds", ds, "--mode", "dram", "--thread-mode", "native", "--threads", "2",
                    *NATIVE[ds], "-p", "operationcount=200", "--min-time", "0.05")
    [rec] = expect_ok(r)
    m = rec["metrics"]
    assert rec["config"]["operationcount"] == 200
    assert m["seconds"] >= 0.05 and m["operationcount"] > 200
    assert m["ops"] == m["operationcount"] == sum(t["ops"] for t in m["per_thread"])


def test_native_stream_is_what_the_native_run_executes(pmemids, tmp_path):
    """`stream --thread-mode native` writes the shapes a native run executes:
    a queue's producer pushes, its consumer pops; a set's workers share the
    key range (not sliced)."""
    out = tmp_path / "q.csv"
    args = ["--thread-mode", "native", "--threads", "2", *NATIVE["ringbuffer-volatile"], *SMALL]
    assert pmemids("stream", *args, "--out", out).returncode == 0
    rows = [l.split(",") for l in out.read_text().splitlines()[2:]]
    assert {op for t, op, *_ in rows if t == "0"} == {"push"}
    assert {op for t, op, *_ in rows if t == "1"} == {"pop"}
    [rec] = expect_ok(pmemids.run("--ds", "ringbuffer-volatile", "--mode", "dram", *args))
    assert [t["ops"] for t in rec["metrics"]["per_thread"]] == \
        [sum(1 for r in rows if r[0] == str(t)) for t in range(2)]
    out = tmp_path / "s.csv"
    assert pmemids("stream", "--thread-mode", "native", "--threads", "2", *NATIVE["lflist-harris"],
                   *SMALL, "--out", out).returncode == 0
    rows = [l.split(",") for l in out.read_text().splitlines()[2:]]
    for t in ("0", "1"):
        keys = [int(k) for th, _, k, *_ in rows if th == t]
        assert len(keys) == 2000 and min(keys) >= 1 and max(keys) <= 1024
        assert max(keys) > 900 and min(keys) < 100  # each worker draws over the whole range


@pytest.mark.parametrize("workload", ["set-u0", "set-u5", "set-u10", "set-u20", "set-u50"])
def test_native_set_runs_every_shipped_set_workload(pmemids, workload):
    r = pmemids.run("--ds", "lflist-harris", "--mode", "pmem-volatile", "--thread-mode", "native",
                    "--threads", "2", "-P", WORKLOADS / workload, *SMALL)
    [rec] = expect_ok(r)
    m = rec["metrics"]
    assert m["insert_ops"] + m["delete_ops"] + m["contains_ops"] == 4000
    assert m["load_ops"] == 512
    u = int(workload.split("-u")[1])
    assert (m["insert_ops"] + m["delete_ops"]) / 4000 == pytest.approx(u / 100, abs=0.03)
    assert "read_ops" not in m


def test_set_runs_single_threaded_and_all_means_the_workloads_set(pmemids):
    r = pmemids.run("--ds", "all", "--mode", "all", "-P", WORKLOADS / "set-u20", *SMALL)
    recs = expect_ok(r, records=5)
    assert {(x["config"]["ds"], x["config"]["mode"]) for x in recs} == {
        ("lflist-harris", "dram"), ("lflist-harris", "pmem-volatile"),
        ("lflist-tlog", "pmem-persist"), ("lflist-soft", "pmem-persist"),
        ("lflist-linkfree", "pmem-persist")}
    assert "skipping lflist-harris in pmem-persist" in r.stderr
    assert "skipping lflist-logfree in pmem-persist (not crash-consistent under adr" in r.stderr


def test_all_under_eadr_takes_the_eadr_only_designs(pmemids):
    # `all` follows the resolved --domain: under eADR every durable design is crash-consistent.
    r = pmemids.run("--ds", "all", "--mode", "pmem-persist", "--domain", "eadr",
                    "-P", WORKLOADS / "set-u20", *SMALL)
    recs = expect_ok(r, records=4)
    assert {x["config"]["ds"] for x in recs} == {"lflist-tlog", "lflist-soft", "lflist-linkfree",
                                                 "lflist-logfree"}
    assert "not crash-consistent" not in r.stderr


def test_kv_records_keep_their_fields(pmemids):
    [rec] = expect_ok(pmemids.run("--ds", "hashtable", "--mode", "dram", "-p", "recordcount=100",
                                  *SMALL))
    for op in ("read", "update", "insert", "scan", "readmodifywrite", "delete"):
        assert f"{op}_ops" in rec["metrics"]
    for op in ("push", "pop", "contains"):
        assert f"{op}_ops" not in rec["metrics"]
    assert rec["config"]["operationset"] == "kv"


# The config keys that belong to some operation sets only (their workload
# properties), per set: a record carries those of its own set and none of
# another's, and of the structures' knobs (`list --json`) those of its own
# structure only.
OP_SET_KEYS = {
    "kv": {"readproportion", "updateproportion", "insertproportion", "scanproportion",
           "readmodifywriteproportion", "deleteproportion", "requestdistribution",
           "zipfianconstant", "insertorder", "maxscanlength", "hotspotdatafraction",
           "hotspotopnfraction", "readmissrate", "tracefile", "traceload", "request_generator",
           "recordcount", "fieldlength"},
    "set": {"readproportion", "insertproportion", "deleteproportion", "keyrange"},
    "queue": {"recordcount", "fieldlength", "pushproportion", "popproportion", "pushpoppairs",
              "producers", "consumers", "queueslots", "slotsize"},
    "stack": {"recordcount", "pushproportion", "popproportion", "pushpoppairs", "poolnodes",
              "localwork"},
}
KNOBS = {e["ds"]: {k["name"] for k in e["knobs"]} for e in CATALOG}


@pytest.mark.parametrize("op_set,ds,workload", [
    ("kv", "hashtable", "workloada"), ("kv", "btree", "workloade"), ("set", "lflist-harris", "set-u20"),
    ("queue", "ringbuffer-volatile", "ring-5050"), ("stack", "stack-lock", "stack-random")])
def test_a_record_carries_only_its_operation_sets_keys(pmemids, op_set, ds, workload):
    [rec] = expect_ok(pmemids.run("--ds", ds, "--mode", "dram", "-P", WORKLOADS / workload,
                                  "-p", "operationcount=1000"))
    specific = set().union(*OP_SET_KEYS.values(), *KNOBS.values())
    assert rec["config"]["operationset"] == op_set
    assert rec["config"].keys() & specific == OP_SET_KEYS[op_set] | KNOBS[ds]


@pytest.mark.parametrize("workload", ["stack-pushpop", "stack-random"])
def test_stack_workloads_need_a_stack(pmemids, workload):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", "-P", WORKLOADS / workload, *SMALL)
    expect_usage_error(r, "cannot run an operationset=stack workload",
                       "structures that can: stack-dfc, stack-dfc-flat, stack-pbcomb")


def test_native_mode_refuses_external_structures_naming_internal_ones(pmemids):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", "--thread-mode", "native",
                    "--threads", "2", "-P", WORKLOADS / "workloadc")
    expect_usage_error(r, "hashtable needs a lock", *INTERNAL)


def test_op_set_mismatch_names_the_structures_that_fit(pmemids):
    r = pmemids.run("--ds", "lflist-harris", "--mode", "dram", "-P", WORKLOADS / "workloada")
    expect_usage_error(r, "lflist-harris implements operation set set", *STRUCTURES)
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", "-P", WORKLOADS / "ring-5050")
    expect_usage_error(r, "structures that can: ringbuffer-volatile")
    r = pmemids.run("--ds", "lflist-harris", "--mode", "pmem-persist", "-P", WORKLOADS / "set-u5")
    expect_usage_error(r, "does not support mode pmem-persist", "dram, pmem-volatile")


@pytest.mark.parametrize("props, needle", [
    (["-p", "producers=2", "-p", "consumers=1"], "must add up to the 2 workers"),
    (["-p", "keyrange=8"], "applies to operationset set"),
    (["-p", "slotsize=64"], "does not fit a ring slot"),
    (["-p", "pushproportion=0.9"], "sum to"),
])
def test_bad_queue_properties_are_exit_2(pmemids, props, needle):
    r = pmemids.run("--ds", "ringbuffer-volatile", "--mode", "dram", "--thread-mode", "native",
                    "--threads", "2", "-P", WORKLOADS / "ring-5050", *SMALL, *props)
    expect_usage_error(r, needle)


def test_full_queue_load_is_refused(pmemids):
    r = pmemids.run("--ds", "ringbuffer-volatile", "--mode", "dram", "-P", WORKLOADS / "ring-5050",
                    *SMALL, "-p", "queueslots=16", "-p", "recordcount=32", "-p", "slotsize=128",
                    "-p", "fieldlength=64")
    expect_usage_error(r, "full after 16 of recordcount=32")


def test_crash_refuses_volatile_and_harness_structures(pmemids, pool_dir):
    for ds, needle in [("lflist-harris", "keeps nothing"), ("blackhole", "measures the harness")]:
        r = pmemids("crash", "--ds", ds, "--points", "2", "--pool-dir", str(pool_dir))
        assert r.returncode == 2 and needle in r.stderr, r.describe()
    r = pmemids("crash", "--ds", "hashtable", "--threads", "2", "--points", "2", "--pool-dir",
                str(pool_dir))
    assert r.returncode == 2 and "synchronise themselves" in r.stderr, r.describe()


def test_crash_inside_recovery_is_taken_and_reported(pmemids, pool_dir, tmp_path):
    out = tmp_path / "c.jsonl"
    r = pmemids("crash", "--ds", "linkedlist", "--mode", "pmem-persist", "--points", "10",
                "--recovery-points", "2", "--pool-dir", str(pool_dir), "--out", str(out),
                "-p", "recordcount=20", "-p", "operationcount=40")
    assert r.returncode == 0, r.describe()
    [rec] = [json.loads(l) for l in out.read_text().splitlines()]
    assert rec["config"]["recovery_points"] == 2
    assert rec["metrics"]["violation"] is False, rec
    assert "recovery_crashes" in rec["metrics"]
