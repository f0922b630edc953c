# Mutant of `scripts/mutation.sh` (docs/crash.md, "Mutation suite").
# plants: skiplist remove unlinks the node bottom-up (level 0, its commit
#         point, first) instead of top-down: a crash in between leaves a
#         deleted node still linked on upper levels.
# kind:   wrong unlink order
# class:  3
# hits:   skiplist pmem-persist
# file:   src/ds/skiplist.h
# crash:  --ds skiplist --mode pmem-persist --points 100000
# tests:  CrashRun/*skiplist*persist*
s/^      for (uint32_t l = levels; l-- > 0;) {  \/\/ top down: level 0 last$/      for (uint32_t l = 0; l < levels; ++l) {/
