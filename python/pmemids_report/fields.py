"""The one list of record fields that claims (and anything else) may name.

METRICS: numeric fields of a record's `metrics` object, by where they come from.
  run       every run record has them (tests/report/test_fields.py runs pmemids and checks
            both directions: each is in a real record, each numeric metric of a real
            record is known here)
  run --counters perf|sim
            records of runs with that option have them (tests/report/test_fields.py
            checks them against real records the same way)
  issue N   named by that issue's contract for a command or option still to land
            (micro-benchmarks 14, combining stacks 16); when it
            lands, its real records are checked the same way
COSTS, the per-operation costs among them, are the report's cost columns (stats.py).
Per-operation-type metrics are patterns: <op>_ops, <op>_found, <op>_not_found and
latency_<op>_<stat> for every operation type.

CONFIG_KEYS: fields of a run record's `config` (and the report's derived `locality`, and
the context's `hostname`, `pmem` and `git_revision`, which the report keeps in a
configuration's identity) that a claim's select(...) or by=[...] may name. The
structures' knobs among them are the binary's (`pmemids list --json`).
"""

from __future__ import annotations

import re

from . import catalog
from .style import OP_TYPES, PERCENTILES

# The events of `run --counters perf` (src/counters/perf_events.h, kPerfEvents).
PERF_EVENTS = ["cycles", "instructions", "branch_misses", "llc_loads", "llc_misses", "l1d_misses",
               "dtlb_misses", "page_faults", "context_switches", "cpu_migrations"]
# The per-operation costs of a run record (the report's cost columns).
COSTS = ["persists_per_op", "flushed_lines_per_op", "fences_per_op", "tx_per_op",
         "tx_bytes_per_op", "allocs_per_op", "frees_per_op", "translations_per_op"]
# Cache-miss ratios the report averages per configuration (Table III, table3.py).
COUNTER_RATIOS = ["llc_miss_ratio", "sim_ll_miss_ratio"]
METRICS: dict[str, str] = {
    **{k: "run" for k in [
        "ops", "seconds", "ops_per_sec", "wall_ops_per_sec", "load_ops", "load_seconds",
        "open_seconds", "recovery_seconds", "pool_bytes", *COSTS,
        # the flush layer and persistence domains (issue 13); null when unobserved
        "flushes_elided_per_op", "pmemids_persists_per_op", "pmemids_flushed_lines_per_op",
        "pmemids_fences_per_op", "lib_flushed_lines_per_op",
        "lib_fences_per_op", "lib_flushes_elided_per_op", "injected_write_ns_per_op",
        "injected_read_ns_per_op",
        # the run layer's trust (issue 10)
        "operationcount", "sum_of_rates_ops_per_sec", "thread_seconds_spread", "allowed_cpus",
        "cycles", "cpu_user_seconds", "cpu_system_seconds", "voluntary_context_switches",
        "involuntary_context_switches", "run_delay_seconds",
        # the combining stacks' context switches per operation (issue 16)
        "voluntary_switches_per_op", "involuntary_switches_per_op",
        # the structures' estimated size, against the LLC for memory-bound claims (issue 25)
        "footprint_bytes",
        # a pmem-trans transaction's shape (issue 30)
        "tx_add_range_calls_per_op", "tx_writes_per_op"]},
    **{k: "issue 14" for k in [
        "ns_per_op", "gib_per_sec", "flushes_issued", "fences_issued", "ewr", "rwr",
        "hit_ratio_achieved"]},
    # each structure's own (`pmemids list --json`: "metrics"), in its records only
    **{m["name"]: "structure" for m in catalog.metrics()},
    # --counters perf: each event's total and <event>_per_op (null where not counted).
    **{k: "run --counters perf" for e in PERF_EVENTS for k in (e, f"{e}_per_op")},
    **{k: "run --counters perf" for k in ["llc_miss_ratio", "ipc"]},
    # --counters sim (callgrind).
    **{k: "run --counters sim" for k in [
        "sim_instructions", "sim_instructions_per_op", "sim_data_reads_per_op",
        "sim_data_writes_per_op", "sim_i1_misses_per_op", "sim_d1_read_misses_per_op",
        "sim_d1_write_misses_per_op", "sim_ll_misses_per_op", "sim_ll_write_misses_per_op",
        "sim_ll_instruction_misses_per_op", "sim_ll_miss_ratio", "sim_d1_miss_ratio",
        "sim_branches_per_op", "sim_branch_misses_per_op"]},
}
PER_OP_TYPE = ("ops", "found", "not_found")
LATENCY_STATS = ("samples", "mean_ns", *(f"{p}_ns" for p, _ in PERCENTILES))

