#!/usr/bin/env bash
# A hashtable update in pmem-trans against libpmemobj's floor (issue 30): the
# time of one update over the time of `pmemids micro txlog --size 128
# --ranges-per-tx 1` (a transaction logging one 128-byte range) plus the cost
# of the same update in dram. Printed per table size, for four floors:
#
#   txlog   --data kept: the range is logged and left as it was (the issue's);
#           --data written: it is overwritten after logging, as the update
#           does, so the commit writes back dirty lines
#   dram    throughput: 1 / ops_per_sec of the dram update (the issue's);
#           latency: the mean time of one dram update timed alone
#           (`--latency-sample`, less one clock read's cost). Consecutive
#           dram updates overlap their cache misses; an update inside a
#           transaction cannot overlap its lookup's misses with the previous
#           update's thousands of instructions and fences, so a table larger
#           than the caches costs it the lookup's latency, not its throughput
#
# Interleaved rounds (txlog kept, txlog written, pmem-trans, dram, dram timed
# one by one), pinned to one CPU; per round the ratios, then their medians.
# Not part of scripts/test.sh.
#
# Usage: scripts/tx-floor.sh [--rounds N] [--cpu C] [--records R[,R...]]
#   --rounds N    rounds per record count (default 3; --triples N, its
#                 earlier name, is accepted too)
#   --cpu C       the CPU every run is pinned to (default 1)
#   --records R   the table's records, a comma list (default 200000); each
#                 update run does 400,000 uniform updates of 100-byte values
# Uses build/pmemids, or $PMEMIDS_BIN; pools in $PMEMIDS_POOL_DIR (default
# /dev/shm/pmemids), removed by pmemids after each run.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
die() { echo "tx-floor.sh: $*" >&2; exit 2; }
bin=${PMEMIDS_BIN:-build/pmemids} rounds=3 cpu=1 records=200000
while [[ $# -gt 0 ]]; do
  case "$1" in
    --help | -h) usage; exit 0 ;;
    --rounds | --triples) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "$1 needs a positive integer"; rounds=$2; shift ;;
    --cpu) [[ ${2:-} =~ ^[0-9]+$ ]] || die "--cpu needs a CPU number"; cpu=$2; shift ;;
    --records) [[ ${2:-} =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "--records needs a comma list of positive integers"; records=$2; shift ;;
    *) die "unknown argument '$1' (accepted: --rounds N, --cpu C, --records R[,R...], --help)" ;;
  esac
  shift
done
[[ -x $bin ]] || die "no pmemids binary at '$bin' (build it, or set PMEMIDS_BIN)"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
update=(run --ds hashtable -P workloads/pmemids-write -p requestdistribution=uniform -p updateproportion=1
  -p insertproportion=0 -p operationcount=400000)
pinned() {  # one run on the CPU, its messages shown only if it fails
  taskset -c "$cpu" "$bin" "$@" >/dev/null 2>"$out/stderr" ||
    { echo "tx-floor.sh: failed: $bin $*" >&2; tail -5 "$out/stderr" >&2; exit 1; }
}
IFS=, read -r -a counts <<<"$records"
for _ in $(seq "$rounds"); do
  for r in "${counts[@]}"; do
    for d in kept written; do
      pinned micro txlog --size 128 --ranges-per-tx 1 --data $d --out "$out/txlog-$d-$r.jsonl"
    done
    for m in pmem-trans dram; do
      pinned "${update[@]}" --mode $m -p recordcount="$r" --latency-sample 0 --out "$out/$m-$r.jsonl"
    done
    pinned "${update[@]}" --mode dram -p recordcount="$r" --latency-sample 0.05 --out "$out/dram-alone-$r.jsonl"
  done
done
python3 - "$out" "${counts[@]}" <<'PY'
import json, statistics, sys
d = sys.argv[1]
def runs(name):
    with open(f"{d}/{name}") as f:
        recs = [json.loads(l) for l in f if l.strip()]
    return [r for r in recs if "config" in r and "aggregate" not in r]
def ns_of(name):  # mean ns per operation: a micro record's ns_per_op, a run's 1 / ops_per_sec
    return [r["metrics"].get("ns_per_op") or 1e9 / r["metrics"]["ops_per_sec"] for r in runs(name)]
def alone(name):  # the sampled updates' mean, less one clock read
    return [r["metrics"]["latency_update_mean_ns"] - r["context"]["timer_overhead_ns"]
            for r in runs(name)]
def show(xs):
    return [round(x) for x in xs]
for r in sys.argv[2:]:
    u = ns_of(f"pmem-trans-{r}.jsonl")
    dram = {"throughput": ns_of(f"dram-{r}.jsonl"), "latency": alone(f"dram-alone-{r}.jsonl")}
    txlog = {data: ns_of(f"txlog-{data}-{r}.jsonl") for data in ("kept", "written")}
    print(f"records {r}: update ns {show(u)}; dram ns, throughput {show(dram['throughput'])}, "
          f"latency {show(dram['latency'])}; txlog ns, kept {show(txlog['kept'])}, "
          f"written {show(txlog['written'])}")
    for data, t in txlog.items():
        for kind, dr in dram.items():
            ratios = [ui / (ti + di) for ui, ti, di in zip(u, t, dr)]
            print(f"records {r}: update / (txlog {data} + dram {kind}) per round "
                  f"{[round(x, 3) for x in ratios]} median {statistics.median(ratios):.3f}")
PY
