# Mutant of `scripts/mutation.sh` (docs/crash.md, "Mutation suite").
# plants: rbtree recolours with a direct byte store (h->red = red) instead of
#         through the backend: in pmem-trans a node whose colour alone changes
#         has its header neither logged nor written back by the commit (a
#         header the transaction logged for a link change is restored and
#         written back whole, so only the colour-only changes are lost).
# kind:   raw colour store (bypassing the backend)
# class:  1
# hits:   rbtree pmem-trans
# file:   src/ds/rbtree.h
# crash:  --ds rbtree --mode pmem-trans --points 100000
# crash:  --ds rbtree --mode pmem-trans --model process --points 300
# tests:  CrashRun/*rbtree*trans*:TransSurvivingLines/*rbtree*
s/^    if (h->red != red) put_red(h, red);$/    if (h->red != red) h->red = red;/
