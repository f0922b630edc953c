"""What the report says about the records besides the numbers.

environment(records): the `context` of run records, one row per key: the value
when every record agrees, otherwise each distinct value with its record count
(timestamps as first – last). A sweep runs each configuration in a pool
directory of its own (<base>/sweep-<config id>): the pool directory is shown
as its base, once.

warnings(records, confs): derived warnings, most important first:
  - PMEM was emulated (context.pmem == "emulated")
  - eADR was emulated (config.domain == "eadr-emulated"): write-backs skipped
  - what-if media latency was injected (config.pmem_write_ns / pmem_read_ns)
  - a build was not optimized (context.optimized false, or build_type not Release)
  - a git revision ends in -dirty
  - records come from more than one host, CPU model, git revision, PMEM kind,
    build type or PMDK version
  - configurations whose coefficient of variation exceeds CV_LIMIT
  - configurations measured once (no spread can be shown)
  - configurations that were skipped or failed, with their reasons

skipped(records): one entry per skipped or failed record (a sweep's): the
configuration summary, reason ("failed: <reason>" for failed ones), file and line.
"""

from __future__ import annotations

import json
import re
import shlex
from collections import Counter

import pandas as pd

from .load import Record

CV_LIMIT = 0.05
MIXED_KEYS = [("hostname", "hosts"), ("cpu_model", "CPU models"), ("git_revision", "git revisions"),
              ("pmem", "PMEM kinds"), ("build_type", "build types"), ("pmdk_version", "PMDK versions"),
              ("libpmemobj_link", "libpmemobj linkages")]
LISTED = 8   # configurations named per warning before "and N more"


def _contexts(records: list[Record]) -> list[dict]:
    return [r.data["context"] for r in records if r.kind in ("run", "micro")]


def _show(v) -> str:
    return json.dumps(v, sort_keys=True) if isinstance(v, (dict, list)) else str(v)


SWEEP_POOL_DIR = re.compile(r"/sweep-[0-9a-f]{16}/?$")


def _environment_value(key: str, value) -> str:
    if key == "command_line" and isinstance(value, list):
        return shlex.join(str(v) for v in value)
    if key == "pool_dir" and isinstance(value, str):
        base = SWEEP_POOL_DIR.sub("", value)
        return base if base == value else f"{base} (a sweep-<config id> directory per configuration)"
    return _show(value)


def environment(records: list[Record]) -> list[tuple[str, str]]:
    contexts = _contexts(records)
    keys = list(dict.fromkeys(k for c in contexts for k in c))
    rows = []
    for k in keys:
        values = [_environment_value(k, c[k]) if k in c else "(absent)" for c in contexts]
        counts = Counter(values)
        if k == "timestamp" and len(counts) > 1:
            present = sorted(v for v in values if v != "(absent)")
            rows.append((k, f"{present[0]} – {present[-1]}"))
        elif len(counts) == 1:
            rows.append((k, values[0]))
        else:  # distinct values with their counts, one a line
            rows.append((k, "\n".join(f"{v} ({n} records)" for v, n in counts.most_common())))
    return rows


def emulated(records: list[Record]) -> int:
    """Number of run records measured on emulated PMEM."""
    return sum(1 for c in _contexts(records) if c.get("pmem") == "emulated")


def _names(labels: list[str]) -> str:
    more = len(labels) - LISTED
    return ", ".join(labels[:LISTED]) + (f" and {more} more" if more > 0 else "")


def _config_name(r) -> str:
    return f"{r['label']} ({r['ds']}, {r['mode']}, {r['workload']})"


