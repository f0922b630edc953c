// Checking a user's pool before a run trusts it (run --reopen).
//
// A corrupt pool must never crash or hang pmemids, and a refused pool must stay
// byte-for-byte as it was. libpmemobj writes into a pool when it opens it (also
// when the open then fails), and its own code can fault or loop on a corrupt
// heap, as can a structure that follows a corrupt pointer. So:
//
//  1. read-only, in this process: the file is a regular file with
//     libpmemobj's signature (check_pool_file);
//  2. in a forked child process, bounded in CPU time (and, far above it, in
//     wall-clock time, for a child that blocks), with libpmemobj's
//     copy-on-write open (ctl copy_on_write.at_open: the pool is mapped
//     private, nothing reaches the file): pmemobj_check (pool header and
//     descriptor checksums, lanes, heap layout), then `walk`, which opens the
//     pool, lists its objects and recovers and checks the structure with every
//     pointer validated (ObjBackendBase::follow);
//  3. only then the caller opens the real pool.
//
// A child that reports a corrupt structure, faults, or outlives its bound
// means RuntimeError "pool '<path>' is corrupt: <what>" (exit 1); a mismatch
// of the pool and the options (layout, fieldlength, ...) found by the child is
// the UsageError it threw. The file is never written in either case. Call it
// before any worker thread exists (fork copies only the calling thread).
#pragma once

#include <functional>
#include <string>

#include "backend/pool.h"

namespace pmemids {

// What a check took: wall-clock seconds, and CPU seconds of the child.
struct PoolCheckTime {
  double wall_s = 0;
  double cpu_s = 0;
};

// `timeout_s` bounds the child's CPU time (rounded up to whole seconds); the
// wait ends after 10 * timeout_s + 10 s in any case.
PoolCheckTime check_pool_in_child(const PoolSpec& spec, double timeout_s,
                                  const std::function<void()>& walk);

// The default CPU-time bound of a pool's check: 60 s, plus 1 s per 8 MiB of
// pool, far above what an intact pool needs (docs/hostile.md measures it).
double default_check_timeout(const PoolSpec& spec);

}  // namespace pmemids
