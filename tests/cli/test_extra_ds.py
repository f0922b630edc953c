"""Bring your own index: examples/linear-probing, written against
include/pmemids/index.h and built in with the PMEMIDS_EXTRA_DS mechanism as
build/pmemids-examples, runs in all four modes, survives a reopen, and is
crash-tested like a built-in structure."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import MODES, TINY, WORKLOADS, Pmemids

NAME = "linear-probing"


@pytest.fixture
def examples(binary, pool_dir, out_path) -> Pmemids:
    b = binary.parent / "pmemids-examples"
    if not (b.is_file() and os.access(b, os.X_OK)):
        pytest.fail(f"{b} not found: build it (ninja -C {binary.parent} pmemids-examples)")
    return Pmemids(b, pool_dir, out_path)


def test_listed_with_the_built_in_structures(examples, pmemids):
    entries = {e["ds"]: e for e in json.loads(examples("list", "--json").stdout)}
    assert NAME in entries and "hashtable" in entries
    assert entries[NAME]["operations"] == ["read", "update", "insert", "readmodifywrite", "delete"]
    assert entries[NAME]["element_bytes"]["pmem-trans"] == 128
    # the structure is the example binary's only: pmemids itself is built without it
    assert NAME not in {e["ds"] for e in json.loads(pmemids("list", "--json").stdout)}


MIXED = ["-p", "readproportion=0.4", "-p", "updateproportion=0.2", "-p", "insertproportion=0.2",
         "-p", "deleteproportion=0.2"]


def test_runs_in_every_mode(examples):
    r = examples.run("--ds", NAME, "--mode", "all", "-P", WORKLOADS / "pmemids-write", *TINY, *MIXED)
    assert r.returncode == 0, r.describe()
    assert [rec["config"]["mode"] for rec in r.new_records] == MODES
    for rec in r.new_records:
        m = rec["metrics"]
        assert rec["config"]["ds"] == NAME and m["ops"] == 500 and m["ops_per_sec"] > 0
        assert m["insert_ops"] > 0 and m["delete_ops"] > 0
    found = [{k: v for k, v in rec["metrics"].items() if k.endswith("_found")} for rec in r.new_records]
    assert all(f == found[0] for f in found), found  # the same stream finds the same keys in every mode
    persist, trans = r.new_records[2]["metrics"], r.new_records[3]["metrics"]
    assert persist["flushed_lines_per_op"] > 0 and trans["tx_bytes_per_op"] > 0


def test_reopened_pool_keeps_every_key(examples, pool_dir):
    load = ["-P", WORKLOADS / "pmemids-read", "-p", "recordcount=300", "-p", "operationcount=300"]
    first = examples.run("--ds", NAME, "--mode", "pmem-persist,pmem-trans", *load, "--keep-pool")
    assert first.returncode == 0, first.describe()
    again = examples.run("--ds", NAME, "--mode", "pmem-persist,pmem-trans", *load, "--reopen")
    assert again.returncode == 0, again.describe()
    for rec in again.new_records:
        assert rec["metrics"]["read_found"] == rec["metrics"]["read_ops"] == 300
        assert rec["metrics"]["recovery_seconds"] > 0


def test_crash_tested_like_a_built_in(examples, pool_dir):
    r = examples("crash", "--ds", NAME, "--points", "40", "--pool-dir", pool_dir, "--out", "-")
    assert r.returncode == 0, r.describe()
    records = {rec["config"]["mode"]: rec["metrics"] for rec in map(json.loads, r.stdout.splitlines())}
    assert set(records) == {"pmem-persist", "pmem-trans"}
    for mode, m in records.items():
        assert m["points"] == 40 and m["recovered"] == 40, (mode, m)
        assert m["invariant_failures"] == 0 and m["lost_acknowledged"] == 0, (mode, m)
        assert m["leaked_objects"] == 0, (mode, m)
    assert records["pmem-trans"]["violation"] is False


def configure(tmp_path: Path, extra: Path) -> subprocess.CompletedProcess:
    repo = Path(__file__).resolve().parents[2]
    return subprocess.run(["cmake", "-S", str(repo), "-B", str(tmp_path / "build"), "-G", "Ninja",
                           f"-DPMEMIDS_EXTRA_DS={extra}"], capture_output=True, text=True, timeout=120)


def test_the_option_compiles_every_header_of_the_directory_into_pmemids(tmp_path):
    extra = tmp_path / "mine"
    extra.mkdir()
    (extra / "a.h").write_text("// one structure\n")
    (extra / "b.h").write_text("// another\n")
    (extra / "notes.txt").write_text("not a header\n")
    p = configure(tmp_path, extra)
    assert p.returncode == 0, p.stdout + p.stderr
    source = (tmp_path / "build" / "generated" / "pmemids_structures.cc").read_text()
    assert source.index('#include "registry/extra_index.h"') < source.index(f'#include "{extra}/a.h"')
    assert f'#include "{extra}/b.h"' in source and "notes.txt" not in source


def test_the_option_refuses_a_directory_without_headers(tmp_path):
    (tmp_path / "empty").mkdir()
    p = configure(tmp_path, tmp_path / "empty")
    assert p.returncode != 0
    assert "PMEMIDS_EXTRA_DS: no *.h file in" in p.stderr and str(tmp_path / "empty") in p.stderr
