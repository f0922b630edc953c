// The cache hierarchy `--counters sim` asks callgrind to simulate: this
// machine's level-1 instruction and data caches and its last-level cache, read
// from sysfs (/sys/devices/system/cpu/cpu0/cache/index*), made acceptable to
// valgrind (its simulator needs a power-of-two number of sets: where the
// machine's cache has another count, the sets are rounded down to a power of
// two and the associativity raised to keep the size, or the size rounded down
// when no whole associativity fits; each change is noted).
//
// callgrind simulates two levels (I1/D1 and LL); this machine's L2 is not
// modelled, so every L1 miss is an LL access. valgrind's own detection is not
// used: on some virtual machines it reads nonsense from cpuid (a 256 MiB
// direct-mapped LL on the development VM).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pmemids {

struct CacheLevel {
  uint64_t size = 0;  // bytes
  uint32_t assoc = 0;
  uint32_t line = 0;  // bytes

  // valgrind's option value: "size,assoc,line".
  std::string option() const;
  // "32 KiB, 8-way, 64 B lines"
  std::string text() const;
};

struct SimCaches {
  CacheLevel i1, d1, ll;  // what callgrind is told to simulate
  CacheLevel machine_i1, machine_d1, machine_ll;
  std::string machine_levels;      // e.g. "L1i 32 KiB, L1d 32 KiB, L2 1 MiB, L3 32 MiB"
  std::vector<std::string> notes;  // adjustments made for valgrind
};

// Reads `cache_dir` (…/cpu0/cache); nullopt when it lists no L1 data, L1
// instruction or unified cache (the caller then refuses --counters sim).
std::optional<SimCaches> sim_caches(const std::string& cache_dir);

// Nearest geometry valgrind accepts; `note` says what changed (empty: nothing).
CacheLevel valgrind_geometry(const CacheLevel& c, std::string& note);

}  // namespace pmemids
