"""CLI tests for `pmemids stream`, runs of recorded traces (tracefile=, traceload=),
the recorded request generator, and `pmemids compare`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import TINY, WORKLOADS
from test_cli import OP_TYPES, expect_ok, expect_usage_error, pool_files

MIXED = ["-p", "readproportion=0.3", "-p", "updateproportion=0.2", "-p", "insertproportion=0.2",
         "-p", "readmodifywriteproportion=0.1", "-p", "deleteproportion=0.1",
         "-p", "scanproportion=0.1", "-p", "maxscanlength=20", "-p", "readmissrate=0.2",
         "-p", "requestdistribution=zipfian"]


def trace_lines(path: Path) -> list[list[str]]:
    lines = path.read_text().splitlines()
    assert lines[0].startswith("# pmemids stream: "), lines[:2]
    assert lines[1] == "thread,op,key,scan_length"
    return [l.split(",") for l in lines[2:]]


def tallies(rec: dict) -> dict:
    m = rec["metrics"]
    return {"load_ops": m["load_ops"], "ops": m["ops"],
            **{f"{op}_{k}": m[f"{op}_{k}"] for op in OP_TYPES for k in ("ops", "found")}}


# ------------------------------------------------------------------ stream

def test_stream_writes_every_operation_of_the_run(pmemids, tmp_path):
    out = tmp_path / "s.csv"
    r = pmemids("stream", "-P", WORKLOADS / "workloada", *TINY, "--out", out)
    assert r.returncode == 0, r.describe()
    rows = trace_lines(out)
    assert len(rows) == 500
    assert {row[0] for row in rows} == {"0"}
    assert {row[1] for row in rows} == {"read", "update"}
    assert all(len(row) == 3 and row[2].isdigit() for row in rows)


def test_stream_head_prints_the_first_operations(pmemids):
    full = pmemids("stream", "-P", WORKLOADS / "workloade", *TINY)
    head = pmemids("stream", "-P", WORKLOADS / "workloade", *TINY, "--head", "7")
    assert full.returncode == 0 and head.returncode == 0, full.describe() + head.describe()
    assert head.stdout.splitlines() == full.stdout.splitlines()[:9]
    assert any(l.split(",")[1] == "scan" and len(l.split(",")) == 4
               for l in full.stdout.splitlines()[2:])


def test_stream_threads_are_parallel_streams_or_concurrent_slices(pmemids, tmp_path):
    par, con = tmp_path / "p.csv", tmp_path / "c.csv"
    assert pmemids("stream", *TINY, "--thread-mode", "parallel", "--threads", "3",
                   "--out", par).returncode == 0
    rows = trace_lines(par)
    assert [sum(1 for row in rows if row[0] == str(t)) for t in range(3)] == [500, 500, 500]
    assert pmemids("stream", *TINY, "--thread-mode", "concurrent", "--threads", "3",
                   "--out", con).returncode == 0
    threads = [int(row[0]) for row in trace_lines(con)]
    assert threads == sorted(threads) and [threads.count(t) for t in range(3)] == [166, 167, 167]


def test_concurrent_stream_is_the_slices_run_executes(pmemids, tmp_path):
    """`stream --thread-mode concurrent` writes the slices a concurrent run
    executes (workload/stream.h): thread t inserts ids recordcount + 3j + t and
    targets only loaded ids and its own earlier inserts; run again as a trace,
    it gives the generated run's tallies, per worker too."""
    args = [*TINY, "-p", "readproportion=0.3", "-p", "updateproportion=0.2",
            "-p", "insertproportion=0.4", "-p", "readmodifywriteproportion=0.1",
            "-p", "requestdistribution=zipfian", "-p", "insertorder=ordered",
            "--thread-mode", "concurrent", "--threads", "3"]
    trace = tmp_path / "c.csv"
    assert pmemids("stream", *args, "--out", trace).returncode == 0
    rows = trace_lines(trace)
    records = 200  # TINY's recordcount
    seen: dict[int, set[int]] = {t: set() for t in range(3)}
    for thread, op, key, *_ in rows:
        t, k = int(thread), int(key)
        if op == "insert":
            assert k == records + 3 * len(seen[t]) + t, (t, k)
            seen[t].add(k)
        else:
            assert k < records or k in seen[t], f"thread {t} {op}s {k}, not loaded nor its own"
    assert all(seen.values())
    [gen] = expect_ok(pmemids.run("--ds", "hashtable", "--mode", "dram", *args))
    [rep] = expect_ok(pmemids.run("--ds", "hashtable", "--mode", "dram", *args,
                                  "-p", f"tracefile={trace}"))
    assert tallies(rep) == tallies(gen)
    assert [w["ops"] for w in rep["metrics"]["per_thread"]] == \
           [w["ops"] for w in gen["metrics"]["per_thread"]] == [166, 167, 167]
    m = gen["metrics"]
    assert m["read_not_found"] == m["update_not_found"] == m["readmodifywrite_not_found"] == 0


