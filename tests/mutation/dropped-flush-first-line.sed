# Mutant of `scripts/mutation.sh` (docs/crash.md, "Mutation suite").
# plants: pmem-persist's write path (copy_durable, the benchmarked code)
#         writes back only the first cache line of a change: a dropped flush
#         in the benchmarked path, visible only to a model that learns of the
#         lines the flush layer writes back, not of the range the caller meant.
# kind:   dropped flush in the benchmarked path
# class:  2 (the model observes the write-backs the flush layer issues)
# hits:   every pmem-persist structure that writes more than a line: values
#         (updates) in linkedlist, hashtable, skiplist
# file:   src/backend/obj.h
# crash:  --ds linkedlist --mode pmem-persist --points 100000
# crash:  --ds hashtable --mode pmem-persist --points 100000
# tests:  CrashRun/*linkedlist*persist*:CrashRun/*hashtable*persist*
s/^    if (keep \&\& !nt) fl_.flush(dst, n, cold);$/    if (keep \&\& !nt) fl_.flush(dst, std::min<size_t>(n, 64 - reinterpret_cast<uintptr_t>(dst) % 64), cold);/
