#!/usr/bin/env bash
# Re-runs every command that docs/performance.md and docs/crash.md name for a
# figure or table ("Command: `...`"), in the order the docs give them, and
# keeps each command's output in $PMEMIDS_FIGURES_DIR (default
# results/docs-figures/<time>/). It does not edit the docs: compare the
# outputs with them. Not part of scripts/test.sh (hours on 2 cores);
# tests/cli/test_trust.py checks that every command the docs name is here.
#
# Usage: scripts/docs-figures.sh [section...]   (default: all sections)
#   sections: bench harness callgrind threads latency replay libpmemobj transactions peers ycsb crash domains seed002 stacks
# peers needs the peers' sources (scripts/peers/README.md): PMEMIDS_PEER_STOREDSBENCH (the
# reference pmemids_bench's tree) and PMEMIDS_PEER_MAPS (PMDK 1.12.1's tree_map examples);
# without them it is skipped with a message. With them it takes about 40 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh release pmemids >/dev/null
out=${PMEMIDS_FIGURES_DIR:-results/docs-figures/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out" "$out/pools"
pmemids() { build/pmemids "$@"; }
n=0
# Runs one command, its stdout and stderr to $out/<n>.txt.
fig() {
  n=$((n + 1))
  echo "[$n] $*" >&2
  { echo "\$ $*"; "$@"; } >"$out/$n.txt" 2>&1 || echo "[$n] exit $?" >&2
}
SECTIONS=("$@")
[ ${#SECTIONS[@]} -gt 0 ] || SECTIONS=(bench harness callgrind threads latency replay libpmemobj transactions peers ycsb crash domains seed002 stacks)
has() { [[ " ${SECTIONS[*]} " == *" $1 "* ]]; }

W=workloads
if has bench; then  # performance.md: single thread, cost per op, B-tree figure 5
  fig scripts/bench.sh --repeat 3
fi

if has harness; then  # performance.md: harness overhead
  for _ in 1 2 3; do
    fig pmemids run --ds blackhole --mode dram -p recordcount=1000 -p operationcount=20000000 -p readproportion=0.5 -p updateproportion=0.5 --latency-sample 0 --out "$out/harness.jsonl"
  done
fi

if has callgrind; then  # performance.md: instructions per operation, old and new timed loop
  fig scripts/callgrind-ops.sh --ds arraylist --mode dram -P workloads/pmemids-read -p recordcount=100000 -p operationcount=1000000 --latency-sample 0
  fig scripts/callgrind-ops.sh --ds blackhole --mode dram -p recordcount=1000 -p operationcount=1000000 -p readproportion=0.5 -p updateproportion=0.5 --latency-sample 0
  fig scripts/callgrind-ops.sh --ds hashtable --mode dram -P workloads/pmemids-write -p recordcount=200000 -p operationcount=500000
  for m in pmem-persist pmem-trans; do
    fig scripts/callgrind-ops.sh --top 8 --ds hashtable --mode $m -P $W/pmemids-write -p recordcount=100000 -p operationcount=200000
  done
  for v in 0 0.01; do
    fig scripts/callgrind-ops.sh --ds blackhole --mode dram -p recordcount=1000 -p operationcount=1000000 -p readproportion=0.5 -p updateproportion=0.5 --latency-sample $v
  done
  for ds in btree bplustree; do
    fig scripts/callgrind-ops.sh --branch-sim --ds $ds --mode dram -P workloads/pmemids-read -p recordcount=300000 -p operationcount=300000
  done
fi

if has threads; then  # performance.md: thread modes
  for w in pmemids-read pmemids-write; do
    fig pmemids run --ds hashtable --mode dram -P workloads/$w -p recordcount=1000000 --pin compact --repeat 6 --out "$out/parallel.jsonl"
    fig pmemids run --ds hashtable --mode dram -P workloads/$w -p recordcount=1000000 --pin compact --repeat 6 --thread-mode parallel --threads 2 --out "$out/parallel.jsonl"
  done
  fig pmemids run --ds hashtable --mode dram -P workloads/pmemids-read -p recordcount=200000 -p operationcount=2000000 --thread-mode parallel --threads 4 --repeat 3 --out "$out/parallel4.jsonl"
  for t in 1 2; do
    fig pmemids run --ds all --mode all -P workloads/pmemids-write -p recordcount=200000 -p operationcount=400000 --repeat 3 --thread-mode concurrent --threads $t --out "$out/concurrent.jsonl"
  done
  fig pmemids run --ds hashtable --mode dram -p recordcount=5000 -p operationcount=40000 -p readmissrate=0.1 -p readproportion=0.3 -p updateproportion=0.2 -p insertproportion=0.2 -p readmodifywriteproportion=0.1 -p deleteproportion=0.2 -p requestdistribution=zipfian --out "$out/slices.jsonl"
  fig pmemids run --ds hashtable --mode dram -p recordcount=5000 -p operationcount=40000 -p readmissrate=0.1 -p readproportion=0.3 -p updateproportion=0.2 -p insertproportion=0.2 -p readmodifywriteproportion=0.1 -p deleteproportion=0.2 -p requestdistribution=zipfian --thread-mode concurrent --threads 2 --out "$out/slices.jsonl"
fi

if has latency; then  # performance.md: latency sampling cost, timer overhead
  for v in 0 0.01; do
    fig pmemids run --ds blackhole,hashtable,rbtree --mode dram -P workloads/pmemids-read -p recordcount=1000000 -p operationcount=5000000 --repeat 9 --latency-sample $v --out "$out/sampling.jsonl"
  done
fi

if has replay; then  # performance.md: what --duration's replay costs, and its found fractions
  for ds in blackhole arraylist; do
    fig scripts/callgrind-ops.sh --ds $ds --mode dram -P workloads/pmemids-read -p recordcount=100000 -p operationcount=200000 --latency-sample 0 --duration 20
    fig scripts/callgrind-ops.sh --ds $ds --mode dram -P workloads/pmemids-read -p recordcount=100000 -p operationcount=200000 --latency-sample 0
  done
  fig pmemids run --ds hashtable --mode pmem-persist -P workloads/pmemids-write -p recordcount=20000 -p operationcount=20000 --duration 1 --out "$out/replay.jsonl"
  fig pmemids run --ds hashtable --mode pmem-persist -P workloads/pmemids-write -p recordcount=20000 -p operationcount=20000 --out "$out/replay.jsonl"
  for d in zipfian-ycsbc zipfian uniform; do
    for dur in "" "--duration 0.5"; do
      # shellcheck disable=SC2086  # $dur is empty or two words
      fig pmemids run --ds bplustree --mode dram -p recordcount=5000 -p operationcount=20000 -p readmissrate=0.1 -p readproportion=0.3 -p updateproportion=0.2 -p insertproportion=0.2 -p readmodifywriteproportion=0.1 -p deleteproportion=0.2 -p requestdistribution=$d $dur --out "$out/replay-deletes.jsonl"
    done
  done
fi

if has libpmemobj; then  # performance.md: libpmemobj's own flushes
  for ds in arraylist linkedlist hashtable skiplist btree bplustree rbtree; do
    for m in pmem-persist pmem-trans; do
      fig scripts/callgrind-ops.sh --ds $ds --mode $m -P workloads/pmemids-write -p recordcount=20000 -p operationcount=20000 --latency-sample 0
    done
  done
fi

if has transactions; then  # performance.md: transaction shapes, where a transaction's fences go
  fig scripts/tx-shapes.sh
  for r in 1 2 4; do
    fig pmemids micro txlog --size 128 --ranges-per-tx $r
  done
  for keys in "" "--node-keys 7"; do  # performance.md: against PMDK's btree_map (peer run apart)
    # shellcheck disable=SC2086
    fig pmemids run --ds btree --mode pmem-trans -p recordcount=200000 -p operationcount=200000 -p insertproportion=1 -p readproportion=0 -p updateproportion=0 -p requestdistribution=uniform -p fieldlength=128 --latency-sample 0 $keys
  done
  fig pmemids run --ds rbtree --mode pmem-trans -p recordcount=200000 -p operationcount=200000 -p readproportion=1 -p insertproportion=0 -p updateproportion=0 -p requestdistribution=uniform -p fieldlength=128 --latency-sample 0
  for ds in arraylist linkedlist hashtable skiplist btree btree-embedded bplustree rbtree; do
    for mode in pmem-trans pmem-persist dram; do
      for w in pmemids-write pmemids-read; do
        fig scripts/callgrind-ops.sh --ds $ds --mode $mode -P workloads/$w -p recordcount=20000 -p operationcount=20000 --latency-sample 0
      done
    done
    for w in pmemids-write pmemids-read; do  # the grid's fourth mode (the second pass of issue 30)
      fig scripts/callgrind-ops.sh --ds $ds --mode pmem-volatile -P workloads/$w -p recordcount=20000 -p operationcount=20000 --latency-sample 0
    done
  done
  fig scripts/tx-floor.sh --triples 3 --records 20000,200000,1000000
  fig scripts/tx-floor.sh --rounds 10 --records 20000,200000,1000000  # the floor with the update alone
  # performance.md, libpmemobj linked statically: the same run of a build with
  # -DPMEMIDS_STATIC_PMEMOBJ=OFF is the other side of its pairs
  fig pmemids run --ds hashtable --mode pmem-trans -P workloads/pmemids-write -p requestdistribution=uniform -p updateproportion=1 -p insertproportion=0 -p recordcount=200000 -p operationcount=400000 --latency-sample 0
fi

if has peers; then  # performance.md: against the peers, measured interleaved
  # The peers' sources are not in this repository (scripts/peers/README.md): without them
  # the section says so and runs nothing.
  if [ -z "${PMEMIDS_PEER_STOREDSBENCH:-}" ] || [ -z "${PMEMIDS_PEER_MAPS:-}" ]; then
    echo "peers: skipped, the peers are not built here: set PMEMIDS_PEER_STOREDSBENCH (the reference pmemids_bench's tree) and PMEMIDS_PEER_MAPS (PMDK 1.12.1's src/examples/libpmemobj/tree_map) to build and time them" >&2
  else
    peers=$out/peers
    fig scripts/peers/build.sh storedsbench "$PMEMIDS_PEER_STOREDSBENCH" "$peers" O2 O3
    fig scripts/peers/build.sh maps "$PMEMIDS_PEER_MAPS" "$peers"
    for level in O2 O3; do
      fig scripts/peers/vs.py storedsbench --ycsbc "$peers"/$level/ycsbc --mode pmem-trans --workload write --pairs 8 --target 1.3
    done
    for ds in linkedlist rbtree; do  # the second pass of issue 30
      fig scripts/peers/vs.py storedsbench --ycsbc "$peers"/O2/ycsbc --mode pmem-trans --workload write --ds $ds --pairs 8 --target 1.3
    done
    for cell in btree-insert btree7-insert rbtree-lookup; do
      fig scripts/peers/vs.py maps --maps-bench "$peers"/maps_bench --cell $cell --pairs 8
    done
    fig scripts/peers/vs.py maps --maps-bench "$peers"/maps_bench --cell btree7-insert --pairs 16
    for level in O2 O3; do  # the B-trees' write cells (descending once; objects without a header)
      fig scripts/peers/vs.py storedsbench --ycsbc "$peers"/$level/ycsbc --mode pmem-trans --workload write --ds btree,bplustree --pairs 8 --target 1.3
      fig scripts/peers/vs.py storedsbench --ycsbc "$peers"/$level/ycsbc --mode pmem-trans --workload write --ds hashtable,rbtree --pairs 8 --target 1.3
    done
    # objects without a header: the same run of ab7649a's build is the other side of its rounds
    for ds in hashtable rbtree; do  # nodes without a header: the build with bare values only is the other side
      for mode in pmem-trans pmem-persist; do
        fig pmemids run --ds $ds --mode $mode -p recordcount=200000 -p operationcount=200000 -p updateproportion=0 -p requestdistribution=uniform -p insertproportion=1 -p readproportion=0 --latency-sample 0
      done
    done
    fig pmemids run --ds btree --mode pmem-trans -p recordcount=1000000 -p operationcount=1000000 -p updateproportion=0 -p requestdistribution=uniform -p fieldlength=128 -p insertproportion=1 -p readproportion=0 --node-keys 7 --latency-sample 0
    # B-tree inserts descend once: misses per timed insert (callgrind told this machine's caches)
    b7=(--ds btree --mode pmem-trans -p recordcount=1000000 -p operationcount=1000000 -p updateproportion=0 -p requestdistribution=uniform -p fieldlength=128 -p insertproportion=1 -p readproportion=0 --node-keys 7 --latency-sample 0)
    fig valgrind --tool=callgrind --callgrind-out-file="$out/cg-btree7.out" --cache-sim=yes --D1=49152,12,64 --LL=33554432,16,64 --toggle-collect='*timed_drive*' build/pmemids run --ds btree --mode pmem-trans -p recordcount=1000000 -p operationcount=1000000 -p updateproportion=0 -p requestdistribution=uniform -p fieldlength=128 -p insertproportion=1 -p readproportion=0 --node-keys 7 --latency-sample 0 --pool-dir "$out/pools" --out "$out/cg-btree7.jsonl"
    fig env PMEM_IS_PMEM_FORCE=1 valgrind --tool=callgrind --callgrind-out-file="$out/cg-maps.out" --cache-sim=yes --D1=49152,12,64 --LL=33554432,16,64 --toggle-collect='*timed_inserts*' "$peers"/maps_bench btree insert 1000000 1000000 "$out/maps.pool"
    rm -f "$out/maps.pool"
    for _ in 1 2 3; do  # write-backs skipped inside libpmem on both sides, then kept
      fig env PMEM_NO_FLUSH=1 taskset -c 0 build/pmemids run "${b7[@]/1000000/20000}" --pool-dir "$out/pools" --out "$out/noflush.jsonl"
      fig env PMEM_NO_FLUSH=1 PMEM_IS_PMEM_FORCE=1 taskset -c 0 "$peers"/maps_bench btree insert 20000 20000 "$out/maps.pool"
      rm -f "$out/maps.pool"
      fig taskset -c 0 build/pmemids run "${b7[@]/1000000/20000}" --pool-dir "$out/pools" --out "$out/noflush.jsonl"
      fig env PMEM_IS_PMEM_FORCE=1 taskset -c 0 "$peers"/maps_bench btree insert 20000 20000 "$out/maps.pool"
      rm -f "$out/maps.pool"
    done
  fi
fi

if has ycsb; then  # performance.md: YCSB's zipfian against YCSB-C's
  for w in pmemids-read pmemids-write; do
    for d in zipfian-ycsbc zipfian; do
      fig pmemids stream -P $W/$w -p recordcount=1000000 -p operationcount=1000000 -p requestdistribution=$d --summary
    done
  done
fi

if has crash; then  # crash.md
  fig pmemids run --ds linkedlist,rbtree --mode pmem-persist,pmem-trans -p recordcount=20000 --keep-pool --pool-dir "$out/pools" --out "$out/recovery.jsonl"
  fig pmemids run --ds linkedlist,rbtree --mode pmem-persist,pmem-trans -p recordcount=20000 --reopen --pool-dir "$out/pools" --out "$out/recovery.jsonl"
  rm -rf "$out/pools"
  fig pmemids crash --all --mode pmem-persist --points all --jobs 2 --out "$out/crash-persist-all.jsonl"
  fig pmemids crash --ds btree,btree-embedded,bplustree,rbtree --mode pmem-persist --points all --jobs 2 --out "$out/crash-persist-all.jsonl"
  fig pmemids crash --all --mode pmem-trans --points all --jobs 2 --out "$out/crash-trans-all.jsonl"
  fig pmemids crash --ds btree --mode pmem-persist --points 100000 --out "$out/crash-rate.jsonl"
  fig pmemids crash --ds btree --mode pmem-trans --points 100000 --out "$out/crash-rate.jsonl"
  fig pmemids crash --all --mode pmem-trans --points all --survive random --grain 8 --jobs 2 --out "$out/crash-grain8.jsonl"
  fig pmemids crash --all --mode pmem-persist --points all --survive random --grain 8 --jobs 2 --out "$out/crash-grain8.jsonl"
  fig pmemids crash --all --unsafe --points 200 --model process --out "$out/crash-process.jsonl"
fi

if has domains; then  # performance.md: the flush layer, fences, domains, instructions, what-if latency
  for ds in hashtable bplustree; do
    for m in dram pmem-persist pmem-trans; do
      fig scripts/callgrind-ops.sh --ds $ds --mode $m -P workloads/pmemids-write -p recordcount=100000 -p operationcount=200000 --latency-sample 0
    done
  done
  fig pmemids run --ds all --mode pmem-persist -P workloads/pmemids-write -p recordcount=100000 -p operationcount=200000 --out "$out/fences.jsonl"
  for ds in arraylist linkedlist hashtable skiplist btree bplustree rbtree; do
    for domain in adr eadr; do
      fig pmemids run --ds $ds --mode pmem-persist,pmem-trans -P workloads/pmemids-write -p recordcount=100000 -p operationcount=200000 --latency-sample 0 --repeat 3 --domain $domain --out "$out/domains.jsonl"
    done
  done
  for ds in hashtable bplustree; do
    for flush in clwb clflushopt clflush nt; do
      fig pmemids run --ds $ds --mode pmem-persist -P workloads/pmemids-write -p recordcount=100000 -p operationcount=200000 --latency-sample 0 --repeat 3 --flush $flush --out "$out/flush.jsonl"
    done
    for profile in optane cxl; do
      fig pmemids run --ds $ds --mode pmem-persist,pmem-trans -P workloads/pmemids-write -p recordcount=100000 -p operationcount=200000 --latency-sample 0 --repeat 3 --pmem-profile $profile --out "$out/whatif.jsonl"
    done
    fig pmemids run --ds $ds --mode pmem-persist,pmem-trans -P workloads/pmemids-write -p recordcount=100000 -p operationcount=200000 --latency-sample 0 --repeat 3 --out "$out/whatif.jsonl"
  done
  for ns in 0 100 200 300; do  # the injected wait overlaps the write-back's own cost (two runs each)
    fig pmemids run --ds hashtable --mode pmem-persist -P workloads/pmemids-write -p recordcount=5000 -p operationcount=150000 --pmem-write-ns $ns --latency-sample 0
  done
fi

if has seed002; then  # performance.md: seed 002's lock-free ring buffer and lists
  fig pmemids sweep sweeps/seed002-fig16-ring.toml --out "$out/seed002-fig16-ring.jsonl"
  fig pmemids sweep sweeps/seed002-fig13-list-latency.toml --out "$out/seed002-fig13-list-latency.jsonl"
  fig pmemids sweep sweeps/seed002-fig11-lists.toml --out "$out/seed002-fig11-lists.jsonl"
  fig pmemids reproduce 002-ring 002-eADR 002-lists 002-logging 002-Fig15 --scale quick --out "$out/reproduce"
fi
if has stacks; then  # performance.md: combining stacks (seed 004)
  for t in 1 2 4 8 16; do
    for ds in stack-dfc stack-dfc-flat stack-pbcomb; do
      fig pmemids run --ds $ds --mode pmem-persist --thread-mode native --threads $t -P $W/stack-pushpop -p operationcount=200000 --repeat 3 --out "$out/stacks.jsonl"
    done
    fig pmemids run --ds stack-lock --mode pmem-persist --thread-mode concurrent --threads $t -P $W/stack-pushpop -p operationcount=200000 --repeat 3 --out "$out/stacks.jsonl"
    fig pmemids run --ds stack-fc-volatile --mode dram --thread-mode native --threads $t -P $W/stack-pushpop -p operationcount=200000 --repeat 3 --out "$out/stacks.jsonl"
  done
  for ds in stack-dfc stack-dfc-flat; do
    for t in 1 2 4; do
      for p in on off; do
        fig pmemids run --ds $ds --mode pmem-persist --thread-mode native --threads $t -P $W/stack-pushpop -p operationcount=50000 --repeat 3 --persist-requests $p --out "$out/stack-requests.jsonl"
      done
    done
  done
  for ds in stack-dfc-flat stack-pbcomb; do
    for t in 2 4; do
      for wait in spin yield adaptive; do
        fig pmemids run --ds $ds --mode pmem-persist --thread-mode native --threads $t -P $W/stack-pushpop -p operationcount=20000 --repeat 3 --wait $wait --out "$out/stack-waiting.jsonl"
        fig pmemids run --ds $ds --mode pmem-persist --thread-mode native --threads $t -P $W/stack-pushpop -p operationcount=20000 --repeat 3 --wait $wait --combiner-yield --out "$out/stack-waiting.jsonl"
      done
    done
  done
fi
echo "outputs in $out" >&2