def test_stream_refuses_what_run_refuses(pmemids, tmp_path):
    out = tmp_path / "s.csv"
    expect_usage_error(pmemids("stream", *TINY, "--threads", "2", "--out", out),
                       "--threads 2 needs --thread-mode parallel, concurrent or native")
    expect_usage_error(pmemids("stream", "-p", "requestdistribution=zipf", "--out", out),
                       "requestdistribution", "zipfian-ycsbc")
    assert not out.exists()


def test_stream_summary_shows_the_key_popularity(pmemids):
    r = pmemids("stream", "-P", WORKLOADS / "workloadc", "-p", "recordcount=10000",
                "-p", "operationcount=100000", "--summary")
    assert r.returncode == 0, r.describe()
    lines = r.stdout.splitlines()
    assert lines[0] == "operations: 100000: read 100000 (100.00%)"
    assert lines[1].startswith("keys: 10000 loaded, 10000 ids by the end")
    assert "hottest key" in lines[2] and "top 1% of ids (100)" in lines[2]
    assert not any(l.startswith("thread,") for l in lines)


# ------------------------------------------------------------------ traces

@pytest.mark.parametrize("ds,extra", [("hashtable", ["-p", "scanproportion=0",
                                                     "-p", "readproportion=0.4"]),
                                      ("btree", [])])
@pytest.mark.parametrize("threads", [["--thread-mode", "single"],
                                     ["--thread-mode", "parallel", "--threads", "2"]])
def test_a_streamed_trace_runs_exactly_the_generated_run(pmemids, tmp_path, ds, extra, threads):
    args = [*TINY, *MIXED, *extra, *threads]
    trace = tmp_path / "t.csv"
    assert pmemids("stream", *args, "--out", trace).returncode == 0
    [gen] = expect_ok(pmemids.run("--ds", ds, "--mode", "dram", *args))
    [rep] = expect_ok(pmemids.run("--ds", ds, "--mode", "dram", *args, "-p", f"tracefile={trace}"))
    assert tallies(rep) == tallies(gen)
    assert gen["metrics"]["read_not_found"] > 0  # readmissrate reaches the trace too
    assert rep["config"]["tracefile"] == str(trace)
    assert (gen["config"]["request_generator"], rep["config"]["request_generator"]) == \
           ("ycsb-scrambled-zipfian", "trace")


def test_traceload_loads_the_keys_the_trace_uses(pmemids, tmp_path):
    trace = tmp_path / "plain.csv"
    trace.write_text("op,key\ninsert,900\nread,5\nread,6\nupdate,5\nread,900\nread,7\n")
    [rec] = expect_ok(pmemids.run("--ds", "arraylist", "--mode", "pmem-persist",
                                  "-p", "insertorder=ordered", "-p", f"tracefile={trace}",
                                  "-p", "traceload=true"))
    m = rec["metrics"]
    assert m["load_ops"] == 3
    assert (m["read_ops"], m["read_found"], m["update_found"]) == (4, 4, 1)


@pytest.mark.parametrize("text,needles", [
    ("read,1\nwrite,2\n", ["bad.csv:2: operation 'write'; expected one of read, update"]),
    ("0,read,1\nread,2\n", ["bad.csv:2:", "as the lines before"]),
    ("scan,1\n", ["bad.csv:1: a scan without a scan_length"]),
    ("", ["bad.csv: no operations"]),
])
def test_a_bad_trace_is_refused_naming_file_and_line(pmemids, pool_dir, tmp_path, text, needles):
    trace = tmp_path / "bad.csv"
    trace.write_text(text)
    expect_usage_error(pmemids.run("--ds", "btree", "--mode", "pmem-trans", "-p",
                                   f"tracefile={trace}"), *needles)
    assert pool_files(pool_dir) == []


def test_trace_files_must_be_regular_files(pmemids, tmp_path):
    expect_usage_error(pmemids.run("--ds", "btree", "--mode", "dram", "-p",
                                   f"tracefile={tmp_path}"), "is a directory; accepted: a regular file")
    expect_usage_error(pmemids.run("--ds", "btree", "--mode", "dram", "-p",
                                   f"tracefile={tmp_path / 'none.csv'}"), "cannot be read")
    expect_usage_error(pmemids.run("--ds", "btree", "--mode", "dram", "-p", "traceload=true"),
                       "needs tracefile=PATH")


