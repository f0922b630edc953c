"""One rule finds shipped files (src/util/shipped_files.h) for run -P, sweep files and
reproduce's claim and sweep files: the path as written or under the current directory,
then $PMEMIDS_DATA, then the installed share directory (or, not installed, the source
tree). Every call runs from a scratch directory, as a newcomer types the README's
commands. About 10-20 s in all (the reproduce cases run --check)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, TIMEOUT_S, read_records

TINY = ["-p", "recordcount=200", "-p", "operationcount=500"]


def fnv1a64(path: Path) -> str:
    h = 0xcbf29ce484222325
    for b in path.read_bytes():
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"fnv1a64:{h:016x}"


def call(binary: Path, cwd: Path, *args: str, env: dict | None = None):
    full = {k: v for k, v in os.environ.items() if k not in ("PMEMIDS_DATA", "PMEMIDS_POOL_DIR")}
    full.update(env or {})
    return subprocess.run([str(binary), *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=TIMEOUT_S, env=full)


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    d = tmp_path / "scratch"
    d.mkdir()
    return d


def run_args(pool_dir: Path, out: Path, workload: str) -> list[str]:
    return ["run", "--ds", "hashtable", "--mode", "dram", "-P", workload, *TINY,
            "--pool-dir", pool_dir, "--out", out]


def test_shipped_workload_runs_from_a_scratch_directory_and_is_named_in_the_record(
        binary, scratch, pool_dir):
    p = call(binary, scratch, *run_args(pool_dir, scratch / "r.jsonl", "workloads/pmemids-write"))
    assert p.returncode == 0, p.stderr
    shipped = REPO / "workloads" / "pmemids-write"
    rec = read_records(scratch / "r.jsonl")[0]
    assert rec["config"]["workload"] == "pmemids-write"
    assert rec["context"]["input_files"] == [{"path": str(shipped), "hash": fnv1a64(shipped)}]
    assert "differs" not in p.stderr


def test_a_local_copy_overrides_the_shipped_file_with_a_warning_naming_both(
        binary, scratch, pool_dir):
    local = scratch / "workloads" / "pmemids-write"
    local.parent.mkdir()
    local.write_text((REPO / "workloads" / "pmemids-write").read_text() + "# mine\n")
    p = call(binary, scratch, *run_args(pool_dir, scratch / "r.jsonl", "workloads/pmemids-write"))
    assert p.returncode == 0, p.stderr
    rec = read_records(scratch / "r.jsonl")[0]
    assert rec["context"]["input_files"][0]["path"] == str(local)
    warning = [l for l in p.stderr.splitlines() if "differs" in l]
    assert len(warning) == 1, p.stderr
    assert str(local) in warning[0] and str(REPO / "workloads" / "pmemids-write") in warning[0]
    # The same contents in both places: no warning.
    shutil.copy(REPO / "workloads" / "pmemids-write", local)
    p = call(binary, scratch, *run_args(pool_dir, scratch / "r.jsonl", "workloads/pmemids-write"))
    assert p.returncode == 0 and "differs" not in p.stderr, p.stderr


def test_pmemids_data_is_searched_before_the_shipped_files(binary, scratch, tmp_path, pool_dir):
    data = tmp_path / "data"
    (data / "workloads").mkdir(parents=True)
    (data / "workloads" / "only-here").write_text("readproportion=1\nupdateproportion=0\n")
    env = {"PMEMIDS_DATA": str(data)}
    # A bare name is looked up in the kind's directory too.
    for written in ("workloads/only-here", "only-here"):
        p = call(binary, scratch, *run_args(pool_dir, scratch / "r.jsonl", written), env=env)
        assert p.returncode == 0, p.stderr
        assert read_records(scratch / "r.jsonl")[-1]["config"]["workload_files"] == [
            str(data / "workloads" / "only-here")]


def test_a_missing_file_is_exit_2_listing_the_places_searched(binary, scratch, tmp_path, pool_dir):
    data = tmp_path / "data"
    data.mkdir()
    p = call(binary, scratch, *run_args(pool_dir, scratch / "r.jsonl", "workloads/nope"),
             env={"PMEMIDS_DATA": str(data)})
    assert p.returncode == 2, p.stderr
    err = p.stderr.strip().splitlines()[-1]
    assert "workload file 'workloads/nope' cannot be read: No such file; searched:" in err
    for place in (scratch, data, REPO):
        assert str(place / "workloads" / "nope") in err
    p = call(binary, scratch, "sweep", "sweeps/nope.toml", "--dry-run")
    assert p.returncode == 2 and str(scratch / "sweeps" / "nope.toml") in p.stderr, p.stderr


def test_shipped_sweep_dry_runs_from_a_scratch_directory(binary, scratch):
    p = call(binary, scratch, "sweep", "sweeps/fig3-single-thread.toml", "--dry-run")
    assert p.returncode == 0, p.stderr
    assert str(REPO / "workloads" / "pmemids-read") in p.stdout


def test_sweep_records_name_the_sweep_file_used(binary, scratch, pool_dir):
    (scratch / "s.toml").write_text(
        'ds = "hashtable"\nmode = "dram"\nworkload = "workloads/pmemids-read"\n'
        "[properties]\nrecordcount = 200\noperationcount = 500\n")
    p = call(binary, scratch, "sweep", "s.toml", "--out", "s.jsonl", "--pool-dir", pool_dir)
    assert p.returncode == 0, p.stderr
    rec = read_records(scratch / "s.jsonl")[0]
    assert rec["sweep"]["file"] == "s.toml"
    assert rec["sweep"]["path"] == str(scratch / "s.toml")
    assert rec["sweep"]["hash"] == fnv1a64(scratch / "s.toml")
    assert rec["config"]["workload_files"] == [str(REPO / "workloads" / "pmemids-read")]


def test_an_installed_binary_uses_its_share_directory_not_the_source_tree(binary, tmp_path,
                                                                          scratch):
    prefix = tmp_path / "prefix"
    (prefix / "bin").mkdir(parents=True)
    shutil.copy(binary, prefix / "bin" / "pmemids")
    share = prefix / "share" / "pmemids"
    (share / "workloads").mkdir(parents=True)
    (share / "workloads" / "pmemids-write").write_text("readproportion=1\n")
    p = call(prefix / "bin" / "pmemids", scratch, "locate", "workload", "pmemids-write",
             "workloads/pmemids-read")
    assert p.returncode == 2, p.stdout  # pmemids-read is not in this share directory
    assert str(REPO) not in p.stderr, p.stderr
    p = call(prefix / "bin" / "pmemids", scratch, "locate", "workload", "workloads/pmemids-write")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["path"] == str(share / "workloads" / "pmemids-write")


def test_reproduce_uses_a_local_sweep_copy_with_a_warning(binary, scratch):
    """--from evaluates given records: the verdict names the claim and sweep files the
    rule chose (a local sweeps/ copy first), with their hashes."""
    local = scratch / "sweeps" / "fig3-single-thread.toml"
    local.parent.mkdir()
    local.write_text((REPO / "sweeps" / "fig3-single-thread.toml").read_text() + "# mine\n")
    (scratch / "none.jsonl").write_text("")
    p = call(binary, scratch, "reproduce", "001-Fig3", "--from", "none.jsonl")
    assert p.returncode == 0, p.stderr
    assert "differs" in p.stderr and str(local) in p.stderr
    p = call(binary, scratch, "reproduce", "--check", "001-Fig3")
    assert p.returncode == 0, p.stderr


def test_a_local_claim_copy_is_used_and_finds_the_shipped_sweeps(binary, scratch):
    """reproduce/ in the current directory wins over the shipped claims; a claim copied
    there still names the shipped sweeps (looked up by the same rule)."""
    (scratch / "reproduce").mkdir()
    shutil.copy(REPO / "reproduce" / "001-O4-small.toml", scratch / "reproduce")
    p = call(binary, scratch, "reproduce", "--check", "001-O4-small")
    assert p.returncode == 0, p.stderr
    p = call(binary, scratch, "reproduce", "--check", "001-O4")
    assert p.returncode == 2 and "unknown claim '001-O4'" in p.stderr, p.stderr
