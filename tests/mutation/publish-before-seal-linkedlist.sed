# Mutant of `scripts/mutation.sh` (docs/crash.md, "Mutation suite").
# plants: linkedlist insert links its new element first and seals it after:
#         a crash in between leaves a published element whose contents never
#         reached PMEM.
# kind:   publish before seal
# class:  4
# hits:   linkedlist pmem-persist
# file:   src/ds/linkedlist.h
# crash:  --ds linkedlist --mode pmem-persist --points 100000
# tests:  CrashRun/*linkedlist*persist*
/^      b_.seal_value(e, kHeaderBytes + vsize_);$/d
/^      b_.store(link_to(tail_), fresh);$/a\
      b_.seal_value(e, kHeaderBytes + vsize_);
