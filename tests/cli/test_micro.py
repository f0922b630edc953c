"""`pmemids micro`: every bench runs and writes micro records; bad input is exit 2
naming what is accepted; the libpmem environment (non-temporal threshold,
emulated eADR) reaches libpmem through child runs; libpmem2 granularities are
forced off DAX and say so; callgrind counts the flush instructions each
operation executed and finds what the records report; `micro all --quick` runs
every bench."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from callgrind import flush_count
from conftest import Result, read_records

# Small grids: the whole file must stay quick on 2 loaded cores.
TINY = {
    "persist": ["--op", "persist,flush", "--size", "64,256", "--pattern", "seq",
                "--ops-per-thread", "2000"],
    "store": ["--access", "store,clwb,ntstore", "--fence", "each,end", "--size", "64",
              "--pattern", "seq", "--ops-per-thread", "2000"],
    "copy": ["--fn", "memcpy", "--op", "libc,libc+persist,pmem-persist", "--size", "128",
             "--pattern", "rand", "--ops-per-thread", "2000"],
    "bandwidth": ["--access", "load,pstore", "--io", "64", "--pattern", "seq,rand",
                  "--region", "1M", "--duration", "0.05", "--ramp", "0"],
    "latency": ["--access", "load,pstore", "--hit-ratio", "0,1", "--region", "256K"],
    "rmw": ["--io", "64,256", "--ops-per-thread", "2000"],
    "txlog": ["--size", "64", "--ranges-per-tx", "1,4", "--data", "kept,written",
              "--ops-per-thread", "400"],
    "alloc": ["--api", "atomic,tx", "--op", "alloc,free", "--size", "64",
              "--ops-per-thread", "500"],
    "lock": ["--lock", "pthread-mutex,pmemobj-rwlock-rd", "--ops-per-thread", "2000"],
}
BENCHES = list(TINY)
AXES = {
    "persist": ["op", "size", "pattern", "dirty", "region_sharing", "threads"],
    "store": ["access", "fence", "size", "pattern", "memory", "region_sharing", "threads"],
    "copy": ["movnt_threshold", "fn", "op", "size", "pattern", "region_sharing", "threads"],
    "bandwidth": ["access", "pattern", "io", "memory", "numa", "region_sharing", "threads"],
    "latency": ["access", "hit_ratio", "memory", "region_sharing", "threads"],
    "rmw": ["io", "memory", "threads"],
    "txlog": ["size", "ranges_per_tx", "data", "threads"],
    "alloc": ["api", "op", "size", "threads"],
    "lock": ["lock", "region_sharing", "threads"],
}
# A bad value of a names axis and of a numeric axis per bench, and what the
# message must name.
BAD = {
    "persist": [(["--op", "persist,fsync"], "deep-persist"), (["--size", "4"], "[8, ")],
    "store": [(["--access", "movdir64b"], "clflushopt"), (["--size", "64K:*2:1K"], "greater")],
    "copy": [(["--op", "memmove"], "pmem-nodrain"), (["--size", "big"], "not a size")],
    "bandwidth": [(["--access", "read"], "ntstore"), (["--io", "0"], "[8, ")],
    "latency": [(["--access", "store"], "pstore"), (["--hit-ratio", "0:0.5:2"], "[0, 1]")],
    "rmw": [(["--memory", "nvme"], "dram"), (["--io", "2M"], "[8, ")],
    "txlog": [(["--threads", "two"], "N = "), (["--size", "0"], "[1, "),
              (["--data", "dirty"], "written")],
    "alloc": [(["--api", "posix"], "atomic"), (["--size", "1:0:8"], "step")],
    "lock": [(["--lock", "spinlock"], "pmemobj-mutex"), (["--threads", "0"], "[1, ")],
}
METRICS = {"ops", "seconds", "ops_per_sec", "ns_per_op", "gib_per_sec", "flushes_issued",
           "fences_issued", "latency_p50_ns", "latency_p99_ns", "latency_samples", "per_thread",
           "timer_overhead_ns"}


def micro(pmemids, *args, out: Path | None = None, env: dict | None = None,
          timeout: int = 120) -> Result:
    args = [str(a) for a in args]
    if "--pool-dir" not in args:
        args += ["--pool-dir", str(pmemids.pool_dir)]
    if "--ops-per-thread" in args and "--min-time" not in args:
        args += ["--min-time", "0"]  # the counts the tests give are the counts that run
    out = out or pmemids.out
    if "--out" not in args:
        args += ["--out", str(out)]
    before = len(read_records(out))
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("PMEM")}
    full_env.update(env or {})
    p = subprocess.run([str(pmemids.binary), "micro", *args], capture_output=True, text=True,
                       timeout=timeout, env=full_env, cwd=out.parent)
    res = Result(["micro", *args], p.returncode, p.stdout, p.stderr, out)
    res.records = read_records(out)
    res.new_records = res.records[before:]
    return res


def ok(r: Result) -> list[dict]:
    assert r.returncode == 0, r.describe()
    assert not r.error_lines(), r.describe()
    assert r.new_records, r.describe()
    return r.new_records


@pytest.mark.parametrize("bench", BENCHES)
def test_every_bench_writes_one_micro_record_per_point(pmemids, bench):
    recs = ok(micro(pmemids, bench, *TINY[bench]))
    for rec in recs:
        assert rec["kind"] == "micro" and rec["bench"] == bench
        assert rec["config"]["kind"] == "micro" and rec["config"]["bench"] == bench
        for key in AXES[bench] + ["seed", "repeat", "repetition", "domain", "flush_instruction",
                                  "movnt_threshold", "latency_sample"] + (
                ["ops_per_thread", "ops_per_thread_asked", "min_time"] if "--ops-per-thread" in TINY[bench] else []):
            assert key in rec["config"], f"config.{key} missing in {bench}"
        assert METRICS <= set(rec["metrics"]), set(METRICS) - set(rec["metrics"])
        assert {"domain", "flush_instruction", "pmem", "timer_overhead_ns"} <= set(rec["context"])
        assert "expected_here" in rec
        m = rec["metrics"]
        assert m["ops"] > 0 and m["seconds"] > 0
        assert m["ops_per_sec"] == pytest.approx(m["ops"] / m["seconds"])
        assert sum(t["ops"] for t in m["per_thread"]) == m["ops"]
    points = {json.dumps({k: r["config"][k] for k in AXES[bench]}) for r in recs}
    assert len(points) == len(recs), "one record per point"
    assert not list(pmemids.pool_dir.iterdir()), "regions and pools are removed"


def test_table_on_stdout_progress_on_stderr(pmemids):
    r = micro(pmemids, "persist", *TINY["persist"])
    ok(r)
    assert r.stdout.splitlines()[0].split()[:3] == ["bench", "point", "thr"]
    *table, footnote = r.stdout.splitlines()
    assert len(table) == 1 + len(r.new_records)
    # Every row's columns line up with the header's, whatever the point's width.
    assert len({row.index(" 1 ") for row in table[1:]}) == 1
    assert footnote.startswith("ns/op: ") and "p50 can exceed ns/op" in footnote
    assert "[1/4] micro persist" in r.stderr


@pytest.mark.parametrize("bench", BENCHES)
def test_bad_values_are_exit_2_naming_what_is_accepted(pmemids, bench):
    for bad, needle in BAD[bench]:
        r = micro(pmemids, bench, *TINY[bench], *bad)
        assert r.returncode == 2, r.describe()
        assert bad[0] in r.stderr and "accepted" in r.stderr and needle in r.stderr, r.describe()
        assert not r.new_records, r.describe()
    r = micro(pmemids, bench, *TINY[bench], "--cpu-node", "97")
    assert r.returncode == 2 and "--cpu-node 97" in r.stderr and "node 0" in r.stderr, r.describe()
    assert not r.new_records


def test_unknown_or_missing_bench_names_the_benches(pmemids):
    for args in (["fsync"], []):
        r = micro(pmemids, *args)
        assert r.returncode == 2, r.describe()
        assert "persist, store, copy, bandwidth, latency, rmw, txlog, alloc, lock, all" in r.stderr


@pytest.mark.parametrize("args, needle", [
    (["persist", "--pmem-write-ns", "100"], "leave them out"),
    (["persist", "--flush-cold", "on"], "accepted: off"),
    (["store", "--flush", "nt"], "--access ntstore"),
    (["persist", "--movnt-threshold", "128"], "micro copy --movnt-threshold"),
])
def test_persistence_options_no_bench_applies_are_refused(pmemids, args, needle):
    r = micro(pmemids, *args, "--ops-per-thread", "100")
    assert r.returncode == 2 and "no micro bench applies it" in r.stderr and needle in r.stderr, r.describe()
    assert not r.new_records


@pytest.mark.parametrize("args, needle", [
    (["persist", "--no-such-option"], "micro persist: unknown argument(s) --no-such-option"),
    (["all", "--quick", "--bogus", "x"], "micro all: unknown argument(s) --bogus x"),
])
def test_unknown_arguments_after_the_bench_are_refused(pmemids, args, needle):
    # They used to be ignored: the whole default grid ran.
    r = micro(pmemids, *args)
    assert r.returncode == 2 and needle in r.stderr, r.describe()
    assert not r.new_records


def test_size_larger_than_the_region_is_refused(pmemids):
    r = micro(pmemids, "persist", "--size", "8K", "--region", "4K")
    assert r.returncode == 2 and "--region" in r.stderr and "accepted" in r.stderr, r.describe()


@pytest.mark.skipif(len(list(Path("/sys/devices/system/node").glob("node[0-9]*"))) > 1,
                    reason="the machine has a second NUMA node")
def test_remote_numa_on_one_node_is_exit_2_with_the_reason(pmemids):
    r = micro(pmemids, "bandwidth", *TINY["bandwidth"], "--numa", "local,remote")
    assert r.returncode == 2 and "second NUMA node" in r.stderr, r.describe()
    assert not r.new_records


def test_movnt_threshold_list_runs_libpmem_with_each_threshold(pmemids):
    recs = ok(micro(pmemids, "copy", "--fn", "memcpy", "--op", "pmem-persist", "--size", "128",
                    "--pattern", "seq", "--movnt-threshold", "128,256", "--ops-per-thread", "500"))
    by = {r["config"]["movnt_threshold"]: r for r in recs}
    assert set(by) == {128, 256}
    # The child that served 128 had libpmem's variable set before libpmem loaded.
    assert by[128]["context"]["env"].get("PMEM_MOVNT_THRESHOLD") == "128"
    assert by[128]["config"]["movnt_threshold_in_force"] == 128
    assert by[128]["config"]["libpmem_path"] == "non-temporal"
    assert by[256]["config"]["libpmem_path"] == "temporal"
    assert by[256]["config"]["movnt_threshold_in_force"] == 256


def test_emulated_eadr_skips_flushes_keeps_fences_in_pmemids_and_libpmem(pmemids):
    recs = ok(micro(pmemids, "persist", "--op", "persist,libpmem-persist,pmem2-byte", "--size", "256",
                    "--pattern", "seq", "--ops-per-thread", "1000", "--domain", "eadr"))
    for r in recs:
        assert r["config"]["domain"] == "eadr-emulated" == r["context"]["domain"]
        assert r["metrics"]["flushes_issued"] == 0
        assert r["metrics"]["fences_issued"] == r["metrics"]["ops"]
        assert r["context"]["env"].get("PMEM_NO_FLUSH") == "1"


def test_pmem2_granularity_is_forced_off_dax_and_recorded(pmemids):
    recs = ok(micro(pmemids, "persist", "--op", "pmem2-byte,pmem2-cacheline,pmem2-page",
                    "--size", "64", "--pattern", "seq", "--ops-per-thread", "500"))
    emulated = recs[0]["context"]["pmem"] == "emulated"
    for r in recs:
        gran = r["config"]["op"].removeprefix("pmem2-").replace("cacheline", "cache-line")
        assert r["config"]["pmem2_granularity"] == gran
        assert r["config"]["pmem2_granularity_forced"] is emulated
        if emulated:
            assert r["config"]["pmem2_force_granularity"] in ("BYTE", "CACHE_LINE", "PAGE")
    flushes = {r["config"]["op"]: r["metrics"]["flushes_per_op"] for r in recs}
    assert flushes == {"pmem2-byte": 0, "pmem2-cacheline": 1, "pmem2-page": None}


def test_regions_are_disjoint_per_thread_unless_shared(pmemids):
    recs = ok(micro(pmemids, "persist", "--op", "flush", "--size", "64", "--pattern", "rand",
                    "--threads", "2", "--region-sharing", "disjoint,shared",
                    "--ops-per-thread", "1000"))
    by = {r["config"]["region_sharing"]: r for r in recs}
    disjoint, shared = by["disjoint"]["config"], by["shared"]["config"]
    assert len(set(disjoint["order_seeds"])) == 2 and disjoint["mapped_bytes"] == 2 * disjoint["region_bytes"]
    assert len(shared["order_seeds"]) == 1 and shared["mapped_bytes"] == shared["region_bytes"]
    for r in recs:
        assert len(r["metrics"]["per_thread"]) == 2


def test_latency_measures_the_hit_ratio_it_primed(pmemids):
    """Fails on the old code (hit_ratio_achieved was null). A 1 MiB region primes into
    L2/L3 whatever the machine's load; a miss is a DRAM access, 10x slower: the probes'
    classification has a wide margin."""
    recs = ok(micro(pmemids, "latency", "--access", "load,pstore", "--hit-ratio", "0,1",
                    "--region", "1M"))
    for r in recs:
        c, m = r["config"], r["metrics"]
        probes = max(256, c["lines"] // 64)
        assert c["timed_lines"] == c["lines"] - probes and m["ops"] == c["timed_lines"]
        assert c["touched_lines"] == round(c["hit_ratio"] * c["lines"])
        assert 0 < m["probe_hit_ns"] < m["probe_miss_ns"]
        assert abs(m["hit_ratio_achieved"] - c["hit_ratio"]) <= 0.25, (c["hit_ratio"], m)


def test_media_benches_say_what_emulated_pmem_cannot_show(pmemids):
    recs = ok(micro(pmemids, "rmw", "--io", "256", "--ops-per-thread", "500"))
    r = recs[0]
    if r["context"]["pmem"] == "emulated":
        assert r["expected_here"] == "media property: not expected on emulated PMEM"
    assert any(c.startswith("counters:") for c in r["caveats"])
    assert r["metrics"]["ewr"] is None and r["metrics"]["rwr"] is None
    lock = ok(micro(pmemids, "lock", "--lock", "pthread-mutex", "--ops-per-thread", "1000"))[0]
    assert lock["expected_here"] is None


def test_threads_beyond_the_cpus_are_run_and_recorded_as_oversubscribed(pmemids):
    cpus = os.cpu_count()
    recs = ok(micro(pmemids, "lock", "--lock", "pthread-mutex", "--threads", f"1,{cpus + 1}",
                    "--ops-per-thread", "500"))
    by = {r["config"]["threads"]: r for r in recs}
    assert by[1]["config"]["oversubscribed"] is False
    over = by[cpus + 1]
    assert over["config"]["oversubscribed"] is True
    assert any(c.startswith(f"cores: {cpus + 1} threads on {cpus} CPUs") for c in over["caveats"])
    assert len(over["metrics"]["per_thread"]) == cpus + 1


def test_a_too_short_window_scales_the_operations_and_records_both_counts(pmemids):
    r = micro(pmemids, "lock", "--lock", "pthread-mutex", "--ops-per-thread", "1000", "--min-time", "0.02")
    rec = ok(r)[0]
    assert rec["config"]["ops_per_thread_asked"] == 1000 and rec["config"]["min_time"] == 0.02
    assert rec["config"]["ops_per_thread"] > 1000 and rec["metrics"]["ops"] == rec["config"]["ops_per_thread"]
    assert "--min-time" in r.stderr and len(r.new_records) == 1  # the short repetition is not recorded


def test_repeat_writes_an_aggregate(pmemids):
    recs = ok(micro(pmemids, "lock", "--lock", "pthread-mutex", "--ops-per-thread", "1000",
                    "--repeat", "3", "--warmup", "1"))
    assert [bool(r.get("warmup")) for r in recs] == [True, False, False, False, False]
    agg = recs[-1]
    assert agg["aggregate"] is True and agg["kind"] == "micro" and agg["bench"] == "lock"
    assert agg["metrics"]["repetitions"] == 3


VALGRIND = shutil.which("valgrind")


@pytest.mark.skipif(VALGRIND is None, reason="valgrind is not installed")
@pytest.mark.parametrize("args, per_op", [
    (["persist", "--op", "persist", "--size", "256"], 4),
    (["persist", "--op", "flush", "--size", "64", "--dirty", "first-word"], 1),
    (["persist", "--op", "libpmem-persist", "--size", "256"], 4),
    (["persist", "--op", "drain", "--size", "256"], 0),
    (["store", "--access", "clflush", "--size", "128"], 2),
])
def test_callgrind_counts_the_flushes_each_operation_executes(pmemids, tmp_path, args, per_op):
    """The flush instructions are executed, once per line of each chunk, and the
    records' flushes_issued is what callgrind counts."""
    ops = 1500
    profile = tmp_path / "callgrind.out"
    out = tmp_path / "cg.jsonl"
    cmd = [VALGRIND, "--tool=callgrind", "--dump-instr=yes", f"--callgrind-out-file={profile}",
           str(pmemids.binary), "micro", *args, "--pattern", "seq", "--ops-per-thread", str(ops),
           "--latency-sample", "0", "--min-time", "0", "--pool-dir", str(pmemids.pool_dir),
           "--out", str(out)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PMEM")}
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=env)
    assert p.returncode == 0, p.stderr[-2000:]
    counted = sum(flush_count(profile).values())
    rec = read_records(out)[-1]
    assert counted == per_op * ops
    assert rec["metrics"]["flushes_issued"] == counted


