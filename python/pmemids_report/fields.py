"""The one list of record fields that claims (and anything else) may name.

METRICS: numeric fields of a record's `metrics` object, by where they come from.
  run       every run record has them (tests/report/test_fields.py runs pmemids and checks
            both directions: each is in a real record, each numeric metric of a real
            record is known here)
  issue N   named by that issue's contract for a command or option still to land
            (persistence domains 13, micro-benchmarks 14, combining stacks 16, counters
            19); when it lands, its real records are checked the same way
COSTS, the per-operation costs among them, are the report's cost columns (stats.py).
Per-operation-type metrics are patterns: <op>_ops, <op>_found, <op>_not_found and
latency_<op>_<stat> for every operation type.

CONFIG_KEYS: fields of a run record's `config` (and the report's derived `locality`, and
the context's `hostname`, `pmem` and `git_revision`, which the report keeps in a
configuration's identity) that a claim's select(...) or by=[...] may name.
"""

from __future__ import annotations

import re

from .style import OP_TYPES, PERCENTILES

# The per-operation costs of a run record (the report's cost columns).
COSTS = ["persists_per_op", "flushed_lines_per_op", "tx_per_op", "tx_bytes_per_op",
         "allocs_per_op", "frees_per_op", "translations_per_op"]
METRICS: dict[str, str] = {
    **{k: "run" for k in [
        "ops", "seconds", "ops_per_sec", "wall_ops_per_sec", "load_ops", "load_seconds",
        "open_seconds", "recovery_seconds", "pool_bytes", *COSTS,
        "voluntary_switches_per_op", "involuntary_switches_per_op"]},
    **{k: "issue 13" for k in ["fences_per_op", "flushes_elided_per_op"]},
    **{k: "issue 14" for k in [
        "ns_per_op", "gib_per_sec", "flushes_issued", "fences_issued", "ewr", "rwr"]},
    **{k: "issue 16" for k in ["combining_sessions_per_op", "mean_batch_size",
                               "elimination_ratio", "spins_per_op"]},
    **{k: "issue 19" for k in [
        "llc_miss_ratio", "llc_misses_per_op", "instructions_per_op", "cycles_per_op",
        "sim_ll_miss_ratio", "sim_instructions_per_op"]},
}
PER_OP_TYPE = ("ops", "found", "not_found")
LATENCY_STATS = ("samples", "mean_ns", *(f"{p}_ns" for p, _ in PERCENTILES))

_PER_OP = re.compile(rf"({'|'.join(OP_TYPES)})_({'|'.join(PER_OP_TYPE)})")
_LATENCY = re.compile(rf"latency_({'|'.join(OP_TYPES)})_({'|'.join(LATENCY_STATS)})")

CONFIG_KEYS = (
    # what and how
    "ds", "mode", "workload", "thread_mode", "threads", "lock", "pin", "cpu_node", "mem_node",
    "duration", "timeline_ms", "latency_sample", "warmup", "reopen",
    # structure knobs
    "load_factor", "node_keys", "max_height",
    # combining stacks (issue 16)
    "wait", "combiner_yield", "persist_requests", "elimination", "recycle", "combining_rounds",
    "poolnodes", "localwork",
    # workload properties
    "recordcount", "operationcount", "readproportion", "updateproportion", "insertproportion",
    "scanproportion", "readmodifywriteproportion", "deleteproportion", "requestdistribution",
    "zipfianconstant", "insertorder", "fieldlength", "maxscanlength", "hotspotdatafraction",
    "hotspotopnfraction", "readmissrate", "request_generator", "tracefile", "traceload",
    # derived by the report, and the context's part of a configuration's identity
    "locality", "hostname", "pmem", "git_revision",
)


def is_metric(name: str) -> bool:
    return name in METRICS or bool(_PER_OP.fullmatch(name) or _LATENCY.fullmatch(name))


def is_config_key(name: str) -> bool:
    return name in CONFIG_KEYS


def metrics_text() -> str:
    ops = "|".join(OP_TYPES)
    return (", ".join(METRICS) + f", <{ops}>_<{'|'.join(PER_OP_TYPE)}>, "
            f"latency_<{ops}>_<{'|'.join(LATENCY_STATS)}>")
