// What a command needs of this machine (memory, pool space), estimated before
// anything is allocated, and the one refusal every command shares when the
// machine cannot give it.
//
// A Footprint is an estimate: `memory` bytes of DRAM (streams, structures built
// in DRAM, buffers, anonymous regions) and `pool_files` bytes of new files in
// the pool directory (pools, mapped regions: allocated in full when created).
// check_footprint refuses (UsageError, exit 2) when the memory exceeds what
// the kernel reports available (MemAvailable, and the cgroup's limit if lower)
// or the files exceed the free space of the pool directory's file system;
// files on a memory file system (tmpfs: emulated PMEM) count against memory
// too. The message names the subject, the estimate and its parts, what is
// available and the inputs that drive the estimate. `run` and `crash`
// estimate per (structure, mode) (registry/footprint.h), `micro` per point
// (micro/bench.h).
#pragma once

#include <cstdint>
#include <string>

namespace pmemids {

struct Footprint {
  std::string subject;      // "hashtable in dram", "micro persist size=64"
  uint64_t memory = 0;      // bytes of DRAM, files in the pool directory excluded
  uint64_t pool_files = 0;  // bytes of new files in the pool directory
  std::string breakdown;    // "streams 1.0 GiB, structure 97.7 GiB"
  std::string inputs;       // "recordcount=100000, fieldlength=1048576"
};

void check_footprint(const Footprint& f, const std::string& pool_dir);

// Sums and products in long double saturated at UINT64_MAX: estimates of
// absurd inputs must not wrap around to something small.
uint64_t saturated(long double bytes);

// "1.5 GiB", "640 MiB", "12 KiB", "512 B".
std::string format_bytes(uint64_t bytes);

}  // namespace pmemids
