#!/usr/bin/env bash
# Builds the peers pmemids is compared with (scripts/peers/README.md). Never part
# of scripts/test.sh; the peers' sources are not in this repository.
#
# Usage: scripts/peers/build.sh storedsbench SRC OUT [LEVEL...]
#          the reference pmemids_bench (a snapshot of its tree at SRC) -> OUT/<LEVEL>/ycsbc,
#          for each optimisation LEVEL (default: O2 O3), with its Makefile's flags
#          (-std=c++11 -g -Wall, -fgnu-tm for the objects, -pthread for the link) and
#          only -O changed; libvmem (not packaged by Debian 12) is replaced by the
#          header-only stand-in scripts/peers/libvmem.h, and -lvmem dropped.
#        scripts/peers/build.sh maps SRC OUT
#          OUT/maps_bench: scripts/peers/maps_bench.c with PMDK 1.12.1's
#          src/examples/libpmemobj/tree_map/{btree_map,rbtree_map}.{c,h} found in SRC,
#          at gcc -O3 (no other flag).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
[[ $# -ge 3 ]] || { usage >&2; exit 2; }
what=$1 out=$3
[[ -d $2 ]] || { echo "build.sh: the source '$2' is not a directory" >&2; exit 2; }
src=$(cd "$2" && pwd)
shift 3
mkdir -p "$out"
out=$(cd "$out" && pwd)
case "$what" in
  storedsbench)
    [[ -f $src/ycsbc.cc && -d $src/storeds ]] || { echo "build.sh: $src is not a pmemids_bench tree (no ycsbc.cc, storeds/)" >&2; exit 2; }
    levels=("$@")
    [[ ${#levels[@]} -gt 0 ]] || levels=(O2 O3)
    for l in "${levels[@]}"; do
      [[ $l =~ ^O[0-3s]$ ]] || { echo "build.sh: level '$l' is not O0-O3 or Os" >&2; exit 2; }
      d=$out/$l
      rm -rf "$d"
      mkdir -p "$d"
      cp -r "$src"/core "$src"/db "$src"/storeds "$src"/lib "$src"/ycsbc.cc "$d"/
      for f in "$d"/core/*.cc "$d"/db/*.cc "$d"/storeds/*.cc; do
        g++ -std=c++11 -c -g -Wall -fgnu-tm -"$l" -I"$d" -I"$here" "$f" -o "${f%.cc}.o"
      done
      g++ -std=c++11 -g -Wall -pthread -I"$d" -I"$here" -"$l" "$d"/ycsbc.cc "$d"/core/*.o "$d"/db/*.o \
        "$d"/storeds/*.o -lpthread -lpmemobj -lpmem -lmemkind -o "$d"/ycsbc
      echo "built $d/ycsbc (-$l)"
    done
    ;;
  maps)
    [[ -f $src/btree_map.c && -f $src/rbtree_map.c ]] || { echo "build.sh: no btree_map.c and rbtree_map.c in $src" >&2; exit 2; }
    gcc -O3 -o "$out"/maps_bench "$here"/maps_bench.c "$src"/btree_map.c "$src"/rbtree_map.c -I"$src" -lpmemobj
    echo "built $out/maps_bench (-O3)"
    ;;
  *) echo "build.sh: unknown peer '$what' (storedsbench, maps)" >&2; exit 2 ;;
esac