def test_trace_scans_need_a_structure_that_scans(pmemids, tmp_path):
    trace = tmp_path / "s.csv"
    trace.write_text("scan,1,5\n")
    expect_usage_error(pmemids.run("--ds", "hashtable", "--mode", "dram",
                                   "-p", f"tracefile={trace}"), "hashtable cannot scan")


def test_crash_refuses_a_trace(pmemids, pool_dir, tmp_path):
    trace = tmp_path / "t.csv"
    trace.write_text("read,1\n")
    expect_usage_error(pmemids("crash", "--ds", "btree", "--points", "2", "--pool-dir", pool_dir,
                               "-p", f"tracefile={trace}"), "traces run with pmemids run")


# ------------------------------------------------------- request generators

@pytest.mark.parametrize("workload,dist,generator", [
    ("pmemids-read", "zipfian-ycsbc", "ycsbc-scrambled-zipfian"),
    ("pmemids-write", "zipfian-ycsbc", "ycsbc-scrambled-zipfian"),
    ("workloadc", "zipfian", "ycsb-scrambled-zipfian"),
    ("workloadd", "latest", "ycsb-skewed-latest"),
])
def test_records_name_the_generator_that_ran(pmemids, workload, dist, generator):
    [rec] = expect_ok(pmemids.run("--ds", "hashtable", "--mode", "dram", "-P",
                                  WORKLOADS / workload, *TINY))
    assert (rec["config"]["requestdistribution"], rec["config"]["request_generator"]) == \
           (dist, generator)


# ------------------------------------------------------------------ compare

def run_record(ds: str, ops_per_sec: float, rep: int, seed: int) -> dict:
    return {"schema_version": 1, "context": {"timestamp": f"t{rep}"},
            "config": {"ds": ds, "mode": "dram", "workload": "w", "threads": 1, "seed": seed,
                       "stream_seeds": [seed], "repetition": rep, "pool_dir": f"/p{seed}"},
            "metrics": {"ops_per_sec": ops_per_sec, "persists_per_op": 0.0,
                        "flushed_lines_per_op": None}}


def write_records(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_compare_of_a_file_with_itself_has_too_few_repetitions(pmemids, out_path, tmp_path):
    expect_ok(pmemids.run("--ds", "hashtable", "--mode", "pmem-trans", *TINY))
    copy = tmp_path / "copy.jsonl"
    shutil.copy(out_path, copy)
    r = pmemids("compare", out_path, copy)
    assert r.returncode == 0, r.describe()
    assert "hashtable pmem-trans" in r.stdout
    assert "too few repetitions for alpha 0.05: need at least 4 per side" in r.stdout
    assert "flushed_lines" in r.stdout and "tx_bytes" in r.stdout


def test_compare_verdicts_json_and_regression_exit(pmemids, tmp_path):
    base = write_records(tmp_path / "base.jsonl",
                         [run_record("hashtable", 100 + i, i, i) for i in range(5)] +
                         [run_record("btree", 50, 0, 1)])
    new = write_records(tmp_path / "new.jsonl",
                        [run_record("hashtable", 80 + i, i, 10 + i) for i in range(5)] +
                        [run_record("rbtree", 50, 0, 1)])
    r = pmemids("compare", base, new)
    assert r.returncode == 0, r.describe()
    [row] = [l for l in r.stdout.splitlines() if l.startswith("hashtable")]
    assert row.split()[-1] == "slower" and "0.804" in row, r.stdout
    assert "only in BASE (not compared): btree dram w" in r.stdout
    assert "only in NEW (not compared): rbtree dram w" in r.stdout

    j = json.loads(pmemids("compare", base, new, "--json").stdout)
    [c] = j["configurations"]
    assert (c["verdict"], c["base"]["n"], c["new"]["n"]) == ("slower", 5, 5)
    assert c["p_value"] == pytest.approx(2 / 252)
    assert c["new"]["costs"]["flushed_lines_per_op"] is None
    assert j["only_in_base"] == ["btree dram w"] and j["only_in_new"] == ["rbtree dram w"]

    r = pmemids("compare", base, new, "--fail-on-regression", "10")
    assert r.returncode == 3, r.describe()
    assert "hashtable dram w: 19.6% slower" in r.stderr
    assert pmemids("compare", base, new, "--fail-on-regression", "25").returncode == 0


def test_compare_refuses_files_that_are_not_results(pmemids, tmp_path):
    good = write_records(tmp_path / "good.jsonl", [run_record("hashtable", 1, 0, 0)])
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(run_record("hashtable", 1, 0, 0)) + "\nnot json\n")
    expect_usage_error(pmemids("compare", good, bad), "bad.jsonl:2: not JSON")
    bad.write_text('{"config": {"ds": "x"}}\n')
    expect_usage_error(pmemids("compare", bad, good), "bad.jsonl:1: not a pmemids result record")
    expect_usage_error(pmemids("compare", good, tmp_path / "none.jsonl"), "none.jsonl")


