"""Persistence domains, flush instructions, what-if latency and `pmemids doctor`
through the CLI: what records say, what stderr warns, what is refused."""

from __future__ import annotations

import json

import pytest

from conftest import TINY, WORKLOADS, read_records

WRITE = ["-P", str(WORKLOADS / "pmemids-write"), *TINY]


def one_record(r):
    assert r.returncode == 0, r.describe()
    assert len(r.new_records) == 1, r.describe()
    return r.new_records[0]


def test_eadr_elides_write_backs_keeps_fences_and_warns(pmemids):
    rec = one_record(pmemids.run("--ds", "hashtable", "--mode", "pmem-persist", *WRITE,
                                 "--domain", "eadr"))
    r = pmemids.run("--ds", "hashtable", "--mode", "pmem-persist", *WRITE, "--domain", "eadr")
    assert "eADR is EMULATED" in r.stderr and "NOT crash-safe" in r.stderr, r.describe()
    assert rec["context"]["domain"] == rec["config"]["domain"] == "eadr-emulated"
    m = rec["metrics"]
    assert m["flushed_lines_per_op"] == 0
    assert m["fences_per_op"] > 0
    assert m["flushes_elided_per_op"] > 0
    assert m["lib_flushed_lines_per_op"] == 0
    assert rec["config"]["flush_instruction"] == "none"
    assert rec["config"]["flush_cold"] == "off"


def test_flush_cold_writes_back_value_payloads_under_eadr(pmemids):
    # Spelled as the option, so a claim's select(flush_cold=on) matches sweep and records.
    off = one_record(pmemids.run("--ds", "hashtable", "--mode", "pmem-persist", *WRITE,
                                 "--domain", "eadr"))
    on = one_record(pmemids.run("--ds", "hashtable", "--mode", "pmem-persist", *WRITE,
                                "--domain", "eadr", "--flush-cold", "on"))
    assert on["config"]["flush_cold"] == "on"
    assert on["metrics"]["flushed_lines_per_op"] > 0
    assert on["metrics"]["flushes_elided_per_op"] > 0, "only the payloads are written back"
    assert on["metrics"]["fences_per_op"] == pytest.approx(off["metrics"]["fences_per_op"])


def test_adr_writes_back_what_eadr_elides(pmemids):
    adr = one_record(pmemids.run("--ds", "bplustree", "--mode", "pmem-persist", *WRITE,
                                 "--domain", "adr"))
    eadr = one_record(pmemids.run("--ds", "bplustree", "--mode", "pmem-persist", *WRITE,
                                  "--domain", "eadr"))
    a, e = adr["metrics"], eadr["metrics"]
    assert adr["context"]["domain"] == "adr"
    assert a["flushes_elided_per_op"] == 0
    assert e["flushes_elided_per_op"] == pytest.approx(a["flushed_lines_per_op"])
    assert e["fences_per_op"] == pytest.approx(a["fences_per_op"])
    assert a["fences_per_op"] < a["persists_per_op"], "node regions are fenced once per batch"


def test_trans_records_libpmemobj_write_backs_and_elides_them_under_eadr(pmemids):
    adr = one_record(pmemids.run("--ds", "hashtable", "--mode", "pmem-trans", *WRITE))
    eadr = one_record(pmemids.run("--ds", "hashtable", "--mode", "pmem-trans", *WRITE,
                                  "--domain", "eadr"))
    assert adr["context"]["libpmemobj_flushes"] == "counted"
    assert adr["metrics"]["lib_flushed_lines_per_op"] > 0
    assert adr["metrics"]["lib_fences_per_op"] > 0
    assert eadr["metrics"]["lib_flushed_lines_per_op"] == 0
    assert eadr["metrics"]["lib_flushes_elided_per_op"] > 0
    assert eadr["metrics"]["lib_fences_per_op"] == pytest.approx(adr["metrics"]["lib_fences_per_op"])


@pytest.mark.parametrize("insn", ["clwb", "clflushopt", "clflush", "nt"])
def test_flush_instruction_is_recorded(pmemids, insn):
    r = pmemids.run("--ds", "hashtable", "--mode", "pmem-persist", *WRITE, "--flush", insn)
    if r.returncode == 2:  # this CPU lacks it: the message names those it has
        assert "this CPU does not have it; it has:" in r.stderr, r.describe()
        return
    rec = one_record(r)
    assert rec["context"]["flush_instruction"] == rec["config"]["flush_instruction"] == insn
    assert rec["config"]["flush"] == insn
    assert rec["metrics"]["flushed_lines_per_op"] > 0


def test_bad_persistence_options_are_exit_2(pmemids):
    for args, needle in [(["--flush", "movdir64b"], "--flush"),
                         (["--domain", "eADR"], "--domain"),
                         (["--flush-cold", "yes"], "--flush-cold"),
                         (["--pmem-profile", "dram"], "--pmem-profile"),
                         (["--pmem-write-ns", "-3"], "--pmem-write-ns")]:
        r = pmemids.run("--ds", "hashtable", "--mode", "pmem-persist", *WRITE, *args)
        assert r.returncode == 2, r.describe()
        assert needle in r.stderr, r.describe()
        assert not r.new_records


