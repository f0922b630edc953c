# Mutant of `scripts/mutation.sh` (docs/crash.md, "Mutation suite").
# plants: stack-lock push moves the top to its new node before writing the
#         node back: a crash after the top is durable leaves the top on a
#         node whose id and next link never reached PMEM.
# kind:   publish before seal
# class:  4 (a window between two persists of one operation: found only by
#         the points that fall in it)
# hits:   stack-lock pmem-persist
# file:   src/ds/stack_lock.h
# crash:  --ds stack-lock --mode pmem-persist --points 100000
# tests:  StackCrash/stack_lock_*
/^    nodes_->flush(x);$/d
/^    b_.drain();$/d
/^    b_.store_word(root_->top, x);$/a\
    nodes_->flush(x);\
    b_.drain();