def test_micro_all_quick_runs_every_bench(pmemids, tmp_path):
    out = tmp_path / "all.jsonl"
    r = micro(pmemids, "all", "--quick", out=out, timeout=280)
    recs = ok(r)
    assert {rec["bench"] for rec in recs} == set(BENCHES)
    assert all(rec["config"]["quick"] for rec in recs)


SWEEPS = Path(__file__).resolve().parents[2] / "sweeps" / "micro"
# Shipped micro sweeps: configurations per scale.
SHIPPED = {
    "001-fig4-random-read-latency.toml": (2, 2), "001-fig4-random-read-bandwidth.toml": (2, 2),
    "002-fig3a-latency.toml": (2, 2), "002-fig3bcd-bandwidth.toml": (12, 24),
    "002-fig4a-seq-rand-write.toml": (4, 2), "002-fig5-numa.toml": (4, 12),
    "002-fig6-store-pstore.toml": (8, 24), "002-fig7-seq-rand-read.toml": (8, 4),
    "002-fig7d-rmw.toml": (2, 2), "003-fig4.1-4.2-persist.toml": (5, 5),
    "003-fig4.3-persist-threads.toml": (2, 5), "003-fig4.4-pmem2.toml": (5, 5),
    "003-fig4.5-pmem2-threads.toml": (2, 5), "003-fig4.6-4.8-copy.toml": (2, 2),
    "003-fig4.7-4.9-copy-threads.toml": (4, 10), "003-movnt-threshold.toml": (12, 12),
    "003-fig4.10-txlog.toml": (3, 3), "003-fig4.10-txlog-threads.toml": (2, 5),
    "003-fig4.11-alloc.toml": (2, 2), "003-fig4.12-alloc-threads.toml": (2, 5),
    "003-fig4.13-locks.toml": (2, 8), "002-r1-r3-store.toml": (1, 1),
}


