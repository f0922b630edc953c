"""fields.py, the one list of metric names and configuration keys that claims may use,
against real records of the binary: every name listed as written by `run` is in a real
record, and every numeric metric and identity key of a real record is listed."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from conftest import REPO, run_binary
from pmemids_report import catalog, fields, stats

DERIVED = {"locality", "hostname", "pmem", "git_revision"}  # not config fields of the record
# A small workload of each operation set: a record carries the keys of its own set only.
SET_WORKLOADS = {"kv": ["pmemids-write", "-p", "recordcount=200"],
                 "ordered-kv": ["pmemids-write", "-p", "recordcount=200"],
                 "stack": ["stack-pushpop"], "set": ["set-u10"],
                 "queue": ["ring-5050", "-p", "recordcount=16", "-p", "queueslots=64",
                           "-p", "slotsize=128", "-p", "fieldlength=64"]}


def others() -> list[dict]:
    """Besides btree: a structure of every operation set and one reading each knob (a
    record carries its own structure's knobs only), so that every key is in some record."""
    keep, seen = [], set()
    for e in catalog.entries():
        new = {e["operation_set"]} | {k["name"] for k in e["knobs"]}
        if not e["harness"] and e["ds"] != "btree" and not new <= seen:
            keep.append(e)
            seen |= new
    return keep


@pytest.fixture(scope="module")
def real_records(binary, tmp_path_factory) -> list[dict]:
    out = tmp_path_factory.mktemp("fields") / "r.jsonl"
    pools = Path(tempfile.mkdtemp(prefix="pmemids-fields-", dir="/dev/shm"))
    try:
        for workload in ("pmemids-write", "pmemids-read", "workloade"):
            p = run_binary(binary, "run", "--ds", "btree", "--mode", "pmem-trans", "-P",
                           str(REPO / "workloads" / workload), "-p", "recordcount=2000",
                           "-p", "operationcount=2000", "--latency-sample", "1",
                           "--pool-dir", str(pools), "--out", str(out))
            assert p.returncode == 0, p.stderr
        for e in others():
            name, *props = SET_WORKLOADS[e["operation_set"]]
            mode = "dram" if "dram" in e["modes"] else e["modes"][0]
            p = run_binary(binary, "run", "--ds", e["ds"], "--mode", mode, "-P",
                           str(REPO / "workloads" / name), *props, "-p", "operationcount=200",
                           "--pool-dir", str(pools), "--out", str(out))
            assert p.returncode == 0, p.stderr
        for counters in (["perf", "--perf-events", "software"], ["sim"]):
            p = run_binary(binary, "run", "--ds", "btree", "--mode", "pmem-trans", "-P",
                           str(REPO / "workloads" / "pmemids-read"), "-p", "recordcount=500",
                           "-p", "operationcount=500", "--counters", *counters,
                           "--pool-dir", str(pools), "--out", str(out))
            assert p.returncode == 0, p.stderr
    finally:
        shutil.rmtree(pools, ignore_errors=True)
    return [json.loads(line) for line in out.read_text().splitlines()]


def test_every_run_metric_is_in_a_real_record(real_records):
    for name, source in fields.METRICS.items():
        if source == "run":
            assert all(name in r["metrics"] for r in real_records), name


@pytest.mark.parametrize("counters", ["perf", "sim"])
def test_every_counter_metric_is_in_a_real_record_of_its_option(real_records, counters):
    records = [r for r in real_records if r["config"].get("counters") == counters]
    assert records
    for name, source in fields.METRICS.items():
        if source == f"run --counters {counters}":
            assert all(name in r["metrics"] for r in records), name


def test_every_numeric_metric_of_a_real_record_is_known(real_records):
    seen = {k for r in real_records for k, v in r["metrics"].items()
            if isinstance(v, (int, float)) and not isinstance(v, bool)}
    assert {"latency_read_p99_ns", "latency_scan_mean_ns", "insert_not_found"} <= seen
    assert sorted(k for k in seen if not fields.is_metric(k)) == []


def test_configuration_keys_match_a_real_record(real_records):
    identity = {k for r in real_records for k in r["config"]} - stats.NOT_IDENTITY
    assert sorted(identity - set(fields.CONFIG_KEYS)) == []
    assert sorted(set(fields.CONFIG_KEYS) - identity - DERIVED) == []


def test_names_not_metrics_are_refused():
    assert fields.is_metric("latency_read_p99_ns") and fields.is_metric("update_found")
    assert not fields.is_metric("latency_read_p98_ns") and not fields.is_metric("opz_per_sec")
    assert not fields.is_config_key("seed") and fields.is_config_key("locality")


@pytest.fixture(scope="module")
def micro_records(binary, tmp_path_factory) -> list[dict]:
    out = tmp_path_factory.mktemp("fields-micro") / "m.jsonl"
    pools = Path(tempfile.mkdtemp(prefix="pmemids-fields-", dir="/dev/shm"))
    try:
        counted = ["--ops-per-thread", "1000", "--min-time", "0"]
        for args in (["persist", "--op", "persist", "--size", "64", *counted],
                     ["rmw", "--io", "256", *counted],
                     ["latency", "--access", "load", "--hit-ratio", "0", "--region", "256K"]):
            p = run_binary(binary, "micro", *args, "--pool-dir", str(pools), "--out", str(out))
            assert p.returncode == 0, p.stderr
    finally:
        shutil.rmtree(pools, ignore_errors=True)
    return [json.loads(line) for line in out.read_text().splitlines()]


def test_every_micro_metric_is_in_a_real_micro_record(micro_records):
    """`pmemids micro` has landed: the metrics its issue named are in its records."""
    for name, source in fields.METRICS.items():
        if source == "issue 14":
            assert any(name in r["metrics"] for r in micro_records), name


def test_micro_records_carry_their_timed_phases_usage(micro_records):
    """CPU time, context switches and run-queue wait of the workers' timed phases, as a
    run's record has them (`pmemids reproduce` decides one-thread rates on own time)."""
    usage = ("cpu_user_seconds", "cpu_system_seconds", "voluntary_context_switches",
             "involuntary_context_switches", "run_delay_seconds")
    schedstat = os.access("/proc/thread-self/schedstat", os.R_OK)
    for r in micro_records:
        m = r["metrics"]
        for part in (m, *m["per_thread"]):
            assert all(k in part for k in usage), (r["bench"], sorted(part))
            workers = len(m["per_thread"]) if part is m else 1
            bound = part["seconds"] * workers + 0.05
            assert 0 <= part["cpu_user_seconds"] + part["cpu_system_seconds"] <= bound
            wait = part["run_delay_seconds"]
            assert (0 <= wait <= bound) if schedstat else wait is None, (r["bench"], wait)
