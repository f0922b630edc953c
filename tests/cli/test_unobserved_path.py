"""The benchmarked path is the checked path, also when nothing observes it.

The crash checker runs the backends with an observer installed (the shadow of
backend/shadow.h, and libpmemobj's write-backs reported through
pmem/libpmem_hooks.h); `pmemids run` runs them without one. A bug acting only
without an observer (a hook that writes back only when someone watches, a
branch on the hook type) would pass every crash run and unit test. So here the
plain `pmemids run` binary runs under callgrind, for every durable (structure,
mode) that `pmemids list --json` names, and the write-back and fence
instructions its timed phases executed must be exactly what its records count:

  write-backs (clwb, clflushopt, clflush) executed in the pmemids binary
      == pmemids_flushed_lines_per_op * ops
  write-backs executed in libpmem.so (libpmemobj's, through pmemids' hooks)
      == lib_flushed_lines_per_op * ops;  together: flushed_lines_per_op * ops
  fences (sfence, mfence) executed in the pmemids binary == pmemids_fences_per_op * ops
  calls of libpmem's pmem_drain == lib_fences_per_op * ops, and the fences libpmem
      executed are one per call when it writes back with clwb or clflushopt, none
      with clflush (its drain is empty: clflush is ordered); no other object fences

Only the timed phase counts, as in the records (docs/metrics.md: costs per
operation while the operations ran): callgrind collects inside timed_drive only
(--toggle-collect, the symbol scripts/callgrind-ops.sh uses) and dumps before each
record's metrics are computed (--dump-before=pmemids::metrics_json), so dump k is
record k's timed phase. Copies stay off non-temporal stores (--movnt-threshold
2^40 for pmemids' own, as large as it takes; PMEM_NO_MOVNT=1 for libpmem's), so
every written-back line is one write-back instruction: the test asserts that no
non-temporal store ran. The non-temporal copy itself is tested on its own
(tests/unit/flush_test.cc). One callgrind process per operation set,
on a small write-heavy workload: about 15 s each on this project's machine.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from callgrind import FENCES, FLUSHES, entries, instruction_counts
from conftest import WORKLOADS, read_records

VALGRIND = shutil.which("valgrind")
DURABLE = ("pmem-persist", "pmem-trans")
# A small write-heavy workload per operation set (ordered-kv structures run kv).
WORKLOAD = {
    "kv": ["-p", "recordcount=64", "-p", "operationcount=160", "-p", "readproportion=0.1",
           "-p", "updateproportion=0.4", "-p", "insertproportion=0.3", "-p", "deleteproportion=0.2",
           "-p", "requestdistribution=uniform-inserted", "-p", "fieldlength=64"],
    "queue": ["-P", str(WORKLOADS / "ring-5050"), "-p", "recordcount=16", "-p", "operationcount=160",
              "-p", "queueslots=64", "-p", "slotsize=128", "-p", "fieldlength=64"],
    "set": ["-P", str(WORKLOADS / "set-u50"), "-p", "keyrange=128", "-p", "operationcount=160"],
    "stack": ["-P", str(WORKLOADS / "stack-random"), "-p", "recordcount=16", "-p", "operationcount=160"],
}


def durable_pairs(binary: Path, op_set: str) -> tuple[list[str], list[str]]:
    """The structures of an operation set with a durable mode, and those modes."""
    listing = json.loads(subprocess.run([str(binary), "list", "--json"], capture_output=True,
                                        text=True, check=True).stdout)
    structures, modes = [], []
    for e in listing:
        own = "kv" if e["operation_set"] == "ordered-kv" else e["operation_set"]
        durable = [m for m in e["modes"] if m in DURABLE]
        if own != op_set or e["harness"] or not durable:
            continue
        structures.append(e["ds"])
        modes += [m for m in durable if m not in modes]
    for e in listing:  # one run takes every structure in every mode: they must all have them
        if e["ds"] in structures:
            assert all(m in e["modes"] for m in modes), (e["ds"], modes)
    return structures, modes


def test_every_durable_structure_is_in_a_group(binary):
    listing = json.loads(subprocess.run([str(binary), "list", "--json"], capture_output=True,
                                        text=True, check=True).stdout)
    covered = {ds for s in WORKLOAD for ds in durable_pairs(binary, s)[0]}
    assert covered == {e["ds"] for e in listing
                       if not e["harness"] and any(m in DURABLE for m in e["modes"])}


@pytest.mark.skipif(VALGRIND is None, reason="valgrind is not installed")
@pytest.mark.parametrize("op_set", list(WORKLOAD))
def test_unobserved_run_executes_what_its_records_count(binary, tmp_path, pool_dir, op_set):
    structures, modes = durable_pairs(binary, op_set)
    out = tmp_path / "r.jsonl"
    profile = tmp_path / "callgrind.out"
    cmd = [VALGRIND, "--tool=callgrind", "--dump-instr=yes", "--collect-atstart=no",
           "--toggle-collect=*timed_drive*", "--dump-before=pmemids::metrics_json*",
           f"--callgrind-out-file={profile}", str(binary), "run", "--ds", ",".join(structures),
           "--mode", ",".join(modes), "--unsafe", "--pool-size", "8M", "--latency-sample", "0",
           "--movnt-threshold", str(1 << 40), "--pool-dir", str(pool_dir), "--out", str(out),
           *WORKLOAD[op_set]]
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("PMEM")}, "PMEM_NO_MOVNT": "1"}
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    records = read_records(out)
    assert len(records) == len(structures) * len(modes)
    dumps = sorted(tmp_path.glob("callgrind.out.*"), key=lambda f: int(f.suffix[1:]))
    assert len(dumps) == len(records), [d.name for d in dumps]
    ran = [instruction_counts(d) for d in dumps]
    # libpmem's write-back instruction, for the whole process: its drain fences
    # with clwb and clflushopt, and is empty with clflush.
    lib_insns = {i for r in ran for (o, i), n in r.items() if o.startswith("libpmem.so") and i in FLUSHES}
    assert len(lib_insns) <= 1, lib_insns
    lib_drain_fences = bool(lib_insns & {"clwb", "clflushopt"})
    for rec, dump, counts in zip(records, dumps, ran):
        c, m = rec["config"], rec["metrics"]
        what = f"{c['ds']} {c['mode']} ({dump.name}): executed {counts}"
        ops = m["ops"]
        counted = {k: round(m[k] * ops) for k in (
            "flushed_lines_per_op", "pmemids_flushed_lines_per_op", "lib_flushed_lines_per_op",
            "pmemids_fences_per_op", "lib_fences_per_op")}
        what += f", recorded {counted}"

        def of(obj: str, kinds) -> int:
            return sum(n for (o, i), n in counts.items() if o.startswith(obj) and i in kinds)

        assert not [k for k in counts if "movnt" in k[1]], \
            f"{what}: non-temporal stores ran, so lines and write-back instructions differ"
        assert of("", FLUSHES) == counted["flushed_lines_per_op"], what
        assert of("pmemids", FLUSHES) == counted["pmemids_flushed_lines_per_op"], what
        assert of("libpmem.so", FLUSHES) == counted["lib_flushed_lines_per_op"], what
        assert of("pmemids", FENCES) == counted["pmemids_fences_per_op"], what
        drains = entries(dump, "libpmem.so", "pmem_drain")
        assert drains == counted["lib_fences_per_op"], f"{what}, pmem_drain calls {drains}"
        assert of("libpmem.so", FENCES) == (drains if lib_drain_fences else 0), what
        assert of("", FENCES) == of("pmemids", FENCES) + of("libpmem.so", FENCES), what
    # Not an empty check (ringbuffer-txfree alone writes back nothing: it only fences).
    assert sum(n for r in ran for (_, i), n in r.items() if i in FLUSHES) > 0
