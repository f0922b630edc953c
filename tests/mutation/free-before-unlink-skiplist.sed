# Mutant of `scripts/mutation.sh` (docs/crash.md, "Mutation suite").
# plants: skiplist remove frees the node before it unlinks it from its
#         levels. In pmem-persist the free is atomic and immediate: a crash
#         before the level-0 unlink is durable leaves a freed node linked,
#         which the next allocation reuses. (In pmem-trans the free takes
#         effect at the commit and the order is harmless.)
# kind:   free before unlink
# class:  3 (freed but still linked)
# hits:   skiplist pmem-persist
# file:   src/ds/skiplist.h
# crash:  --ds skiplist --mode pmem-persist --points 100000
# tests:  CrashRun/*skiplist*persist*
/^      b_.free(victim);$/d
/^      for (uint32_t l = levels; l-- > 0;) {  \/\/ top down: level 0 last$/i\
      b_.free(victim);
