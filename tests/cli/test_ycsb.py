"""YCSB's client settings do what YCSB does: threadcount / -threads, target /
-target (throttled, latencies also from each operation's intended start),
status.interval / -s / --status-interval, and the YCSB keys that stay ignored
named on stderr once."""

from __future__ import annotations

import re

import pytest

from conftest import WORKLOADS

READ = ["-P", WORKLOADS / "workloadc", "-p", "recordcount=2000"]
NOTE_CONCURRENT = "no --thread-mode: the 2 threads share one instance"


def ok(r):
    assert r.returncode == 0, r.describe()
    return r.new_records


@pytest.mark.parametrize("spelling", [["-p", "threadcount=2"], ["-threads", "2"], ["--threads", "2"], "file"])
def test_two_threads_default_to_concurrent_as_ycsb(pmemids, tmp_path, spelling):
    if spelling == "file":
        (tmp_path / "two").write_text("threadcount=2\n")
        spelling = ["-P", tmp_path / "two"]
    (rec,) = ok(pmemids.run("--ds", "hashtable", "--mode", "dram", *READ, "-p", "operationcount=2000",
                            *spelling))
    assert (rec["config"]["threads"], rec["config"]["thread_mode"]) == (2, "concurrent")
    assert len(rec["metrics"]["per_thread"]) == 2
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", *READ, *spelling)
    assert NOTE_CONCURRENT in r.stderr


def test_threads_option_wins_over_threadcount_and_thread_mode_is_kept(pmemids):
    (rec,) = ok(pmemids.run("--ds", "hashtable", "--mode", "dram", *READ, "-p", "threadcount=4",
                            "--threads", "2", "--thread-mode", "parallel"))
    assert (rec["config"]["threads"], rec["config"]["thread_mode"]) == (2, "parallel")
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", *READ, "-p", "threadcount=2", "--thread-mode", "single")
    assert r.returncode == 2 and "threadcount=2 needs --thread-mode parallel, concurrent or native" in r.stderr, r.describe()
    assert not r.new_records


def test_one_thread_stays_single_without_a_note(pmemids):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", *READ)
    assert ok(r)[0]["config"]["thread_mode"] == "single"
    assert "share one instance" not in r.stderr


@pytest.mark.parametrize("spelling", [["-p", "target=2000"], ["-target", "2000"], ["--target", "2000"]])
def test_target_throttles_and_records_intended_latency(pmemids, spelling):
    (rec,) = ok(pmemids.run("--ds", "hashtable", "--mode", "dram", *READ, "-p", "operationcount=600",
                            "--latency-sample", "1", *spelling))
    m = rec["metrics"]
    assert rec["config"]["target"] == 2000
    # operation k is due k / 2000 s after the start: the last one at 599 / 2000 s
    assert m["seconds"] >= 599 / 2000
    assert m["intended_latency_read_samples"] == m["latency_read_samples"] == 600
    for p in ["p50", "p99", "max"]:
        assert m[f"intended_latency_read_{p}_ns"] >= m[f"latency_read_{p}_ns"], p


def test_target_is_spread_over_the_workers(pmemids):
    (rec,) = ok(pmemids.run("--ds", "hashtable", "--mode", "dram", *READ, "-p", "operationcount=600",
                            "-threads", "2", "-target", "2000"))
    # 300 operations per worker at 1000/s each: the last due at 299 / 1000 s
    assert rec["metrics"]["seconds"] >= 299 / 1000
    assert all(t["ops"] == 300 for t in rec["metrics"]["per_thread"])


def test_target_with_duration_replays_cycles_on_schedule(pmemids):
    # 300 operations at 2000/s for 0.5 s: about 1000 operations, so replay cycles past the
    # first, each inserting fresh keys (found fraction of inserts 0, of reads 1).
    (rec,) = ok(pmemids.run("--ds", "hashtable", "--mode", "dram", "-P", WORKLOADS / "workloada",
                            "-p", "recordcount=2000", "-p", "operationcount=300",
                            "-p", "readproportion=0.5", "-p", "updateproportion=0",
                            "-p", "insertproportion=0.5", "--latency-sample", "1",
                            "--target", "2000", "--duration", "0.5"))
    m = rec["metrics"]
    assert m["per_thread"][0]["cycles"] >= 2
    assert 300 < m["ops"] <= 2000 * 0.5 * 1.5 + 256
    assert m["insert_found"] == 0 and m["read_found"] == m["read_ops"]
    assert m["intended_latency_read_samples"] == m["latency_read_samples"] == m["read_ops"]


def test_no_target_no_throttle_no_intended_latency(pmemids):
    for args in ([], ["-p", "target=500", "--target", "0"]):
        (rec,) = ok(pmemids.run("--ds", "hashtable", "--mode", "dram", *READ, *args))
        assert rec["config"]["target"] is None
        assert not any(k.startswith("intended_latency_") for k in rec["metrics"]), args


def status_lines(stderr: str) -> list[str]:
    return [l for l in stderr.splitlines() if l.startswith("pmemids: status ")]


@pytest.mark.parametrize("spelling", [["--status-interval", "0.4"], ["-s", "-p", "status.interval=0.4"],
                                      ["-p", "status.interval=0.4"]])
def test_status_lines_every_interval(pmemids, spelling):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", *READ, "--duration", "1.1", *spelling)
    (rec,) = ok(r)
    lines = status_lines(r.stderr)
    assert len(lines) >= 2, r.stderr
    for line in lines:
        assert re.match(r"pmemids: status \d+\.\d s: \d+ operations; \d+\.\d current ops/sec; p99 read \d", line), line
    assert rec["config"]["status_interval"] == 0.4


def test_no_status_lines_unless_asked(pmemids):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", *READ, "--duration", "0.3")
    assert ok(r) and not status_lines(r.stderr)


def test_status_lines_without_sampling_have_no_p99(pmemids):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", *READ, "--duration", "0.7", "--status-interval", "0.2",
                    "--latency-sample", "0")
    assert ok(r)
    lines = status_lines(r.stderr)
    assert lines and all(l.endswith("current ops/sec") for l in lines), r.stderr


def test_ignored_ycsb_keys_are_named_on_stderr_once(pmemids):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram,pmem-volatile", *READ, "--repeat", "2",
                    "-p", "table=usertable", "-p", "fieldcount=10")
    assert len(ok(r)) == 6
    notes = [l for l in r.stderr.splitlines() if "no effect here" in l]
    assert len(notes) == 1, r.stderr
    assert "fieldcount=10" in notes[0] and "table=usertable" in notes[0]


def test_crash_names_client_settings_as_ignored(pmemids, pool_dir):
    r = pmemids("crash", "--ds", "hashtable", "--mode", "pmem-persist", "--points", "3", "--pool-dir", pool_dir,
                "-p", "threadcount=4", "-p", "target=10", "--out", "-")
    assert r.returncode == 0, r.describe()
    assert re.search(r"no effect here, ignored: target=10, threadcount=4", r.stderr), r.stderr
