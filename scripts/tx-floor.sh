#!/usr/bin/env bash
# A hashtable update in pmem-trans against libpmemobj's floor (issue 30): the
# time of one update over the time of `pmemids micro txlog --size 128
# --ranges-per-tx 1` (a transaction logging one 128-byte range) plus the same
# update in dram. Interleaved triples (txlog, pmem-trans, dram), pinned to one
# CPU; per triple the ratio, then the median. Not part of scripts/test.sh.
#
# Usage: scripts/tx-floor.sh [--triples N] [--cpu C] [--records R[,R...]]
#   --triples N   triples per record count (default 3)
#   --cpu C       the CPU every run is pinned to (default 1)
#   --records R   the table's records, a comma list (default 200000); each
#                 triple runs 400,000 uniform updates of 100-byte values
# Uses build/pmemids, or $PMEMIDS_BIN; pools in $PMEMIDS_POOL_DIR (default
# /dev/shm/pmemids), removed by pmemids after each run.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
die() { echo "tx-floor.sh: $*" >&2; exit 2; }
bin=${PMEMIDS_BIN:-build/pmemids} triples=3 cpu=1 records=200000
while [[ $# -gt 0 ]]; do
  case "$1" in
    --help | -h) usage; exit 0 ;;
    --triples) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--triples needs a positive integer"; triples=$2; shift ;;
    --cpu) [[ ${2:-} =~ ^[0-9]+$ ]] || die "--cpu needs a CPU number"; cpu=$2; shift ;;
    --records) [[ ${2:-} =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "--records needs a comma list of positive integers"; records=$2; shift ;;
    *) die "unknown argument '$1' (accepted: --triples N, --cpu C, --records R[,R...], --help)" ;;
  esac
  shift
done
[[ -x $bin ]] || die "no pmemids binary at '$bin' (build it, or set PMEMIDS_BIN)"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
update=(run --ds hashtable -P workloads/pmemids-write -p requestdistribution=uniform -p updateproportion=1
  -p insertproportion=0 -p operationcount=400000 --latency-sample 0)
pinned() {  # one run on the CPU, its messages shown only if it fails
  taskset -c "$cpu" "$bin" "$@" >/dev/null 2>"$out/stderr" ||
    { echo "tx-floor.sh: failed: $bin $*" >&2; tail -5 "$out/stderr" >&2; exit 1; }
}
IFS=, read -r -a counts <<<"$records"
for _ in $(seq "$triples"); do
  for r in "${counts[@]}"; do
    pinned micro txlog --size 128 --ranges-per-tx 1 --out "$out/txlog-$r.jsonl"
    for m in pmem-trans dram; do
      pinned "${update[@]}" --mode $m -p recordcount="$r" --out "$out/$m-$r.jsonl"
    done
  done
done
python3 - "$out" "${counts[@]}" <<'PY'
import json, statistics, sys
d = sys.argv[1]
def ns(name, key):
    with open(f"{d}/{name}") as f:
        recs = [json.loads(l) for l in f if l.strip()]
    return [key(r["metrics"]) for r in recs if "config" in r and "aggregate" not in r]
for r in sys.argv[2:]:
    t = ns(f"txlog-{r}.jsonl", lambda m: m["ns_per_op"])
    u = ns(f"pmem-trans-{r}.jsonl", lambda m: 1e9 / m["ops_per_sec"])
    dr = ns(f"dram-{r}.jsonl", lambda m: 1e9 / m["ops_per_sec"])
    ratios = [ui / (ti + di) for ui, ti, di in zip(u, t, dr)]
    print(f"records {r}: txlog ns {[round(x) for x in t]} update ns {[round(x) for x in u]} "
          f"dram ns {[round(x) for x in dr]}")
    print(f"records {r}: update / (txlog + dram) per triple {[round(x, 3) for x in ratios]} "
          f"median {statistics.median(ratios):.3f}")
PY
