#!/usr/bin/env bash
# The shape of pmem-trans transactions per structure and operation type, as a
# markdown table (docs/performance.md, "Transaction shapes"): per operation,
# the ranges pmemids logged (tx_add_range_calls_per_op), the bytes
# (tx_bytes_per_op), the changes they cover (tx_writes_per_op), allocations and
# frees inside the transaction, and libpmemobj's fences and written-back lines
# (lib_fences_per_op, lib_flushed_lines_per_op). Counts, not times: the table
# is the same on a loaded machine.
#
# Usage: scripts/tx-shapes.sh [--records N] [--ops N] [structure...]
#   --records N  records loaded before the timed phase (default 20000)
#   --ops N      operations of one type in the timed phase (default 20000;
#                deletes are capped at the records)
#   structures   default: every key-value structure that runs in pmem-trans,
#                as `pmemids list --json` lists them
# Uses build/pmemids, or $PMEMIDS_BIN; pools go to $PMEMIDS_POOL_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PMEMIDS_BIN:-build/pmemids}
records=20000 ops=20000
while [ $# -gt 0 ]; do
  case "$1" in
    --records) records=$2; shift 2 ;;
    --ops) ops=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "tx-shapes.sh: unknown option '$1' (accepted: --records N, --ops N, --help)" >&2; exit 2 ;;
    *) break ;;
  esac
done
ds=("$@")
if [ ${#ds[@]} -eq 0 ]; then
  mapfile -t ds < <("$bin" list --json | python3 -c '
import json, sys
for e in json.load(sys.stdin):
    if e["operation_set"] in ("kv", "ordered-kv") and "pmem-trans" in e["modes"] and not e["harness"]:
        print(e["ds"])')
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for d in "${ds[@]}"; do
  for op in insert update delete; do
    n=$ops
    [ "$op" = delete ] && [ "$n" -gt "$records" ] && n=$records
    "$bin" run --ds "$d" --mode pmem-trans -p recordcount="$records" -p operationcount="$n" \
      -p readproportion=0 -p insertproportion=$([ $op = insert ] && echo 1 || echo 0) \
      -p updateproportion=$([ $op = update ] && echo 1 || echo 0) \
      -p deleteproportion=$([ $op = delete ] && echo 1 || echo 0) \
      -p requestdistribution=uniform -p fieldlength=100 --latency-sample 0 \
      --out "$out/$d-$op.jsonl" >/dev/null 2>"$out/err" || { cat "$out/err" >&2; exit 1; }
  done
done
python3 - "$out" "${ds[@]}" <<'PY'
import json, sys
out, ds = sys.argv[1], sys.argv[2:]
cols = ["tx_add_range_calls_per_op", "tx_bytes_per_op", "tx_writes_per_op", "allocs_per_op",
        "frees_per_op", "lib_fences_per_op", "lib_flushed_lines_per_op"]
print("| structure | operation | ranges | bytes | changes | allocs | frees | lib fences | lib lines |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for d in ds:
    for op in ("insert", "update", "delete"):
        rec = next(json.loads(l) for l in open(f"{out}/{d}-{op}.jsonl")
                   if l.strip() and "aggregate" not in json.loads(l))
        m = rec["metrics"]
        cells = ["n/a" if m.get(c) is None else f"{m[c]:.2f}" for c in cols]
        print(f"| {d} | {op} | " + " | ".join(cells) + " |")
PY
