"""CLI contract tests for `pmemids`.

Exit codes: 0 ok, 2 usage/config error, 1 runtime failure; errors go to stderr as
"pmemids: error: <message>". Every error test checks both the exit code and that
the message names the offending input.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import (ALL_STRUCTURES, MODES, ORDERED, READ_ONLY, STRUCTURES, TINY, WORKLOADS, Result,
                      sha256)

CONTEXT_KEYS = {"pmem", "pmdk_version", "libpmemobj_link", "flush_instruction", "cpu_model", "kernel", "build_type",
                "git_revision", "pool_dir", "pool_fs", "env", "timestamp"}
CONFIG_KEYS = {"ds", "mode", "threads", "repetition", "repeat", "recordcount", "operationcount",
               "readproportion", "updateproportion", "insertproportion", "scanproportion",
               "readmodifywriteproportion", "deleteproportion", "requestdistribution",
               "fieldlength", "readmissrate", "seed", "ignored_properties", "workload_files"}
OP_TYPES = ["read", "update", "insert", "scan", "readmodifywrite", "delete"]
COST_KEYS = ["persists_per_op", "flushed_lines_per_op", "tx_per_op", "tx_bytes_per_op",
             "allocs_per_op", "frees_per_op", "translations_per_op"]
METRIC_KEYS = ({"ops", "seconds", "ops_per_sec", "load_seconds"} | set(COST_KEYS)
               | {f"{op}_{s}" for op in OP_TYPES for s in ("ops", "found", "not_found")})


def expect_ok(r: Result, records: int | None = 1) -> list[dict]:
    assert r.returncode == 0, r.describe()
    assert not r.error_lines(), r.describe()
    if records is not None:
        assert len(r.new_records) == records, r.describe()
    return r.new_records


def expect_error(r: Result, code: int, *needles: str, prefixed: bool = True) -> str:
    """Exit code `code`; stderr contains every needle; returns stderr."""
    assert r.returncode == code, r.describe()
    if prefixed:
        assert r.error_lines(), f"no 'pmemids: error: ' line\n{r.describe()}"
    for n in needles:
        assert n in r.stderr, f"{n!r} not in stderr\n{r.describe()}"
    return r.stderr


def expect_usage_error(r: Result, *needles: str, prefixed: bool = True) -> str:
    stderr = expect_error(r, 2, *needles, prefixed=prefixed)
    assert not r.new_records, f"a refused run appended records\n{r.describe()}"
    return stderr


def pool_files(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir())


def file_state(p: Path) -> tuple[int, int, str]:
    st = p.stat()
    return st.st_size, st.st_mtime_ns, sha256(p)


def write_file(d: Path, name: str, text: str) -> Path:
    p = d / name
    p.write_text(text)
    return p


# ---------------------------------------------------------------- 1. happy path

MIXED = ["-p", "readproportion=0.5", "-p", "updateproportion=0.2", "-p", "insertproportion=0.1",
         "-p", "readmodifywriteproportion=0.1", "-p", "deleteproportion=0.1"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("ds", STRUCTURES)
def test_run_happy_path(pmemids, pool_dir, ds, mode):
    r = pmemids.run("--ds", ds, "--mode", mode, *TINY, *MIXED)
    [rec] = expect_ok(r)
    assert rec["schema_version"] == 1
    ctx, cfg, m = rec["context"], rec["config"], rec["metrics"]

    assert CONTEXT_KEYS <= ctx.keys(), CONTEXT_KEYS - ctx.keys()
    assert ctx["pmem"] == "emulated"
    assert ctx["pool_fs"] == "tmpfs"
    assert ctx["pool_dir"] == str(pool_dir)
    assert ctx["libpmemobj_link"] in ("static", "shared")

    assert CONFIG_KEYS <= cfg.keys(), CONFIG_KEYS - cfg.keys()
    assert (cfg["ds"], cfg["mode"]) == (ds, mode)
    assert cfg["threads"] == 1
    assert (cfg["repetition"], cfg["repeat"]) == (0, 1)
    assert (cfg["recordcount"], cfg["operationcount"]) == (200, 500)
    assert cfg["ignored_properties"] == {}
    assert cfg["workload_files"] == []

    assert METRIC_KEYS <= m.keys(), METRIC_KEYS - m.keys()
    assert m["ops"] == 500
    assert sum(m[f"{op}_ops"] for op in OP_TYPES) == 500
    for op in OP_TYPES:
        assert m[f"{op}_found"] + m[f"{op}_not_found"] == m[f"{op}_ops"], op
    assert m["read_ops"] > 0 and m["insert_ops"] > 0 and m["delete_ops"] > 0
    assert m["seconds"] > 0 and m["ops_per_sec"] > 0

    if mode in ("dram", "pmem-volatile"):
        assert m["persists_per_op"] == 0
        assert m["flushed_lines_per_op"] == 0
        assert m["tx_per_op"] == 0
        assert m["tx_bytes_per_op"] == 0

    # Human-readable table on stdout, emulation warning on stderr (only for runs that
    # touch a pool: a dram run does not, issue 31).
    header = r.stdout.splitlines()[0]
    assert header.startswith("ds"), r.stdout
    assert any(line.split()[:2] == [ds, mode] for line in r.stdout.splitlines()[1:]), r.stdout
    assert ("EMULATED" in r.stderr) == (mode != "dram"), r.stderr
    # No pool file survives a run without --keep-pool.
    assert pool_files(pool_dir) == []


@pytest.mark.parametrize("ds", STRUCTURES)
def test_pmem_trans_update_costs_one_tx_logging_the_value(pmemids, ds):
    r = pmemids.run("--ds", ds, "--mode", "pmem-trans", *TINY,
                    "-p", "readproportion=0", "-p", "updateproportion=1")
    [rec] = expect_ok(r)
    m = rec["metrics"]
    assert m["ops"] == m["update_ops"] == m["update_found"] == 500
    assert m["tx_per_op"] == 1.0
    assert m["tx_bytes_per_op"] == rec["config"]["fieldlength"] == 100


@pytest.mark.parametrize("ds", STRUCTURES)
def test_dram_update_costs_nothing_durable(pmemids, ds):
    r = pmemids.run("--ds", ds, "--mode", "dram", *TINY,
                    "-p", "readproportion=0", "-p", "updateproportion=1")
    [rec] = expect_ok(r)
    m = rec["metrics"]
    assert m["persists_per_op"] == 0
    assert m["tx_per_op"] == 0
    assert m["tx_bytes_per_op"] == 0


def test_ds_all_mode_all_runs_every_pair_except_blackhole(pmemids):
    r = pmemids.run("--ds", "all", "--mode", "all", *TINY)
    recs = expect_ok(r, records=len(STRUCTURES) * len(MODES))
    pairs = {(x["config"]["ds"], x["config"]["mode"]) for x in recs}
    assert pairs == {(d, m) for d in STRUCTURES for m in MODES}
    assert all(x["metrics"]["ops"] == 500 for x in recs)


def test_comma_lists_select_structures_and_modes(pmemids):
    r = pmemids.run("--ds", "hashtable,arraylist", "--mode", "dram,pmem-trans", *TINY)
    recs = expect_ok(r, records=4)
    pairs = [(x["config"]["ds"], x["config"]["mode"]) for x in recs]
    assert sorted(pairs) == sorted([("hashtable", "dram"), ("hashtable", "pmem-trans"),
                                    ("arraylist", "dram"), ("arraylist", "pmem-trans")])


def test_records_are_appended_to_an_existing_out_file(pmemids):
    expect_ok(pmemids.run("--ds", "hashtable", "--mode", "dram", *TINY))
    r = pmemids.run("--ds", "arraylist", "--mode", "dram", *TINY)
    expect_ok(r)
    assert [x["config"]["ds"] for x in r.records] == ["hashtable", "arraylist"]


# ------------------------------------------------------------------ 2. --repeat

def test_repeat_writes_one_record_per_repetition(pmemids, pool_dir):
    r = pmemids.run("--ds", "hashtable", "--mode", "pmem-persist", "--repeat", "3", *TINY)
    *recs, agg = expect_ok(r, records=4)
    assert [x["config"]["repetition"] for x in recs] == [0, 1, 2]
    assert all(x["config"]["repeat"] == 3 for x in recs)
    assert all(x["metrics"]["ops"] == 500 for x in recs)
    assert agg.get("aggregate") is True and agg["metrics"]["repetitions"] == 3
    assert pool_files(pool_dir) == []


# --------------------------------------------------------- 3. YCSB workload files

@pytest.mark.parametrize("name", ["workloada", "workloadb", "workloadc", "workloadd", "workloadf"])
def test_ycsb_workload_files_load_unchanged(pmemids, name):
    wl = WORKLOADS / name
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", "-P", wl, *TINY)
    [rec] = expect_ok(r)
    cfg = rec["config"]
    assert "workload" in cfg["ignored_properties"]
    assert "readallfields" in cfg["ignored_properties"]
    assert cfg["workload_files"] == [str(wl)]
    assert rec["metrics"]["ops"] == 500  # -p overrides the file


def test_ycsb_workloade_scans_refused_on_hashtable(pmemids):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", "-P", WORKLOADS / "workloade", *TINY)
    expect_usage_error(r, "scan", "hashtable")


@pytest.mark.parametrize("name", ["pmemids-read", "pmemids-write"])
def test_pmemids_workload_files_with_overrides(pmemids, name):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", "-P", WORKLOADS / name, *TINY)
    [rec] = expect_ok(r)
    assert rec["config"]["recordcount"] == 200
    assert rec["metrics"]["ops"] == 500


# ------------------------------------------------------ 4. property validation

def test_unknown_property_on_command_line(pmemids):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", *TINY, "-p", "bogus=1")
    expect_usage_error(r, "'bogus'")


def test_unknown_property_in_workload_file(pmemids, tmp_path):
    wl = write_file(tmp_path, "mywl", "recordcount=200\noperationcount=500\nfrobnicate=3\n")
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", "-P", wl)
    expect_usage_error(r, "frobnicate", str(wl))


def test_bad_integer(pmemids):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", *TINY, "-p", "recordcount=abc")
    expect_usage_error(r, "recordcount", "abc")


def test_proportion_out_of_range(pmemids):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", *TINY, "-p", "readproportion=1.5")
    expect_usage_error(r, "readproportion", "1.5")


def test_proportions_must_sum_to_one(pmemids):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", *TINY,
                    "-p", "readproportion=0.5", "-p", "updateproportion=0.2")
    expect_usage_error(r, "sum")


def test_unknown_request_distribution(pmemids):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", *TINY,
                    "-p", "requestdistribution=pareto")
    expect_usage_error(r, "requestdistribution", "pareto", "zipfian", "uniform")


def test_unsupported_fieldlengthdistribution(pmemids):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", *TINY,
                    "-p", "fieldlengthdistribution=uniform")
    expect_usage_error(r, "fieldlengthdistribution", "constant")


def test_missing_workload_file(pmemids, tmp_path):
    missing = tmp_path / "no-such-workload"
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", "-P", missing)
    expect_usage_error(r, str(missing))


def test_malformed_workload_line_reports_file_and_line(pmemids, tmp_path):
    wl = write_file(tmp_path, "broken", "# comment\nrecordcount=200\n\nthis line has no separator\n")
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", "-P", wl)
    expect_usage_error(r, f"{wl}:4")


def test_override_without_equals(pmemids):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", *TINY, "-p", "recordcount")
    expect_usage_error(r, "recordcount")


# --------------------------------------------------------- 5. option validation

def test_unknown_structure(pmemids):
    r = pmemids.run("--ds", "btree9", "--mode", "dram", *TINY)
    expect_usage_error(r, "btree9", "hashtable")


def test_unknown_mode(pmemids):
    r = pmemids.run("--ds", "hashtable", "--mode", "nvme", *TINY)
    expect_usage_error(r, "nvme", "pmem-trans")


def test_missing_pool_dir(pmemids, pool_dir):
    missing = pool_dir / "does-not-exist"
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", *TINY, "--pool-dir", missing)
    expect_usage_error(r, str(missing))
    assert not missing.exists()


def test_repeat_zero(pmemids):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", *TINY, "--repeat", "0")
    # A CLI11 parse error: named, exit 2, but not in the "pmemids: error:" format.
    expect_usage_error(r, "--repeat", prefixed=False)


def test_bad_pool_size(pmemids):
    r = pmemids.run("--ds", "hashtable", "--mode", "pmem-persist", *TINY, "--pool-size", "abc")
    expect_usage_error(r, "--pool-size", "abc")


# ------------------------------------------------------------ 6. pool lifecycle

POOL = "hashtable.pmem-persist.pool"


def test_pool_removed_without_keep_pool(pmemids, pool_dir):
    expect_ok(pmemids.run("--ds", "hashtable", "--mode", "pmem-persist", *TINY))
    assert pool_files(pool_dir) == []


def test_keep_pool_refuse_overwrite_then_reopen(pmemids, pool_dir):
    args = ["--ds", "hashtable", "--mode", "pmem-persist", *TINY, *READ_ONLY]
    expect_ok(pmemids.run(*args, "--keep-pool"))
    pool = pool_dir / POOL
    assert pool_files(pool_dir) == [POOL]
    before = file_state(pool)

    # Running again without --reopen must refuse and leave the pool untouched.
    r = pmemids.run(*args, "--keep-pool")
    expect_error(r, 2, "--reopen", str(pool))
    assert not r.new_records, "the refused run appended a record"
    assert file_state(pool) == before

    # --reopen runs on the kept data: no load, every read hits.
    r = pmemids.run(*args, "--reopen", "--keep-pool")
    [rec] = expect_ok(r)
    cfg, m = rec["config"], rec["metrics"]
    assert cfg["reopen"] is True
    assert "recovery_seconds" in m and m["recovery_seconds"] >= 0
    assert m["load_seconds"] == 0
    assert m["read_ops"] == m["read_found"] == 500
    assert m["read_not_found"] == 0
    assert pool.exists()


def test_reopen_without_kept_pool(pmemids, pool_dir):
    r = pmemids.run("--ds", "hashtable", "--mode", "pmem-persist", *TINY, "--reopen")
    expect_usage_error(r, "--reopen", str(pool_dir / POOL))
    assert pool_files(pool_dir) == []


# ------------------------------------------------- 7. pools of other structures

def _make_pool_and_rename(pmemids, pool_dir: Path, new_name: str, tmp_path: Path) -> tuple[Path, Path]:
    """A kept hashtable/pmem-persist pool renamed to `new_name`, and a pristine copy of it."""
    expect_ok(pmemids.run("--ds", "hashtable", "--mode", "pmem-persist", *TINY, "--keep-pool"))
    target = pool_dir / new_name
    (pool_dir / POOL).rename(target)
    copy = tmp_path / "pristine.pool"
    shutil.copyfile(target, copy)
    return target, copy


def assert_unchanged(pool: Path, pristine: Path) -> None:
    if sha256(pool) == sha256(pristine):
        return
    a, b = pristine.read_bytes(), pool.read_bytes()
    diff, page = [], 4096
    for base in range(0, min(len(a), len(b)), page):
        if a[base:base + page] != b[base:base + page]:
            end = min(base + page, len(a), len(b))
            diff += [i for i in range(base, end) if a[i] != b[i]]
    pytest.fail(f"the refused pool file {pool.name} was modified: size {len(a)} -> {len(b)}, "
                f"{len(diff)} bytes differ"
                + (f" at offsets {diff[0]:#x}..{diff[-1]:#x}" if diff else ""))


def test_reopen_refuses_pool_of_another_structure(pmemids, pool_dir, tmp_path):
    pool, pristine = _make_pool_and_rename(pmemids, pool_dir, "linkedlist.pmem-persist.pool", tmp_path)
    r = pmemids.run("--ds", "linkedlist", "--mode", "pmem-persist", *TINY, "--reopen")
    stderr = expect_usage_error(r, str(pool))
    assert "layout" in stderr or "not created" in stderr, r.describe()
    assert pool.exists()
    assert_unchanged(pool, pristine)


def test_reopen_refuses_pool_of_another_mode(pmemids, pool_dir, tmp_path):
    pool, pristine = _make_pool_and_rename(pmemids, pool_dir, "hashtable.pmem-trans.pool", tmp_path)
    r = pmemids.run("--ds", "hashtable", "--mode", "pmem-trans", *TINY, "--reopen")
    stderr = expect_usage_error(r, str(pool))
    assert "layout" in stderr or "not created" in stderr, r.describe()
    assert pool.exists()
    assert_unchanged(pool, pristine)


# ------------------------------------------------------ 8. reopen of volatile

@pytest.mark.parametrize("mode", ["dram", "pmem-volatile"])
def test_reopen_needs_durable_mode(pmemids, pool_dir, mode):
    r = pmemids.run("--ds", "hashtable", "--mode", mode, *TINY, "--reopen")
    expect_usage_error(r, "--reopen", mode)
    assert pool_files(pool_dir) == []


# ----------------------------------------------------------------- 9. pool full

@pytest.mark.parametrize("mode", ["pmem-persist", "pmem-trans"])
@pytest.mark.parametrize("recordcount", [200000, 60000], ids=["at-create", "during-load"])
def test_pool_full_is_a_clean_runtime_failure(pmemids, pool_dir, mode, recordcount):
    r = pmemids.run("--ds", "hashtable", "--mode", mode, "--pool-size", "8M",
                    "-p", f"recordcount={recordcount}", "-p", "operationcount=10")
    assert r.returncode == 1, r.describe()  # exactly 1: not a signal, not a usage error
    expect_error(r, 1, "pool")
    assert not r.new_records
    assert pool_files(pool_dir) == []


def test_pmem_volatile_out_of_space_is_a_runtime_failure(pmemids, pool_dir):
    r = pmemids.run("--ds", "hashtable", "--mode", "pmem-volatile", "--pool-size", "16M",
                    "-p", "recordcount=200000", "-p", "operationcount=10")
    expect_error(r, 1, "pool-size")
    assert not r.new_records
    assert pool_files(pool_dir) == []


# -------------------------------------------------------------- 10. readmissrate

def test_readmissrate_half_of_reads_miss(pmemids):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", "-p", "recordcount=200",
                    "-p", "operationcount=1000", *READ_ONLY, "-p", "readmissrate=0.5")
    [rec] = expect_ok(r)
    m = rec["metrics"]
    assert m["read_ops"] == 1000
    assert 0.4 * m["read_ops"] <= m["read_not_found"] <= 0.6 * m["read_ops"], m
    assert m["read_found"] + m["read_not_found"] == m["read_ops"]


def test_readmissrate_zero_all_reads_hit(pmemids):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", *TINY, *READ_ONLY)
    [rec] = expect_ok(r)
    assert rec["metrics"]["read_found"] == 500
    assert rec["metrics"]["read_not_found"] == 0


# ----------------------------------------------------------------------- 11. list

def test_list_table(pmemids):
    r = pmemids("list")
    assert r.returncode == 0, r.describe()
    for ds in ALL_STRUCTURES:
        assert ds in r.stdout, r.stdout
    for mode in MODES:
        assert mode in r.stdout, r.stdout


def test_list_json(pmemids):
    r = pmemids("list", "--json")
    assert r.returncode == 0, r.describe()
    entries = json.loads(r.stdout)
    assert isinstance(entries, list)
    by_ds = {e["ds"]: e for e in entries}
    assert set(by_ds) == set(ALL_STRUCTURES)
    for e in entries:
        assert {"ds", "operations", "element_bytes"} <= e.keys(), e
        assert set(e["element_bytes"]) == set(MODES), e
        if e["operation_set"] in ("kv", "ordered-kv"):
            assert {"read", "update", "insert", "delete"} <= set(e["operations"]), e
    ht = by_ds["hashtable"]["element_bytes"]
    assert ht["pmem-persist"] > ht["dram"]
    assert "scan" in by_ds["blackhole"]["operations"]
    assert "scan" not in by_ds["hashtable"]["operations"]


# -------------------------------------------------------------- 12. blackhole

def test_blackhole_runs_scan_workload(pmemids):
    r = pmemids.run("--ds", "blackhole", "--mode", "dram", "-P", WORKLOADS / "workloade", *TINY)
    [rec] = expect_ok(r)
    m = rec["metrics"]
    assert rec["config"]["ds"] == "blackhole"
    assert m["ops"] == 500
    assert m["scan_ops"] > 0


# -------------------------------------------------------------------- 13. usage

def test_no_arguments_is_a_usage_error(pmemids):
    r = pmemids()
    assert r.returncode == 2, r.describe()
    assert r.stderr.strip() or r.stdout.strip(), "no usage message"


@pytest.mark.parametrize("command", ["crash", "sweep", "doctor", "run"])
def test_a_parse_error_points_at_its_commands_help(pmemids, command):
    r = pmemids(command, "--no-such-option")
    assert r.returncode == 2, r.describe()
    assert f"(run 'pmemids {command} --help')" in r.stderr, r.stderr


def test_run_help(pmemids):
    r = pmemids("run", "--help")
    assert r.returncode == 0, r.describe()
    assert "--ds" in r.stdout and "--mode" in r.stdout


def test_run_without_ds_is_a_usage_error(pmemids):
    r = pmemids("run", "--mode", "dram")
    assert r.returncode == 2, r.describe()
    assert "--ds" in r.stderr, r.describe()


# ------------------------------------------------------- ordered structures (scans)

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("ds", ORDERED)
def test_scan_workload_runs_on_ordered_structures(pmemids, ds, mode):
    r = pmemids.run("--ds", ds, "--mode", mode, "-P", WORKLOADS / "workloade", *TINY)
    [rec] = expect_ok(r)
    m = rec["metrics"]
    assert m["scan_ops"] > 0
    # Every scan starts at a key that exists, so it returns at least that one.
    assert m["scan_found"] == m["scan_ops"]


def test_scan_refusal_names_the_structures_that_can(pmemids):
    r = pmemids.run("--ds", "arraylist", "--mode", "dram", "-P", WORKLOADS / "workloade", *TINY)
    expect_usage_error(r, "scan", "arraylist", *ORDERED)


def test_node_keys_out_of_range(pmemids):
    r = pmemids.run("--ds", "btree", "--mode", "dram", "--node-keys", "2", *TINY)
    expect_usage_error(r, "--node-keys")


def test_node_keys_recorded_and_a_different_setting_refused_on_reopen(pmemids, pool_dir):
    r = pmemids.run("--ds", "bplustree", "--mode", "pmem-persist", "--node-keys", "5", "--keep-pool", *TINY)
    [rec] = expect_ok(r)
    assert rec["config"]["node_keys"] == 5
    r = pmemids.run("--ds", "bplustree", "--mode", "pmem-persist", "--node-keys", "7", "--reopen", *TINY)
    expect_usage_error(r, "keys per node", "7")
    r = pmemids.run("--ds", "bplustree", "--mode", "pmem-persist", "--reopen", *TINY, *READ_ONLY)
    [rec] = expect_ok(r)
    assert rec["metrics"]["read_found"] == 500


# ------------------------------------------------- pool lifetime with repetitions

def test_negative_pool_size_is_a_usage_error(pmemids):
    r = pmemids.run("--ds", "hashtable", "--mode", "pmem-persist", "--pool-size=-1", *TINY)
    expect_usage_error(r, "--pool-size", "-1")


def test_keep_pool_with_repeat_keeps_the_last_repetitions_pool(pmemids, pool_dir):
    r = pmemids.run("--ds", "hashtable", "--mode", "pmem-persist", "--keep-pool", "--repeat", "2", *TINY)
    expect_ok(r, records=3)  # two repetitions and their aggregate
    assert pool_files(pool_dir) == [POOL]


def test_reopen_never_deletes_the_users_pool(pmemids, pool_dir):
    expect_ok(pmemids.run("--ds", "hashtable", "--mode", "pmem-persist", "--keep-pool", *TINY))
    r = pmemids.run("--ds", "hashtable", "--mode", "pmem-persist", "--reopen", "--repeat", "2", *TINY,
                    *READ_ONLY)
    *recs, _ = expect_ok(r, records=3)
    assert all(rec["metrics"]["read_found"] == 500 for rec in recs)
    assert pool_files(pool_dir) == [POOL]


def test_pool_bytes_is_the_real_pool_size(pmemids):
    [rec] = expect_ok(pmemids.run("--ds", "hashtable", "--mode", "dram", *TINY))
    assert rec["metrics"]["pool_bytes"] == 0
    [rec] = expect_ok(pmemids.run("--ds", "hashtable", "--mode", "pmem-persist", "--pool-size", "9M", *TINY))
    assert rec["metrics"]["pool_bytes"] == 9 << 20  # below libpmemobj's 8 MiB minimum: refused (hostile table)