def sweep(pmemids, *args, timeout: int = 120) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PMEM")}
    return subprocess.run([str(pmemids.binary), "sweep", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, env=env, cwd=pmemids.out.parent)


def test_every_shipped_micro_sweep_is_listed():
    assert sorted(p.name for p in SWEEPS.glob("*.toml")) == sorted(SHIPPED)


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_micro_sweeps_expand_to_micro_commands(pmemids, name):
    for scale, count in zip(("default", "paper", "quick"), (*SHIPPED[name], None)):
        p = sweep(pmemids, SWEEPS / name, "--scale", scale, "--dry-run")
        assert p.returncode == 0, p.stderr
        lines = p.stdout.splitlines()
        assert len(set(lines)) == len(lines) > 0 and count in (None, len(lines)), p.stdout
        bench = (SWEEPS / name).read_text().split('command = "micro ')[1].split('"')[0]
        assert all(l.startswith(f"pmemids micro {bench} ") for l in lines)


def test_a_micro_sweep_runs_records_and_skips_what_cannot_run_here(pmemids, tmp_path):
    f = tmp_path / "m.toml"
    f.write_text('command = "micro bandwidth"\naccess = "load"\nio = "64"\npattern = "seq"\n'
                 'region = "1M"\nduration = 0.05\nramp = 0.0\n[matrix]\nnuma = ["local", "remote"]\n')
    out = tmp_path / "m.jsonl"
    p = sweep(pmemids, f, "--out", out, "--pool-dir", pmemids.pool_dir)
    assert p.returncode == 0, p.stderr
    recs = read_records(out)
    local = [r for r in recs if r["config"].get("numa") == "local" and not r.get("skipped")]
    assert local and all(r["kind"] == "micro" and "sweep" in r for r in local)
    skipped = [r for r in recs if r.get("skipped")]
    if len(list(Path("/sys/devices/system/node").glob("node[0-9]*"))) == 1:
        assert len(skipped) == 1 and "second NUMA node" in skipped[0]["reason"]
        assert skipped[0]["config"]["kind"] == "micro" and skipped[0]["config"]["bench"] == "bandwidth"
    # A micro configuration's id is not a run configuration's with the same arguments.
    assert local[0]["sweep"]["config_id"] != skipped[0]["sweep"]["config_id"] if skipped else True


@pytest.mark.parametrize("text, needle", [
    ('command = "micro fsync"\n', "micro persist"),
    ('command = "micro persist"\n[properties]\nrecordcount = 5\n', "no workload properties"),
    ('command = "micro persist"\n[matrix]\nop = ["fsync"]\n', "deep-persist"),
    ('command = "micro persist"\nds = "btree"\n', "unknown key"),
    ('command = 3\n', "a string"),
])
def test_bad_micro_sweep_files_are_exit_2_before_running(pmemids, tmp_path, text, needle):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    p = sweep(pmemids, f, "--out", tmp_path / "o.jsonl")
    assert p.returncode == 2 and needle in p.stderr and "accepted" in p.stderr, p.stderr
    assert not (tmp_path / "o.jsonl").exists()
