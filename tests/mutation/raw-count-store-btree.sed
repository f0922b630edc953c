# Mutant of `scripts/mutation.sh` (docs/crash.md, "Mutation suite").
# plants: btree's in-node insert stores the node's key count directly
#         (x->n = n + 1) instead of through the backend: in pmem-trans the
#         count is neither logged nor written back by the commit.
# kind:   raw count store (bypassing the backend)
# class:  1
# hits:   btree pmem-trans, btree-embedded pmem-trans
# file:   src/ds/btree.h
# crash:  --ds btree --mode pmem-trans --points 100000
# crash:  --ds btree --mode pmem-trans --model process --points 300
# tests:  CrashRun/*btree*trans*:TransSurvivingLines/*btree*
s/^    b_.store(x->n, n + 1);$/    x->n = n + 1;/
