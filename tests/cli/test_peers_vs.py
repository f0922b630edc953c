"""scripts/peers/vs.py, the peer comparisons of docs/performance.md, without the peers:
its refusals of bad arguments (exit 2 before anything runs), its refusal when the pool
directory has no room, and its arithmetic (median, range, sign test, geometric mean) on
canned ratios. Under a second; no peer is built or run."""

from __future__ import annotations

import importlib.util
import math
import subprocess
import sys

import pytest

from conftest import REPO

VS = REPO / "scripts" / "peers" / "vs.py"


def vs_module():
    spec = importlib.util.spec_from_file_location("peers_vs", VS)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def run_vs(tmp_path, *args):
    env = {"PATH": "/usr/bin:/bin", "PMEMIDS_POOL_DIR": str(tmp_path / "pools")}
    return subprocess.run([sys.executable, str(VS), *args], capture_output=True, text=True,
                          env=env, timeout=30)


@pytest.mark.parametrize("args,names", [
    (["storedsbench", "--pmemids", "/bin/true", "--ycsbc", "/nonexistent/ycsbc"], "/nonexistent/ycsbc"),
    (["storedsbench", "--pmemids", "/bin/true", "--ycsbc", "/bin/true", "--ds", "hashtable,heap"], "'heap'"),
    (["storedsbench", "--pmemids", "/bin/true", "--ycsbc", "/bin/true", "--pairs", "0"], "--pairs"),
    (["maps", "--pmemids", "/bin/true", "--maps-bench", "/bin/true", "--cell", "btree-insert",
      "--target", "0"], "--target"),
    (["maps", "--pmemids", "/bin/true", "--maps-bench", "/bin/true", "--cell", "btree-insert",
      "--cpu", "4096"], "--cpu 4096"),
    (["maps", "--pmemids", "/bin/true", "--maps-bench", "/bin/true", "--cell", "heap-insert"], "heap-insert"),
])
def test_bad_arguments_exit_2_naming_the_input_before_any_run(tmp_path, args, names):
    r = run_vs(tmp_path, *args)
    assert r.returncode == 2, r.stderr
    assert names in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "pools").exists()  # refused before the pool directory was made


def test_no_room_for_the_pools_is_refused(tmp_path):
    vs = vs_module()
    with pytest.raises(vs.Failure, match=r"GiB free, a run needs"):
        vs.check_room(str(tmp_path), 1 << 60)
    vs.check_room(str(tmp_path), 1)  # a byte fits


def test_cells_median_range_and_sign_test():
    vs = vs_module()
    s = vs.summarize([1.41, 1.35, 1.52, 1.33, 1.47, 1.38], 1.3)  # every pair above 1.3
    assert s["median"] == pytest.approx(1.395) and (s["min"], s["max"]) == (1.33, 1.52)
    assert (s["above"], s["below"]) == (6, 0) and s["p_above"] == pytest.approx(1 / 64)
    assert s["verdict"] == "met"
    s = vs.summarize([1.41, 1.25, 1.52, 1.33, 1.47, 1.38], 1.3)  # 5 of 6: p = 7/64
    assert s["p_above"] == pytest.approx(7 / 64) and s["verdict"] == "undecided"
    s = vs.summarize([0.9, 0.95, 0.99, 0.97, 0.92, 0.91, 1.02, 0.96], 1.0)  # 7 of 8 below
    assert s["p_below"] == pytest.approx(9 / 256) and s["verdict"] == "not met"
    assert vs.sign_test([1.0, 1.0], 1.0) == (0, 0, 1.0, 1.0)  # ties are dropped


def test_geometric_mean_of_cells():
    vs = vs_module()
    assert vs.geomean([1.2, 1.5, 2.0]) == pytest.approx(math.exp((math.log(1.2) + math.log(1.5)
                                                                   + math.log(2.0)) / 3))
    assert vs.geomean([1.6] * 8) == pytest.approx(1.6)
