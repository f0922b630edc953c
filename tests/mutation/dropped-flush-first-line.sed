# Mutant of `scripts/mutation.sh` (docs/crash.md, "Mutation suite").
# plants: pmem-persist's write path (copy_durable, the benchmarked code)
#         writes back only the first cache line of a change while reporting
#         the whole range as written back: a dropped flush in the benchmarked
#         path that a hook told of the call, not of the lines, cannot see.
# kind:   dropped flush in the benchmarked path
# class:  2 (needs a model that observes the write-backs actually issued)
# hits:   every pmem-persist structure that writes more than a line: values
#         (updates) in linkedlist, hashtable, skiplist
# file:   src/backend/obj.h
# crash:  --ds linkedlist --mode pmem-persist --points 100000
# crash:  --ds hashtable --mode pmem-persist --points 100000
# tests:  CrashRun/*linkedlist*persist*:CrashRun/*hashtable*persist*
s/^    if (keep && (nt || fl_.flush(dst, n, cold))) hook_.flushed(dst, n);$/    if (keep \&\& (nt || fl_.flush(dst, std::min<size_t>(n, 64 - reinterpret_cast<uintptr_t>(dst) % 64), cold))) hook_.flushed(dst, n);/
