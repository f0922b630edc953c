# Mutant of `scripts/mutation.sh` (docs/crash.md, "Mutation suite").
# plants: hashtable remove frees the node with libpmemobj's atomic API
#         (pmemobj_free) before the transaction that unlinks it: in pmem-trans
#         the free is not rolled back when that transaction is, in
#         pmem-persist it is durable before the unlink. Either way a crash
#         before the unlink commits leaves a freed node in its chain.
# kind:   free before unlink
# class:  3
# hits:   hashtable pmem-trans, hashtable pmem-persist
# file:   src/ds/hashtable.h
# crash:  --ds hashtable --mode pmem-trans --points 100000
# crash:  --ds hashtable --mode pmem-persist --points 100000
# tests:  CrashRun/*hashtable*
/^      if (n->key == key) {$/a\
        if constexpr (B::kDurable) {\
          PMEMoid freed = p.oid();\
          pmemobj_free(\&freed);\
        }
/^          b_.store(\*link, n->next);$/{n;d}
/^#include <cstring>$/i\
#include <libpmemobj.h>
