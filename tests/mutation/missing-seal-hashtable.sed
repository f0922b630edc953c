# Mutant of `scripts/mutation.sh` (docs/crash.md, "Mutation suite").
# plants: hashtable insert publishes its new node without sealing it (the
#         node's key and value are never written back before the link is).
# kind:   missing seal
# class:  4 (a window between allocation and the publishing fence: found only
#         at the points that fall in it)
# hits:   hashtable pmem-persist
# file:   src/ds/hashtable.h
# crash:  --ds hashtable --mode pmem-persist --points 100000
# tests:  CrashRun/*hashtable*persist*
/^      b_.seal_value(n, kHeaderBytes + vsize_);$/d
