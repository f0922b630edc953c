# Mutant of `scripts/mutation.sh` (docs/crash.md, "Mutation suite").
# plants: stack-lock pop releases the top node to its node pool before it
#         moves the top past it: a crash in between leaves a free node on the
#         stack, which the next push reuses.
# kind:   free before unlink
# class:  3
# hits:   stack-lock pmem-persist
# file:   src/ds/stack_lock.h
# crash:  --ds stack-lock --mode pmem-persist --points 100000
# tests:  StackCrash/stack_lock.*
/^    b_.store_word(root_->top, nodes_->next(x));$/d
/^    nodes_->release(x);$/a\
    b_.store_word(root_->top, nodes_->next(x));
