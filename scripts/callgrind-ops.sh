#!/usr/bin/env bash
# Instructions and libpmem calls per operation of a run's timed phase, under
# callgrind (instruction counts are repeatable on a noisy machine).
#
# Usage: scripts/callgrind-ops.sh [--top N] [--branch-sim] <pmemids run arguments...>
# e.g.   scripts/callgrind-ops.sh --ds arraylist --mode dram -P workloads/pmemids-read \
#            -p recordcount=100000 -p operationcount=1000000 --latency-sample 0
#   --top N       also print the N functions with the most inclusive instructions
#   --branch-sim  also simulate branches: mispredicted branches per operation
#
# Only the timed phase is collected (--toggle-collect on the workers'
# timed_drive, src/run/runner.h). Prints one line:
#   ops=<n> instr_per_op=<Ir / ops> [pmemids_persists_per_op=<the record's>]
#   <function>_per_op=<entries / ops> ...
# for every libpmem function libpmemobj calls (pmem_flush, pmem_drain,
# pmem_persist, pmem_memcpy, pmem_memmove, pmem_memset, pmem_msync,
# pmem_deep_flush): how often it was entered, by libpmemobj on its own, on
# pmemids' behalf, or by another libpmem function (pmem_persist enters
# pmem_flush and pmem_drain; pmem_memcpy without PMEM_F_MEM_NODRAIN enters
# pmem_drain). Entries are the execution counts of each function's first
# instruction (--dump-instr=yes): callgrind's own call counts also count the
# jumps of PLT stubs. Uses build/pmemids, or $PMEMIDS_BIN.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PMEMIDS_BIN:-build/pmemids}
top=0
sim=()
while [ $# -gt 0 ]; do
  case "$1" in
    --top) top=$2; shift 2 ;;
    --branch-sim) sim=(--branch-sim=yes); shift ;;
    *) break ;;
  esac
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
valgrind --tool=callgrind "${sim[@]}" --dump-instr=yes --toggle-collect='*timed_drive*' \
  --callgrind-out-file="$tmp/cg.out" "$bin" run "$@" --out "$tmp/r.jsonl" >/dev/null 2>"$tmp/log" ||
  { cat "$tmp/log" >&2; exit 1; }
python3 - "$tmp/cg.out" "$tmp/r.jsonl" <<'PY'
import json, re, sys
fns = ("pmem_flush", "pmem_drain", "pmem_persist", "pmem_memcpy", "pmem_memmove", "pmem_memset",
       "pmem_msync", "pmem_deep_flush")
names, entry, total, events, header = {}, {}, 0, [], []
fn, addr, after_call = "", 0, False
for line in open(sys.argv[1]):
    if line.startswith("events:"):
        header = line.split()[1:]
        continue
    m = re.match(r"(?:summary|totals):((?: \d+)+)", line)
    if m:
        values = [int(v) for v in m.group(1).split()]
        if values[0] > total:
            total, events = values[0], values
        continue
    m = re.match(r"(c?)fn=\((\d+)\)(?: (.*))?", line)
    if m:
        if m.group(3):
            names[m.group(2)] = m.group(3).strip()
        if not m.group(1):
            fn = names.get(m.group(2), "")
        continue
    if line.startswith("calls="):
        after_call = True
        continue
    m = re.match(r"(0x[0-9a-f]+|[+-]\d+|\*)\s+\S+\s+(\d+)", line)
    if not m:
        continue
    pos = m.group(1)
    if pos.startswith("0x"):
        addr = int(pos, 16)
    elif pos != "*":
        addr += int(pos)
    if after_call:  # the call site's inclusive cost, in the caller
        after_call = False
        continue
    if fn in fns and (fn not in entry or addr < entry[fn][0]):
        entry[fn] = (addr, int(m.group(2)))
records = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
ops = sum(r["metrics"]["ops"] for r in records if not r.get("aggregate") and not r.get("warmup"))
extra = ""
if "Bcm" in header:  # conditional branches mispredicted
    extra = f" mispredicted_branches_per_op={events[header.index('Bcm')] / ops:.3f}"
own = [r["metrics"].get("pmemids_persists_per_op") for r in records
       if not r.get("aggregate") and not r.get("warmup")]
if len(own) == 1 and own[0] is not None:  # what pmemids itself asked libpmemobj to persist
    extra += f" pmemids_persists_per_op={own[0]:.3f}"
print(f"ops={ops} instr_per_op={total / ops:.2f}{extra} " +
      " ".join(f"{f}_per_op={entry.get(f, (0, 0))[1] / ops:.3f}" for f in fns))
PY
if [ "$top" -gt 0 ]; then
  # Below the threads' entry points, the worker's own frames and the drive loop.
  callgrind_annotate --inclusive=yes "$tmp/cg.out" | grep -E '^ *[0-9,]+ ' |
    grep -v -E 'PROGRAM TOTALS|clone|start_thread|libstdc\+\+|run_crew|timed_drive|pmemids::execute<' |
    head -n "$top"
fi
