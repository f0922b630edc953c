# Mutant of `scripts/mutation.sh` (docs/crash.md, "Mutation suite").
# plants: linkedlist remove frees the element before it unlinks it. In
#         pmem-persist the free is atomic and immediate: a crash before the
#         unlink is durable leaves a freed element linked, which the next
#         allocation reuses. (In pmem-trans both are in one transaction and
#         the order is harmless.)
# kind:   free before unlink
# class:  3
# hits:   linkedlist pmem-persist
# file:   src/ds/linkedlist.h
# crash:  --ds linkedlist --mode pmem-persist --points 100000
# tests:  CrashRun/*linkedlist*persist*
/^      b_.store(link_to(loc.prev), next);$/d
/^      b_.free(loc.elem);$/a\
      b_.store(link_to(loc.prev), next);
