"""The durable lock-free structures of seed 002 through the binary: traits in
`list --json`, native runs of every one in its domain, reopened pools
recovered, the eADR-only designs refused under ADR unless --unsafe, and
`pmemids crash` clean for the ADR designs (single-threaded, multi-thread,
inside recovery), clean for every design under --domain eadr, and failing for
the eADR-only ones under ADR (negative controls)."""

from __future__ import annotations

import json

import pytest

from conftest import DURABLE_INTERNAL, EADR_ONLY, WORKLOADS, read_records
from test_cli import expect_ok, expect_usage_error

RING = ["-P", WORKLOADS / "ring-5050", "-p", "operationcount=4000", "-p", "queueslots=256",
        "-p", "recordcount=64", "-p", "slotsize=128", "-p", "fieldlength=64"]
SET = ["-P", WORKLOADS / "set-u20", "-p", "operationcount=4000", "-p", "keyrange=256"]


def workload(ds: str) -> list:
    return RING if ds.startswith("ringbuffer") else SET


def own_domain(ds: str) -> list[str]:
    """The domain a design is crash-consistent in: eADR for the eADR-only ones."""
    return ["--domain", "eadr"] if ds in EADR_ONLY else []


def test_list_json_traits(pmemids):
    r = pmemids("list", "--json")
    assert r.returncode == 0, r.describe()
    by_ds = {e["ds"]: e for e in json.loads(r.stdout)}
    for ds in DURABLE_INTERNAL:
        e = by_ds[ds]
        assert e["synchronisation"] == "internal", e
        assert e["modes"] == ["pmem-persist"] and e["crash_modes"] == ["pmem-persist"], e
        assert e["operation_set"] == ("queue" if ds.startswith("ringbuffer") else "set"), e
        assert e["domains"] == (["eadr"] if ds in EADR_ONLY else ["adr", "eadr"]), e


@pytest.mark.parametrize("ds", DURABLE_INTERNAL)
def test_native_run_with_two_threads(pmemids, ds):
    r = pmemids.run("--ds", ds, "--mode", "pmem-persist", "--thread-mode", "native",
                    "--threads", "2", *workload(ds), *own_domain(ds))
    [rec] = expect_ok(r)
    assert rec["config"]["thread_mode"] == "native"
    assert rec["metrics"]["ops"] == 4000
    assert sum(t["ops"] for t in rec["metrics"]["per_thread"]) == 4000


@pytest.mark.parametrize("ds", ["ringbuffer-tx", "ringbuffer-txfree"])
def test_flush_cold_writes_back_the_ring_slots_under_eadr(pmemids, ds):
    # Seed 002's Figure 15: the same fences, plus each push's slot written back.
    def run(cold: str) -> dict:
        [rec] = expect_ok(pmemids.run("--ds", ds, "--mode", "pmem-persist", "--thread-mode",
                                      "native", "--threads", "1", *RING, "--domain", "eadr",
                                      "--flush-cold", cold))
        return rec["metrics"]

    off, on = run("off"), run("on")
    assert off["flushed_lines_per_op"] == 0
    # A push writes back its id and 64-byte payload (2 lines at least); half the ops push.
    assert on["flushed_lines_per_op"] >= 0.5, on
    assert on["fences_per_op"] == pytest.approx(off["fences_per_op"])


@pytest.mark.parametrize("ds", EADR_ONLY)
def test_eadr_only_designs_are_refused_under_adr(pmemids, ds):
    r = pmemids.run("--ds", ds, "--mode", "pmem-persist", *workload(ds))
    expect_usage_error(r, ds, "eadr", "--unsafe")


@pytest.mark.parametrize("ds", ["ringbuffer-tx", "lflist-tlog", "lflist-soft", "lflist-linkfree"])
def test_reopened_pool_is_recovered_with_its_contents(pmemids, pool_dir, ds):
    expect_ok(pmemids.run("--ds", ds, "--mode", "pmem-persist", "--keep-pool", *workload(ds)))
    r = pmemids.run("--ds", ds, "--mode", "pmem-persist", "--reopen", *workload(ds))
    [rec] = expect_ok(r)
    assert rec["metrics"]["ops"] == 4000


def crash(pmemids, pool_dir, out, *args):
    r = pmemids("crash", "--pool-dir", str(pool_dir), "--out", str(out), *args)
    recs = read_records(out) if out.exists() else []
    return r, recs


@pytest.mark.parametrize("ds", ["ringbuffer-tx", "lflist-tlog", "lflist-soft", "lflist-linkfree"])
def test_crash_is_clean_for_adr_designs(pmemids, pool_dir, tmp_path, ds):
    out = tmp_path / "c.jsonl"
    r, recs = crash(pmemids, pool_dir, out, "--ds", ds, "--points", "40")
    assert r.returncode == 0, r.describe()
    r, recs = crash(pmemids, pool_dir, out, "--ds", ds, "--points", "20", "--threads", "3",
                    "--recovery-points", "2", "-p", "operationcount=90")
    assert r.returncode == 0, r.describe()
    assert len(recs) == 2
    for rec in recs:
        m = rec["metrics"]
        assert m["invariant_failures"] == m["lost_acknowledged"] == m["half_applied"] == 0, rec
        assert m["recovered"] == m["points"], rec
    assert recs[1]["config"]["threads"] == 3


@pytest.mark.parametrize("ds", DURABLE_INTERNAL)
def test_crash_is_clean_for_every_design_under_eadr(pmemids, pool_dir, tmp_path, ds):
    out = tmp_path / "e.jsonl"
    r, recs = crash(pmemids, pool_dir, out, "--ds", ds, "--domain", "eadr", "--points", "30")
    assert r.returncode == 0, r.describe()
    r, recs = crash(pmemids, pool_dir, out, "--ds", ds, "--domain", "eadr", "--points", "15",
                    "--threads", "3", "-p", "operationcount=90")
    assert r.returncode == 0, r.describe()
    assert len(recs) == 2
    for rec in recs:
        m = rec["metrics"]
        assert m["invariant_failures"] == m["lost_acknowledged"] == m["half_applied"] == 0, rec
        assert m["recovered"] == m["points"] > 0, rec
        assert rec["config"]["domain"].startswith("eadr"), rec["config"]  # eadr-emulated here


@pytest.mark.parametrize("ds", EADR_ONLY)
def test_crash_reports_eadr_only_designs_failing_under_adr(pmemids, pool_dir, tmp_path, ds):
    out = tmp_path / "n.jsonl"
    r, _ = crash(pmemids, pool_dir, out, "--ds", ds, "--points", "10")
    assert r.returncode == 2 and "--unsafe" in r.stderr, r.describe()
    r, recs = crash(pmemids, pool_dir, out, "--ds", ds, "--points", "40", "--unsafe")
    assert r.returncode == 0, r.describe()
    m = recs[-1]["metrics"]
    assert m["invariant_failures"] + m["lost_acknowledged"] + m["half_applied"] > 0, recs[-1]