def flush_records(ds: str, flush: str, ops: list[float], seed0: int = 0) -> list[dict]:
    """Run records of one configuration run with --flush FLUSH (flush_instruction and
    flush_auto follow from it)."""
    recs = [run_record(ds, x, i, seed0 + i) for i, x in enumerate(ops)]
    for r in recs:
        r["config"].update(flush=flush, flush_instruction=flush, flush_auto=False)
    return recs


def test_a_regression_gate_that_compared_nothing_is_a_usage_error(pmemids, tmp_path):
    base = write_records(tmp_path / "base.jsonl", [run_record("hashtable", 100 + i, i, i) for i in range(5)])
    new = write_records(tmp_path / "new.jsonl", [run_record("btree", 100 + i, i, i) for i in range(5)])
    r = pmemids("compare", base, new, "--fail-on-regression", "5")
    assert r.returncode == 2, r.describe()
    assert "no configuration is in both files" in r.stderr, r.stderr
    assert "only in BASE: hashtable" in r.stderr and "only in NEW: btree" in r.stderr, r.stderr
    # Shared configurations whose repetitions cannot reach alpha compare nothing either.
    one = write_records(tmp_path / "one.jsonl", [run_record("hashtable", 100, 0, 0)])
    r = pmemids("compare", one, one, "--fail-on-regression", "5")
    assert r.returncode == 2, r.describe()
    assert "too few repetitions" in r.stderr and "--repeat 4" in r.stderr, r.stderr
    # Without the gate, the same comparison is a listing (exit 0).
    assert pmemids("compare", base, new).returncode == 0


def test_ignoring_a_key_ignores_the_keys_derived_from_it(pmemids, tmp_path):
    base = write_records(tmp_path / "base.jsonl", flush_records("hashtable", "clwb", [100, 101, 102, 103]))
    new = write_records(tmp_path / "new.jsonl", flush_records("hashtable", "clflushopt", [90, 91, 92, 93], 10))
    r = pmemids("compare", base, new, "--ignore", "flush", "--json")
    assert r.returncode == 0, r.describe()
    j = json.loads(r.stdout)
    assert len(j["configurations"]) == 1 and not j["only_in_base"], j
    assert set(j["ignored_keys"]) == {"flush", "flush_auto", "flush_instruction"}, j
    text = pmemids("compare", base, new, "--ignore", "flush").stdout
    assert "flush_auto, flush_instruction (derived from flush)" in text, text


def test_per_op_costs_are_a_table_without_unobserved_metrics(pmemids, tmp_path):
    base = write_records(tmp_path / "base.jsonl", [run_record("hashtable", 100 + i, i, i) for i in range(4)])
    new = write_records(tmp_path / "new.jsonl", [run_record("hashtable", 90 + i, i, 10 + i) for i in range(4)])
    out = pmemids("compare", base, new).stdout
    assert "n/a -> n/a" not in out and "->" not in out, out
    lines = out.splitlines()
    head = next(i for i, l in enumerate(lines) if l.startswith("per-op costs"))
    assert lines[head + 1].split() == ["configuration", "cost", "base", "new", "new/base"], out
    # persists_per_op is 0 on both sides: no ratio.
    [row] = [l for l in lines[head + 2:] if " persists " in l]
    assert row.strip().startswith("hashtable dram w") and row.split()[-3:] == ["0", "0", "n/a"], row
    assert "not observed on either side: flushed_lines_per_op" in out, out


def test_one_unit_per_throughput_column(pmemids, tmp_path):
    base = write_records(tmp_path / "base.jsonl", [run_record("hashtable", 4.21e6, 0, 0),
                                                  run_record("btree", 983200, 0, 0)])
    out = pmemids("compare", base, base).stdout
    header = next(l for l in out.splitlines() if l.startswith("configuration"))
    assert "base Mops/s" in header and "new Mops/s" in header, header
    table = out.split("per-op costs")[0].splitlines()
    rows = {l.split()[0]: l.split() for l in table if l.startswith(("hashtable", "btree"))}
    assert rows["hashtable"][3] == "4.210" and rows["btree"][3] == "0.983", rows
    assert "K" not in " ".join(rows["btree"][3:6]), rows
