"""CLI tests for `pmemids sweep --shard K/N` and `--only`, and the SLURM array script:
N shards run every configuration exactly once, their outputs merge in `report` and
`reproduce`, and records from different machines stay apart."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from conftest import REPO, TIMEOUT_S, WORKLOADS, read_records
from test_sweep import SWEEPS, sweep, write_sweep

sys.path.insert(0, str(REPO / "python"))
from pmemids_report import figures, stats  # noqa: E402
from pmemids_report.load import read_records as load_records  # noqa: E402

WRITE = WORKLOADS / "pmemids-write"


def dry_lines(pmemids, *args) -> list[str]:
    r = pmemids("sweep", *args, "--dry-run")
    assert r.returncode == 0, r.describe()
    return r.stdout.splitlines()


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_shards_of_a_shipped_sweep_cover_it_once(pmemids, n):
    whole = dry_lines(pmemids, SWEEPS / "fig3-single-thread.toml")
    parts = [dry_lines(pmemids, SWEEPS / "fig3-single-thread.toml", "--shard", f"{k}/{n}") for k in range(n)]
    assert Counter(l for p in parts for l in p) == Counter(whole)
    assert max(map(len, parts)) - min(map(len, parts)) <= 1


def test_dry_run_says_which_part(pmemids):
    r = pmemids("sweep", SWEEPS / "fig8-locks.toml", "--dry-run", "--shard", "1/3", "--only", "threads=2")
    assert r.returncode == 0, r.describe()
    assert "(shard 1/3, --only threads=2 of 8)" in r.stderr
    assert all("--threads 2" in l for l in r.stdout.splitlines())


@pytest.mark.parametrize("args,message", [
    (["--shard", "3/3"], "--shard '3/3': K must be below N"),
    (["--shard", "x"], "--shard 'x': not K/N; accepted: K/N"),
    (["--only", "mode"], "--only 'mode': not KEY=VALUE"),
    (["--only", "mood=dram"], "--only mood: no configuration of the sweep sets 'mood'"),
    (["--only", "mode=pmem-tran"], "no configuration of the sweep has mode = pmem-tran"),
])
def test_bad_shard_and_only_are_usage_errors(pmemids, tmp_path, args, message):
    out = tmp_path / "o.jsonl"
    r = pmemids("sweep", SWEEPS / "fig3-single-thread.toml", *args, "--out", out)
    assert r.returncode == 2, r.describe()
    assert message in r.stderr, r.stderr
    assert not out.exists()


def test_default_out_names_the_shard(pmemids, tmp_path):
    f = write_sweep(tmp_path, f'workload = "{WRITE}"\nds = "btree"\nmode = "dram"\n'
                              '[properties]\nrecordcount = 200\noperationcount = 200\n')
    r = pmemids("sweep", f, "--shard", "0/2", "--pool-dir", pmemids.pool_dir)
    assert r.returncode == 0, r.describe()
    assert (pmemids.out.parent / "results" / "s-shard0of2.jsonl").is_file()


def slurm_task(pmemids, f: Path, out: Path, k: int, n: int) -> subprocess.CompletedProcess:
    env = {**os.environ, "SLURM_ARRAY_TASK_ID": str(k), "SLURM_ARRAY_TASK_COUNT": str(n),
           "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": str(n - 1),
           "PMEMIDS": str(pmemids.binary), "PMEMIDS_POOL_DIR": str(pmemids.pool_dir)}
    return subprocess.run(["bash", str(REPO / "scripts" / "slurm-sweep.sh"), str(f), "default", str(out)],
                          capture_output=True, text=True, timeout=TIMEOUT_S, env=env, cwd=f.parent)


def test_slurm_array_shards_merge_without_loss_or_duplicates(pmemids, tmp_path):
    f = write_sweep(tmp_path, f"""
workload = "{WRITE}"
repeat = 2
[matrix]
ds = ["btree", "rbtree", "hashtable"]
mode = ["dram", "pmem-persist"]
[properties]
recordcount = 300
operationcount = 300
""")
    out = tmp_path / "shards"
    for k in range(3):
        p = slurm_task(pmemids, f, out, k, 3)
        assert p.returncode == 0, p.stderr
    files = sorted(out.glob("*.jsonl"))
    assert [x.name for x in files] == [f"shard-{k}-of-3.jsonl" for k in range(3)]
    ids = Counter(r["sweep"]["config_id"] for x in files for r in read_records(x) if not r.get("aggregate"))
    assert len(ids) == 6 and set(ids.values()) == {2}, ids  # every configuration, 2 repetitions, once
    # The report reads the directory of shards as one set of records.
    r = pmemids("report", out, "--out", tmp_path / "report")
    assert r.returncode == 0, r.describe()
    html = (tmp_path / "report" / "index.html").read_text()
    assert "12 measured repetitions of 6 configurations" in html


def test_records_from_two_hosts_are_separate_figures(tmp_path):
    """Merged shards from two machines: the same configuration on two hosts is two
    configurations, and a figure cell never mixes them (the figure is split by host)."""
    single = (REPO / "tests" / "report" / "fixtures" / "single.jsonl").read_text().splitlines()
    lines = []
    for host in ("alpha", "beta"):
        for line in single:
            r = json.loads(line)
            r["context"]["hostname"] = host
            lines.append(json.dumps(r))
    p = tmp_path / "merged.jsonl"
    p.write_text("\n".join(lines) + "\n")
    records = load_records([str(p)])
    confs = stats.configurations(stats.runs(records), records)
    assert set(confs["hostname"]) == {"alpha", "beta"} and set(confs["n"]) == {2}
    specs = [s for s in figures.select(confs, stats.runs(records)) if s.id.startswith("fig3_single_thread")]
    assert sorted(s.id for s in specs) == ["fig3_single_thread_hostname-alpha", "fig3_single_thread_hostname-beta"]
    for s in specs:
        assert set(s.data["hostname"]) == {s.settings["hostname"]}
