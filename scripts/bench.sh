#!/usr/bin/env bash
# The main benchmark: installs what is missing, builds Release, and runs the
# paper's write (90% update / 10% insert) and read (100%) workloads, 1M records
# and 1M zipfian operations, on every structure in every persistence mode.
# Pools go to $PMEMIDS_POOL_DIR, else /dev/shm/pmemids (emulated PMEM).
# Extra arguments are passed to every `pmemids run` (e.g. --repeat 3).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release
out="results/bench-$(date -u +%Y%m%dT%H%M%SZ).jsonl"
for w in pmemids-write pmemids-read; do
  build/pmemids run --ds all --mode all --workload "workloads/$w" --out "$out" "$@"
done
echo "results: $out" >&2
