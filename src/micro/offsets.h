// Where each operation of a memory bench goes, decided before timing.
//
// A thread's region holds `blocks` blocks of the operation size. block_order()
// lists the blocks a thread visits, one per operation:
//   seq   0, 1, ..., blocks-1, 0, 1, ... (sequential, wrapping)
//   rand  a random permutation of [0, blocks), then another, ...: every access
//         random, each block once per pass (no repeats within a pass), all drawn
//         from `seed` before timing; nothing is drawn in the timed loop
// Regions are per thread and disjoint by default (thread t starts at
// t * region bytes); `shared` puts every thread on the same region with the
// same order (pmembench's behaviour: every thread walks the same chunks).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace pmemids::micro {

enum class Pattern : uint8_t { kSeq, kRand };

Pattern parse_pattern(std::string_view name);  // "seq" or "rand"

std::vector<uint32_t> block_order(Pattern p, uint64_t blocks, uint64_t ops, uint64_t seed);

inline uint64_t thread_region_offset(bool shared, int t, uint64_t region_bytes) {
  return shared ? 0 : static_cast<uint64_t>(t) * region_bytes;
}

// The seed of thread t's order in repetition `rep`: shared regions use one order.
inline uint64_t thread_seed(uint64_t seed, int rep, int t, bool shared) {
  return seed + 1000003ULL * static_cast<uint64_t>(rep) + (shared ? 0 : static_cast<uint64_t>(t));
}

}  // namespace pmemids::micro
