#!/usr/bin/env python3
"""What a SLURM job array costs on top of the sweep itself (docs/sweeps.md, "Measured
here"): tests/cli/test_slurm.py's sweep (6 configurations, tiny) run sequentially with
`pmemids sweep`, and as a 3-task array of scripts/slurm-sweep.sh with `sbatch --wait`,
interleaved over ROUNDS rounds (A B | B A | ...). Per array: seconds from submission to
each task's log appearing (the task started), to its first record, to the last record of
all tasks, and to `sbatch --wait` returning; medians and every round.

Needs a running cluster whose clients work from this shell (scripts/slurm-local.sh start):

    scripts/slurm-timing.py build/pmemids 5
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TASKS = 3


def sequential(binary: str, sweep: Path, work: Path, pools: Path, i: int) -> float:
    t0 = time.monotonic()
    subprocess.run([binary, "sweep", sweep, "--out", work / f"seq{i}.jsonl", "--pool-dir", pools],
                   check=True, capture_output=True)
    return time.monotonic() - t0


def array(env: dict, sweep: Path, work: Path, i: int, per_task: list[int]) -> dict:
    d = work / f"array{i}"
    d.mkdir()
    started: dict[int, float] = {}
    first: dict[int, float] = {}
    done: dict[int, float] = {}
    t0 = time.monotonic()
    p = subprocess.Popen(["sbatch", "--wait", f"--array=0-{TASKS - 1}", "-o", "task-%a.log",
                          REPO / "scripts" / "slurm-sweep.sh", sweep, "default", "res"],
                         stdout=subprocess.DEVNULL, env=env, cwd=d)
    while p.poll() is None:
        now = time.monotonic() - t0
        for k in range(TASKS):
            if k not in started and (d / f"task-{k}.log").exists():
                started[k] = now
            shard = d / "res" / f"shard-{k}-of-{TASKS}.jsonl"
            lines = len(shard.read_text().splitlines()) if shard.exists() else 0
            if lines:
                first.setdefault(k, now)
            if lines == per_task[k]:
                done.setdefault(k, now)
        time.sleep(0.005)
    wait = time.monotonic() - t0
    if p.returncode != 0 or len(done) != TASKS:
        sys.exit(f"array {i}: sbatch exit {p.returncode}, tasks done {sorted(done)}; logs in {d}")
    return {"started": started, "first": first, "last": max(done.values()), "wait": wait}


def line(name: str, xs: list[float]) -> str:
    return f"{name:<42} median {statistics.median(xs):6.2f} s   rounds {' '.join(f'{x:.2f}' for x in xs)}"


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    binary, rounds = str(Path(sys.argv[1]).resolve()), int(sys.argv[2])
    work = Path(tempfile.mkdtemp(prefix="pmemids-slurm-timing-"))
    pools = Path(tempfile.mkdtemp(prefix="pmemids-slurm-timing-", dir="/dev/shm"))
    try:
        sweep = work / "s.toml"
        sweep.write_text(f'workload = "{REPO}/workloads/pmemids-read"\nthread-mode = "single"\n'
                         'repeat = 1\n[matrix]\nds = ["hashtable", "btree", "skiplist"]\n'
                         'mode = ["dram", "pmem-persist"]\n[properties]\nrecordcount = 300\n'
                         'operationcount = 3000\n')
        per_task = [len(subprocess.run([binary, "sweep", sweep, "--dry-run", "--shard", f"{k}/{TASKS}"],
                                       check=True, capture_output=True, text=True).stdout.splitlines())
                    for k in range(TASKS)]
        env = {**os.environ, "PMEMIDS": binary, "PMEMIDS_POOL_DIR": str(pools)}
        seq, arr, loads = [], [], []
        for i in range(rounds):
            for kind in (["seq", "array"] if i % 2 == 0 else ["array", "seq"]):
                if kind == "seq":
                    seq.append(sequential(binary, sweep, work, pools, i))
                else:
                    arr.append(array(env, sweep, work, i, per_task))
                loads.append(os.getloadavg()[0])
        print(f"{rounds} rounds, interleaved; 1-minute load average {min(loads):.1f} to {max(loads):.1f} "
              f"on {os.cpu_count()} CPUs; configurations per task {per_task}")
        print(line("sequential: pmemids sweep", seq))
        print(line("array: submit -> last record", [a["last"] for a in arr]))
        print(line("array: submit -> sbatch --wait returns", [a["wait"] for a in arr]))
        for k in range(TASKS):
            print(line(f"task {k}: submit -> started", [a["started"][k] for a in arr]))
            print(line(f"task {k}: submit -> first record", [a["first"][k] for a in arr]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(pools, ignore_errors=True)


if __name__ == "__main__":
    main()
