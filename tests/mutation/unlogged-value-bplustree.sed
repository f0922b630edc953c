# Mutant of `scripts/mutation.sh` (docs/crash.md, "Mutation suite").
# plants: bplustree update copies the new value with a raw memcpy inside its
#         transaction, without logging it (no tx_add_range) and without telling
#         the backend: the commit never writes it back, and an interrupted
#         update is not rolled back.
# kind:   unlogged raw store in a transaction
# class:  1 (invisible to a model that learns of stores from the backend;
#         needs the durable image derived from flushes and fences)
# hits:   bplustree pmem-trans
# file:   src/ds/bplustree.h
# crash:  --ds bplustree --mode pmem-trans --points 100000
# tests:  CrashRun/*bplustree*trans*:TransSurvivingLines/*bplustree*
s/^    b_.tx(\[&\] { b_.write_value(dst, v, vsize_); });$/    b_.tx([\&] { std::memcpy(dst, v, vsize_); });/
