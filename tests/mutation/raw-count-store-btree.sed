# Mutant of `scripts/mutation.sh` (docs/crash.md, "Mutation suite").
# plants: btree's in-node insert stores the node's key count directly
#         (x->n = n + 1) instead of through the backend, and leaves it out of
#         the regions it declares (b.will_change): in pmem-trans the count is
#         neither logged nor written back by the commit. (A raw store inside a
#         declared region is logged and written back: not a bug.)
# kind:   raw count store (bypassing the backend)
# class:  1
# hits:   btree pmem-trans, btree-embedded pmem-trans
# file:   src/ds/btree.h
# crash:  --ds btree --mode pmem-trans --points 100000
# crash:  --ds btree --mode pmem-trans --model process --points 300
# tests:  CrashRun/*btree*trans*:TransSurvivingLines/*btree*
/^  void insert_at(/,/^  }$/s/^    b_.will_change({{&x->n, sizeof x->n},$/    b_.will_change({/
s/^    b_.store(x->n, n + 1);$/    x->n = n + 1;/
