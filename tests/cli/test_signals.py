"""SIGINT and SIGTERM: the command stops, removes what it created, writes no
partial record, and exits 128 + the signal (130, 143).

Each test starts the binary, waits until it is inside the phase named (its
stderr shows it), sends the signal to that process (by its pid) and waits.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from conftest import TIMEOUT_S, read_records

LONG = ["--duration", "20", "-p", "recordcount=2000", "-p", "operationcount=20000"]


def start(binary: Path, *args: str) -> tuple[subprocess.Popen, list[str]]:
    env = {k: v for k, v in os.environ.items() if k != "PMEMIDS_POOL_DIR"}
    p = subprocess.Popen([str(binary), *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True, env=env)
    lines: list[str] = []
    # Read until the process closes stderr; stop() joins it, so that the last
    # lines (the interruption's message) are in `lines` before a test reads them.
    p.reader = threading.Thread(target=lambda: lines.extend(p.stderr), daemon=True)
    p.reader.start()
    return p, lines


def wait_for(lines: list[str], phrase: str, p: subprocess.Popen, seconds: float = TIMEOUT_S) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if any(phrase in l for l in lines):
            return
        if p.poll() is not None:
            pytest.fail(f"ended (exit {p.returncode}) before {phrase!r}:\n{''.join(lines)}")
        time.sleep(0.05)
    p.kill()
    pytest.fail(f"{phrase!r} did not appear within {seconds} s:\n{''.join(lines)}")


def stop(p: subprocess.Popen, sig: int) -> int:
    time.sleep(0.3)  # inside the phase, not at its first instruction
    p.send_signal(sig)
    try:
        code = p.wait(timeout=TIMEOUT_S)
        p.reader.join(timeout=TIMEOUT_S)
        return code
    except subprocess.TimeoutExpired:
        p.kill()
        pytest.fail("did not stop within the timeout after the signal")


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
@pytest.mark.parametrize("mode", ["pmem-persist", "dram"])
def test_run_removes_its_pool_and_writes_no_record(binary, pool_dir, out_path, sig, code, mode):
    p, lines = start(binary, "run", "--ds", "btree", "--mode", mode, "--keep-pool", "--pool-dir",
                     str(pool_dir), "--out", str(out_path), *LONG)
    wait_for(lines, "generating", p)
    if mode != "dram":  # signalled once the pool exists: while loading or running
        end = time.monotonic() + TIMEOUT_S
        while not any(pool_dir.iterdir()) and time.monotonic() < end and p.poll() is None:
            time.sleep(0.02)
    assert stop(p, sig) == code, "".join(lines)
    assert list(pool_dir.iterdir()) == [], "the interrupted run left its pool"
    assert read_records(out_path) == []
    assert "interrupted by" in "".join(lines)


def test_the_same_run_then_succeeds(binary, pool_dir, out_path):
    args = ["run", "--ds", "hashtable", "--mode", "pmem-trans", "--pool-dir", str(pool_dir),
            "--out", str(out_path)]
    p, lines = start(binary, *args, *LONG)
    wait_for(lines, "generating", p)
    assert stop(p, signal.SIGINT) == 130
    r = subprocess.run([str(binary), *args, "-p", "recordcount=200", "-p", "operationcount=200"],
                       capture_output=True, text=True, timeout=TIMEOUT_S)
    assert r.returncode == 0, r.stderr
    assert len(read_records(out_path)) == 1


def test_a_reopened_pool_is_never_removed(binary, pool_dir, out_path):
    base = ["run", "--ds", "rbtree", "--mode", "pmem-persist", "--pool-dir", str(pool_dir),
            "--out", str(out_path), "-p", "recordcount=2000"]
    r = subprocess.run([str(binary), *base, "--keep-pool"], capture_output=True, text=True,
                       timeout=TIMEOUT_S)
    assert r.returncode == 0, r.stderr
    p, lines = start(binary, *base, "--reopen", "--duration", "20", "-p", "readproportion=1",
                     "-p", "updateproportion=0")
    wait_for(lines, "checked before reopening", p)
    assert stop(p, signal.SIGTERM) == 143
    assert (pool_dir / "rbtree.pmem-persist.pool").exists()
    assert len(read_records(out_path)) == 1  # the keeping run's only


def test_crash_removes_its_work_directory(binary, pool_dir, out_path):
    p, lines = start(binary, "crash", "--ds", "btree,rbtree,skiplist", "--points", "5000",
                     "--pool-dir", str(pool_dir), "--out", str(out_path),
                     "-p", "recordcount=2000", "-p", "operationcount=20000")
    end = time.monotonic() + TIMEOUT_S  # signalled once its work directory exists
    while not any(pool_dir.iterdir()) and time.monotonic() < end and p.poll() is None:
        time.sleep(0.02)
    assert any(pool_dir.iterdir()), "crash never created its work directory"
    assert stop(p, signal.SIGTERM) == 143, "".join(lines)
    assert list(pool_dir.iterdir()) == [], "crash left its work directory"
    assert read_records(out_path) == []


def test_sweep_exit_code_names_the_signal(binary, tmp_path, pool_dir):
    sweep = tmp_path / "s.toml"
    sweep.write_text('ds = "btree"\nmode = "dram"\nduration = 20\n'
                     '[properties]\nrecordcount = [1000, 2000]\n')
    out = tmp_path / "o.jsonl"
    p, lines = start(binary, "sweep", str(sweep), "--out", str(out), "--pool-dir", str(pool_dir))
    wait_for(lines, "to run", p)
    assert stop(p, signal.SIGTERM) == 143, "".join(lines)
    assert read_records(out) == []
    assert list(pool_dir.iterdir()) == []


def test_dry_run_of_a_forced_huge_sweep_prints_as_it_expands(binary, tmp_path):
    sweep = tmp_path / "s.toml"
    sweep.write_text('ds = "blackhole"\nmode = "dram"\n[properties]\n'
                     'recordcount = "1:1000"\noperationcount = "1:1000"\n')
    p = subprocess.Popen([str(binary), "sweep", str(sweep), "--dry-run", "--force"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        first = []
        t = threading.Thread(target=lambda: first.append(p.stdout.readline()), daemon=True)
        t.start()
        t.join(TIMEOUT_S)
        assert first and first[0].startswith("pmemids run "), "nothing printed in time"
    finally:
        p.kill()
        p.wait()


# ---------------------------------------------------------------------------
# Issue 29: every command honours a stop within seconds (the bound below is a
# liveness limit, far above the ~0.1 s these take, not a speed figure).

STOP_BOUND_S = 5


def processes_naming(path: Path) -> list[str]:
    """Live processes (not zombies) whose command line names `path`."""
    out = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if str(path) in cmd and state != "Z":
            out.append(f"{proc.name}: {cmd}")
    return out


def stops_within(p: subprocess.Popen, sig: int, lines: list[str], bound: float = STOP_BOUND_S) -> int:
    p.send_signal(sig)
    try:
        return p.wait(timeout=bound)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        pytest.fail(f"still running {bound} s after the signal:\n{''.join(lines)}")


def nothing_left(path: Path) -> None:
    end = time.monotonic() + STOP_BOUND_S  # the checker's group dies with its parent
    while processes_naming(path) and time.monotonic() < end:
        time.sleep(0.05)
    assert processes_naming(path) == []


@pytest.mark.parametrize("args", [
    ["--ds", "btree", "--mode", "pmem-trans", "--points", "all", "-p", "recordcount=5000"],
    ["--ds", "lflist-tlog", "--points", "all", "-p", "keyrange=20000"],
    ["--ds", "hashtable", "--mode", "pmem-trans", "--model", "process", "--points", "500",
     "-p", "recordcount=5000"],
    ["--ds", "lflist-tlog", "--threads", "2", "--points", "all", "-p", "keyrange=4000"],
], ids=["btree-trans-all", "lflist-tlog-all", "process-model", "multi-thread"])
def test_crash_every_point_stops_within_seconds(binary, pool_dir, out_path, args):
    p, lines = start(binary, "crash", *args, "--pool-dir", str(pool_dir), "--out", str(out_path))
    end = time.monotonic() + TIMEOUT_S
    while not any(pool_dir.iterdir()) and time.monotonic() < end and p.poll() is None:
        time.sleep(0.02)
    time.sleep(2)  # deep among its points and checks
    assert p.poll() is None, "".join(lines)
    assert stops_within(p, signal.SIGTERM, lines) == 143, "".join(lines)
    assert list(pool_dir.iterdir()) == [], "crash left its work directory"
    nothing_left(pool_dir)
    assert read_records(out_path) == []


def test_throttled_run_stops_while_it_waits(binary, pool_dir, out_path):
    p, lines = start(binary, "run", "--ds", "btree", "--mode", "pmem-persist", "--target", "1e-9",
                     "--duration", "3600", "-p", "recordcount=100", "-p", "operationcount=50",
                     "--pool-dir", str(pool_dir), "--out", str(out_path))
    wait_for(lines, "generating", p)
    time.sleep(1)  # waiting for the second operation, due in 31 years
    assert stops_within(p, signal.SIGTERM, lines) == 143, "".join(lines)
    assert list(pool_dir.iterdir()) == []
    assert read_records(out_path) == []


def test_run_stops_while_it_generates_its_stream(binary, pool_dir, out_path):
    p, lines = start(binary, "run", "--ds", "hashtable", "--mode", "dram", "-p", "recordcount=1000000",
                     "-p", "operationcount=200000000", "--pool-dir", str(pool_dir),
                     "--out", str(out_path))
    wait_for(lines, "generating", p)
    time.sleep(0.3)
    assert stops_within(p, signal.SIGTERM, lines) == 143, "".join(lines)
    assert read_records(out_path) == []


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_reproduce_passes_the_signal_to_its_sweep(binary, tmp_path, pool_dir, sig, code):
    out = tmp_path / "r"
    p, lines = start(binary, "reproduce", "003-flush", "--scale", "quick", "--no-report",
                     "--out", str(out), "--pool-dir", str(pool_dir))
    end = time.monotonic() + TIMEOUT_S  # the sweep is running a configuration
    while not any(pool_dir.glob("sweep-*")) and time.monotonic() < end and p.poll() is None:
        time.sleep(0.02)
    assert p.poll() is None and any(pool_dir.glob("sweep-*")), "".join(lines)
    assert stops_within(p, sig, lines) == code, "".join(lines)
    nothing_left(pool_dir)
    assert list(pool_dir.iterdir()) == [], "the sweep's pool directory was left"
    assert "Traceback" not in "".join(lines)