_PER_OP = re.compile(rf"({'|'.join(OP_TYPES)})_({'|'.join(PER_OP_TYPE)})")
_LATENCY = re.compile(rf"(?:intended_)?latency_({'|'.join(OP_TYPES)})_({'|'.join(LATENCY_STATS)})")

CONFIG_KEYS = (
    # what and how
    "ds", "mode", "workload", "thread_mode", "threads", "lock", "pin", "cpu_node", "mem_node",
    "duration", "min_time", "timeline_ms", "latency_sample", "warmup", "reopen", "target",
    # the structures' knobs (each structure's own: `pmemids list --json`, catalog.py)
    *(k["name"] for k in catalog.knobs()),
    # the combining stacks' workload properties (issue 16)
    "poolnodes", "localwork",
    # workload properties
    "recordcount", "operationcount", "readproportion", "updateproportion", "insertproportion",
    "scanproportion", "readmodifywriteproportion", "deleteproportion", "requestdistribution",
    "zipfianconstant", "insertorder", "fieldlength", "maxscanlength", "hotspotdatafraction",
    "hotspotopnfraction", "readmissrate", "request_generator", "tracefile", "traceload",
    # persistence domain, flush instruction, what-if latency
    "domain", "flush", "flush_instruction", "flush_auto", "movnt_threshold", "flush_cold",
    "pmem_write_ns", "pmem_read_ns", "pmem_profile",
    # operation sets other than kv (docs/design.md), and runs outside a structure's domains
    "operationset", "pushproportion", "popproportion", "pushpoppairs", "keyrange", "producers",
    "consumers", "queueslots", "slotsize", "unsafe",
    # derived by the report, and the context's part of a configuration's identity
    "locality", "hostname", "pmem", "git_revision",
    # what was counted: null, "perf" or "sim" (a simulated run's throughput is valgrind's)
    "counters",
)

# Config keys whose values pmemids grows while it runs, each with the key that records
# the value asked: `pmemids micro --min-time` grows ops_per_thread per point, and in an
# interleaved sweep per repetition (each repetition is its own process). Records
# differing only in a grown value are one configuration, named by the value asked:
# asked_config() is that identity, read by the claims' rows (reproduce/rows.py) and the
# micro figures' points (micro.py). (What follows from a grown count, chunks_per_region
# and transactions_per_thread, is in micro.NOT_IDENTITY.) `pmemids run --min-time` grows
# operationcount in the record's metrics only: its config keeps the count asked.
GROWN_CONFIG_KEYS = {"ops_per_thread": "ops_per_thread_asked"}


def asked_config(config: dict) -> dict:
    """config with each grown key at the value asked (where the record says it) and the
    asked keys dropped: the configuration as the user asked for it."""
    out = {k: v for k, v in config.items() if k not in GROWN_CONFIG_KEYS.values()}
    for grown, asked in GROWN_CONFIG_KEYS.items():
        if asked in config:
            out[grown] = config[asked]
    return out


# Config keys pmemids derives from a key the user chose, each with that key: --flush
# sets flush_instruction (the instruction in force) and flush_auto (whether it was
# chosen for the CPU). A figure never splits on a derived key when the key it derives
# from splits it already, and `compare --ignore flush` ignores both (compare.cc keeps
# the same list).
DERIVED_CONFIG_KEYS = {"flush_auto": "flush", "flush_instruction": "flush"}


def chosen(keys) -> list[str]:
    """keys without those derived from another of them (DERIVED_CONFIG_KEYS): what the
    user chose tells figures apart."""
    keys = list(keys)
    return [k for k in keys if DERIVED_CONFIG_KEYS.get(k) not in keys]


# Numbers of a record's context a claim may name after '/' or '-' in a metric
# (footprint_bytes/llc_bytes: the working set against the LLC size doctor reports).
CONTEXT_NUMBERS = ("llc_bytes", "cpus_online", "numa_nodes")


def is_context_number(name: str) -> bool:
    return name in CONTEXT_NUMBERS


def is_metric(name: str) -> bool:
    return name in METRICS or bool(_PER_OP.fullmatch(name) or _LATENCY.fullmatch(name))


def is_config_key(name: str) -> bool:
    return name in CONFIG_KEYS


def metrics_text() -> str:
    ops = "|".join(OP_TYPES)
    return (", ".join(METRICS) + f", <{ops}>_<{'|'.join(PER_OP_TYPE)}>, "
            f"latency_<{ops}>_<{'|'.join(LATENCY_STATS)}>")
