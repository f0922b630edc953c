#!/usr/bin/env bash
# The main benchmark: installs what is missing, builds the pmemids binary
# (Release, that target only), installs it on PATH (scripts/install.sh:
# /usr/local/bin/pmemids unless PMEMIDS_PREFIX says otherwise), and runs the
# paper's write (90% update / 10% insert) and read (100%) zipfian workloads on
# every structure in every persistence mode.
#
# Scale (PMEMIDS_BENCH_SCALE): `paper` (default: the paper's 1M records and 1M
# operations, about 3 minutes on 2 cores) or `quick` (200k records, 1M
# operations, about 1 minute).
# Every cell's timed phase lasts at least PMEMIDS_BENCH_MIN_TIME seconds
# (default 0.25, above the 0.2 s under which a record warns "short timed
# phase"): `pmemids run --min-time` reruns a shorter one with operationcount
# grown, and its records say so (metrics.operationcount). An empty
# PMEMIDS_BENCH_MIN_TIME runs the workloads' operation counts as they are.
# Pools go to $PMEMIDS_POOL_DIR, else /dev/shm/pmemids (emulated PMEM).
# Extra arguments are passed to every `pmemids run` (e.g. --repeat 3).
set -euo pipefail
cd "$(dirname "$0")/.."
scale=${PMEMIDS_BENCH_SCALE:-paper}
case "$scale" in
  quick) sizes=(-p recordcount=200000 -p operationcount=1000000) ;;
  paper) sizes=() ;;
  *) echo "bench.sh: PMEMIDS_BENCH_SCALE must be quick or paper, not '$scale'" >&2; exit 2 ;;
esac
min_time=${PMEMIDS_BENCH_MIN_TIME-0.25}
timing=()
if [ -n "$min_time" ]; then timing=(--min-time "$min_time"); fi
scripts/setup.sh
scripts/install.sh
out="results/bench-$scale-$(date -u +%Y%m%dT%H%M%SZ).jsonl"
for w in pmemids-write pmemids-read; do
  build/pmemids run --ds all --mode all --workload "workloads/$w" "${sizes[@]}" "${timing[@]}" \
    --out "$out" "$@"
done
echo "results: $out" >&2