def warnings(records: list[Record], confs: pd.DataFrame) -> list[str]:
    contexts = _contexts(records)
    out = []
    n_emulated = emulated(records)
    if n_emulated:
        out.append(f"PMEM was emulated for {n_emulated} of {len(contexts)} records: the pool was on "
                   "memory that is not persistent (e.g. tmpfs). Flushes ran, but the numbers show "
                   "software costs on DRAM, not persistent-memory media.")
    configs = [r.data["config"] for r in records if r.kind == "run"]
    eadr = sum(1 for c in configs if c.get("domain") == "eadr-emulated")
    if eadr:
        out.append(f"eADR was emulated for {eadr} of {len(configs)} records: pmemids and libpmemobj "
                   "skipped their cache-line write-backs and kept every fence, as a platform with "
                   "persistent caches would; those pools were not crash-safe on the machine.")
    injected = Counter(
        f"{c.get('pmem_profile') or 'custom'}: {c.get('pmem_write_ns') or 0} ns per written-back line, "
        f"{c.get('pmem_read_ns') or 0} ns per node read"
        for c in configs if c.get("pmem_write_ns") or c.get("pmem_read_ns"))
    if injected:
        out.append(f"What-if media latency was injected in {sum(injected.values())} of {len(configs)} "
                   "records (" + "; ".join(f"{k} ({n})" for k, n in injected.most_common()) + "): "
                   "their throughput models slower media by busy-waiting; it was not measured on "
                   "such media.")
    slow = sum(1 for c in contexts if c.get("optimized") is False
               or ("build_type" in c and c["build_type"] != "Release"))
    if slow:
        out.append(f"{slow} records come from a build that is not an optimized Release build.")
    dirty = sorted({c["git_revision"] for c in contexts if str(c.get("git_revision", "")).endswith("-dirty")})
    if dirty:
        out.append(f"Built from uncommitted changes (git revision {', '.join(dirty)}).")
    for key, what in MIXED_KEYS:
        values = Counter(str(c[key]) for c in contexts if key in c)
        if len(values) > 1:
            out.append(f"Records come from {len(values)} different {what}: "
                       + ", ".join(f"{v} ({n})" for v, n in values.most_common()) + ".")
    if not confs.empty:
        noisy = confs[confs["cv"] > CV_LIMIT]
        if len(noisy):
            out.append(f"{len(noisy)} configurations vary by more than {CV_LIMIT:.0%} (coefficient of "
                       f"variation) across repetitions: "
                       + _names([f"{_config_name(r)} {r['cv']:.0%}" for _, r in noisy.iterrows()]) + ".")
        once = confs[confs["n"] == 1]
        if len(once):
            out.append(f"{len(once)} configurations were measured once (no error bar): "
                       + _names([_config_name(r) for _, r in once.iterrows()]) + ".")
    skips = skipped(records)
    if skips:
        reasons = Counter(s["reason"] for s in skips)
        failed = sum(1 for r in records if r.kind == "failed")
        what = f"were skipped and {failed} failed" if failed else "were skipped"
        out.append(f"{len(skips) - failed} configurations {what}: "
                   + "; ".join(f"{reason} ({n})" for reason, n in reasons.most_common()) + ".")
    return out


# Options that change what a measurement means: a directory mixing their values mixes runs
# a reader should not pool without knowing.
WHAT_IF = ["pmem_write_ns", "pmem_read_ns", "pmem_profile", "domain", "flush", "counters", "min_time"]


def mixes(records: list[Record]) -> str | None:
    """What the measured records mix ('N runs (distinct command lines); workloads: ...;
    what-if options: ...'), or None when they are one kind of run."""
    measured = [r for r in records if r.kind in ("run", "micro")]
    workloads = Counter(str(r.data["config"].get("workload") or f"micro {r.data['config'].get('bench')}")
                        for r in measured)
    what_if = {}
    for key in WHAT_IF:
        values = Counter(_show(r.data["config"].get(key)) for r in measured)
        if len(values) > 1:
            what_if[key] = values
    if len(workloads) < 2 and not what_if:
        return None
    runs = len({_show(r.data["context"].get("command_line")) for r in measured})
    parts = [f"workloads: " + ", ".join(f"{w} ({n})" for w, n in workloads.most_common())]
    parts += [f"{k}: " + ", ".join(f"{v} ({n})" for v, n in values.most_common()) for k, values in what_if.items()]
    return (f"This report mixes {runs} run{'' if runs == 1 else 's'} (distinct command lines, "
            f"{len(measured)} records): " + "; ".join(parts)
            + " (records per value); pick one with --select KEY=VALUE.")


SKIPPED_FIELDS = ["workload", "ds", "mode", "thread_mode", "threads", "lock", "cpu_node", "mem_node"]


def skipped(records: list[Record]) -> list[dict]:
    out = []
    for r in records:
        if r.kind not in ("skipped", "failed"):
            continue
        config = r.data["config"]
        fields = SKIPPED_FIELDS if config.get("kind") != "micro" else [k for k in config if k != "kind"]
        reason = r.data["reason"] if r.kind == "skipped" else f"failed: {r.data['reason']}"
        out.append({"config": ", ".join(f"{k}={config[k]}" for k in fields if config.get(k) is not None),
                    "reason": reason, "where": f"{r.file}:{r.line}"})
    return out
