# Mutant of `scripts/mutation.sh` (docs/crash.md, "Mutation suite").
# plants: skiplist insert seals only the first cache line of its new node
#         (key, height, the start of the value): the rest of the value and the
#         next pointers are published before they are durable.
# kind:   wrong seal length
# class:  4
# hits:   skiplist pmem-persist
# file:   src/ds/skiplist.h
# crash:  --ds skiplist --mode pmem-persist --points 100000
# tests:  CrashRun/*skiplist*persist*
s/^      b_.seal_value(n, bytes);$/      b_.seal_value(n, 64);/