def test_injected_latency_is_recorded_and_charged(pmemids):
    rec = one_record(pmemids.run("--ds", "hashtable", "--mode", "pmem-persist", *WRITE,
                                 "--pmem-write-ns", "100", "--pmem-read-ns", "20"))
    c, m = rec["config"], rec["metrics"]
    assert (c["pmem_write_ns"], c["pmem_read_ns"], c["pmem_profile"]) == (100, 20, None)
    assert rec["context"]["latency_injection"]["tsc_ticks_per_ns"] > 0
    assert m["injected_write_ns_per_op"] == pytest.approx(
        100 * m["flushed_lines_per_op"], rel=0.05)  # pmemids' and libpmemobj's lines
    assert m["injected_read_ns_per_op"] == pytest.approx(20 * m["translations_per_op"])
    plain = one_record(pmemids.run("--ds", "hashtable", "--mode", "pmem-persist", *WRITE))
    assert plain["metrics"]["injected_write_ns_per_op"] is None
    assert plain["config"]["pmem_write_ns"] is None


def test_profile_sets_published_latencies_and_explicit_values_win(pmemids):
    rec = one_record(pmemids.run("--ds", "arraylist", "--mode", "pmem-persist", *WRITE,
                                 "--pmem-profile", "optane", "--pmem-read-ns", "5"))
    assert rec["config"]["pmem_profile"] == "optane"
    assert rec["config"]["pmem_write_ns"] == 128
    assert rec["config"]["pmem_read_ns"] == 5


def test_crash_under_eadr_records_the_domain(pmemids, pool_dir, out_path):
    r = pmemids("crash", "--pool-dir", str(pool_dir), "--ds", "hashtable", "--points", "4",
                "--domain", "eadr", "--store-buffer-loss", "suffix", "--out", str(out_path),
                "-p", "recordcount=20", "-p", "operationcount=40")
    assert r.returncode == 0, r.describe()
    recs = read_records(out_path)
    assert len(recs) == 2
    for rec in recs:
        assert rec["config"]["domain"] == "eadr-emulated"
        assert rec["config"]["store_buffer_loss"] == "suffix"
        assert rec["metrics"]["violation"] is False, rec
    assert "eadr-emulated" in r.stdout


def test_store_buffer_loss_needs_eadr(pmemids, pool_dir):
    r = pmemids("crash", "--pool-dir", str(pool_dir), "--ds", "hashtable", "--points", "2",
                "--domain", "adr", "--store-buffer-loss", "suffix")
    assert r.returncode == 2, r.describe()
    assert "--store-buffer-loss suffix needs --domain eadr" in r.stderr


def test_sweep_validates_persistence_options_like_run(pmemids, tmp_path):
    f = tmp_path / "d.toml"
    f.write_text('ds = "hashtable"\nmode = "pmem-persist"\n[matrix]\ndomain = ["adr", "eadr"]\n'
                 'flush = ["clwb", "bogus"]\n')
    r = pmemids("sweep", str(f), "--dry-run")
    assert r.returncode == 2, r.describe()
    assert "flush" in r.stderr and "bogus" in r.stderr


def test_doctor_json_has_a_verdict_per_finding(pmemids, pool_dir):
    r = pmemids("doctor", "--json", "--pool-dir", str(pool_dir))
    assert r.returncode == 0, r.describe()
    d = json.loads(r.stdout)
    for key in ["pool_dir", "pmem", "persistence_domain", "flush_instructions",
                "clwb_retains_line", "movnt_threshold", "numa_nodes", "smt", "llc_bytes",
                "hw_counters", "dcpmm_counters", "cpu_governor", "versions", "free_space",
                "libpmemobj_flushes"]:
        assert key in d, key
        assert d[key]["verdict"] in {"ok", "info", "limited", "fail"}
    assert d["pool_dir"]["verdict"] == "ok"
    for f in d.values():
        if f["verdict"] == "limited":
            assert f["note"], f  # what it disables
    text = pmemids("doctor", "--pool-dir", str(pool_dir))
    assert text.returncode == 0 and "NUMA nodes" in text.stdout


def test_doctor_exit_2_on_an_unusable_pool_directory(pmemids, tmp_path):
    missing = tmp_path / "missing"
    r = pmemids("doctor", "--json", "--pool-dir", str(missing))
    assert r.returncode == 2, r.describe()  # a configuration error, as in every command
    d = json.loads(r.stdout)
    assert d["pool_dir"]["verdict"] == "fail"
    assert d["pool_dir"]["value"]["path"] == str(missing)
    assert r.stderr.startswith(f"pmemids: error: pool directory '{missing}' does not exist")
    assert not missing.exists()
