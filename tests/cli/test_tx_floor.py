"""scripts/tx-floor.sh: a hashtable update in pmem-trans against libpmemobj's floor (issue 30).

The script is a measurement (docs/performance.md, "The hashtable update's floor"), not part
of the suite's timings: these tests run it once at a tiny table and check what it prints,
not how fast anything ran. Every table size gets its components and four ratios (txlog
kept or written, plus the dram update's throughput or one dram update alone), each a
positive number; bad arguments exit 2 before anything runs.
"""

from __future__ import annotations

import os
import re
import subprocess

import pytest

from conftest import REPO

SCRIPT = REPO / "scripts" / "tx-floor.sh"
FLOORS = [f"txlog {data} + dram {kind}" for data in ("kept", "written")
          for kind in ("throughput", "latency")]


def tx_floor(binary, pool_dir, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PMEMIDS_BIN=str(binary), PMEMIDS_POOL_DIR=str(pool_dir))
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, env=env,
                          timeout=300)


def test_every_floor_is_printed_per_table_size(binary, pool_dir):
    p = tx_floor(binary, pool_dir, "--rounds", "1", "--records", "2000", "--cpu", "0")
    assert p.returncode == 0, p.stderr
    lines = [l for l in p.stdout.splitlines() if l.startswith("records 2000:")]
    components = [l for l in lines if "update ns" in l]
    assert len(components) == 1, p.stdout
    for name in ("update ns", "throughput", "latency", "kept", "written"):
        assert re.search(rf"{name} \[\d+\]", components[0]), (name, components[0])
    for floor in FLOORS:
        ratio = [l for l in lines if f"update / ({floor})" in l]
        assert len(ratio) == 1, (floor, p.stdout)
        assert float(ratio[0].rsplit("median ", 1)[1]) > 0, ratio[0]
    assert not list(pool_dir.iterdir()), "every run's pool is removed"


@pytest.mark.parametrize("args, names", [
    (["--rounds", "0"], "--rounds"),
    (["--triples", "x"], "--triples"),
    (["--records", "1,,2"], "--records"),
    (["--cpu", "one"], "--cpu"),
    (["--bogus"], "--bogus"),
])
def test_bad_arguments_exit_2_naming_them(binary, pool_dir, args, names):
    p = tx_floor(binary, pool_dir, *args)
    assert p.returncode == 2, p.stderr
    assert names in p.stderr and "tx-floor.sh:" in p.stderr, p.stderr
    assert not p.stdout
