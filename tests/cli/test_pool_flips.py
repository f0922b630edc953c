"""Corrupted kept pools: random bytes flipped, then `run --reopen`.

For every durable (structure, mode) a small pool is kept once; then each trial
copies it, inverts a few random bytes (in the pool header and descriptor, the
lanes, the heap's used part, or anywhere), hashes the copy and reopens it with
a workload that reads, updates, inserts and deletes. Whatever the bytes hit, the
reopen must end by itself (never a signal, never the test's timeout) with:

  exit 0   the damage was where nothing looks (the run then used the pool), or
  exit 1   "pool '<path>' is corrupt: ...", the file byte-for-byte as it was, or
  exit 2   a refusal that names the pool and what it holds (layout, signature,
           a value size or key order the workload does not match), the file as
           it was.

FLIPS trials in all (PMEMIDS_FLIPS overrides; the default keeps the suite
fast), spread evenly over the pools, two at a time. Seeds are fixed per trial
(PMEMIDS_FLIP_SEED shifts them), so a failure names a trial that reproduces.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import STRUCTURES, TIMEOUT_S, sha256

DURABLE = [(ds, mode) for ds in STRUCTURES for mode in ("pmem-persist", "pmem-trans")]
FLIPS = int(os.environ.get("PMEMIDS_FLIPS", "200"))
SEED = int(os.environ.get("PMEMIDS_FLIP_SEED", "0"))
LOAD = ["-p", "recordcount=300", "-p", "operationcount=300", "-p", "insertproportion=0.3",
        "-p", "deleteproportion=0.3", "-p", "readproportion=0.2", "-p", "updateproportion=0.2"]
REOPEN = ["-p", "recordcount=300", "-p", "operationcount=100", "-p", "readproportion=0.4",
          "-p", "updateproportion=0.2", "-p", "insertproportion=0.2", "-p", "deleteproportion=0.2"]
# What an exit 2 may say: the pool holds something else than the options ask for.
MISMATCH = ("not a libpmemobj pool", "holds layout", "values but fieldlength", "insertorder=",
            "keys per node", "max height")


def used_extent(data: bytes) -> int:
    """End of the last 4 KiB page holding a non-zero byte."""
    end = len(data)
    while end > 0 and not any(data[end - 4096:end]):
        end -= 4096
    return max(end, 4096)


def flip(path: Path, rng: random.Random) -> list[int]:
    data = bytearray(path.read_bytes())
    used = used_extent(data)
    offsets = []
    for _ in range(rng.randint(1, 4)):
        where = rng.random()
        if where < 0.3:
            off = rng.randrange(0, 12288)               # pool header, descriptor, first lanes
        elif where < 0.8:
            off = rng.randrange(used // 2, used)        # the heap's used part
        else:
            off = rng.randrange(0, len(data))           # anywhere
        data[off] ^= rng.randrange(1, 256)
        offsets.append(off)
    path.write_bytes(bytes(data))
    return offsets


@pytest.fixture(scope="module")
def kept_pools(binary, tmp_path_factory):
    """One small kept pool per durable (structure, mode), made once."""
    d = Path(tmp_path_factory.mktemp("pristine", numbered=True))
    pools = Path("/dev/shm") / f"pmemids-flips-{os.getpid()}"
    pools.mkdir(exist_ok=True)
    try:
        def keep(pair):
            ds, mode = pair
            p = subprocess.run([str(binary), "run", "--ds", ds, "--mode", mode, "--keep-pool",
                                "--pool-size", "8M", "--pool-dir", str(pools),
                                "--out", str(d / "setup.jsonl"), *LOAD],
                               capture_output=True, text=True, timeout=TIMEOUT_S)
            assert p.returncode == 0, p.stderr
            name = f"{ds}.{mode}.pool"
            shutil.copyfile(pools / name, d / name)
            (pools / name).unlink()
        with ThreadPoolExecutor(2) as ex:
            list(ex.map(keep, DURABLE))
        yield d
    finally:
        shutil.rmtree(pools, ignore_errors=True)


def trial(binary: Path, pristine: Path, work: Path, index: int) -> tuple[int | None, str | None]:
    """One flipped reopen: its exit code, and a failure description or None."""
    ds, mode = DURABLE[index % len(DURABLE)]
    rng = random.Random(SEED * 1_000_003 + index)
    pool_dir = work / f"t{index}"
    pool_dir.mkdir()
    pool = pool_dir / f"{ds}.{mode}.pool"
    shutil.copyfile(pristine / f"{ds}.{mode}.pool", pool)
    offsets = flip(pool, rng)
    before = sha256(pool)
    cmd = [str(binary), "run", "--ds", ds, "--mode", mode, "--reopen", "--pool-dir", str(pool_dir),
           "--out", str(pool_dir / "r.jsonl"), "--pool-check-timeout", "1", *REOPEN]
    where = f"trial {index} ({ds} {mode}, bytes at {offsets}, PMEMIDS_FLIP_SEED={SEED})"
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S, errors="replace")
    except subprocess.TimeoutExpired:
        return None, f"{where}: did not finish within {TIMEOUT_S} s"
    try:
        return p.returncode, judge(p, pool, before, where)
    finally:
        shutil.rmtree(pool_dir, ignore_errors=True)


def judge(p: subprocess.CompletedProcess, pool: Path, before: str, where: str) -> str | None:
    if p.returncode < 0:
        return f"{where}: killed by signal {-p.returncode}\n{p.stderr}"
    if p.returncode == 0:
        return None
    if p.returncode == 1:
        if "is corrupt" not in p.stderr:
            return f"{where}: exit 1 without the corrupt-pool message\n{p.stderr}"
    elif p.returncode == 2:
        if not any(m in p.stderr for m in MISMATCH):
            return f"{where}: exit 2 without a pool mismatch message\n{p.stderr}"
    else:
        return f"{where}: exit {p.returncode}\n{p.stderr}"
    if sha256(pool) != before:
        return f"{where}: refused (exit {p.returncode}) but the file changed\n{p.stderr}"
    return None


def test_flipped_bytes_never_crash_hang_or_change_a_refused_pool(binary, kept_pools):
    work = Path("/dev/shm") / f"pmemids-flips-work-{os.getpid()}"
    work.mkdir(exist_ok=True)
    try:
        with ThreadPoolExecutor(2) as ex:
            results = list(ex.map(lambda i: trial(binary, kept_pools, work, i), range(FLIPS)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    codes = [code for code, _ in results]
    print(f"{FLIPS} flipped reopens: " + ", ".join(
        f"{codes.count(c)} exit {c}" for c in sorted(set(c for c in codes if c is not None))))
    failures = [f for _, f in results if f is not None]
    assert not failures, f"{len(failures)} of {FLIPS} trials failed:\n\n" + "\n\n".join(failures[:10])
