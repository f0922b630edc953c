// Which operations of a timed phase have their latency timed: each of n
// operations independently with probability `rate` (geometric gaps between
// sampled indices), drawn before timing from `seed`, so the timed loop only
// compares its index with the next sampled one.
#pragma once

#include <cstdint>
#include <vector>

namespace pmemids {

// Ascending indices in [0, n); every index when rate >= 1, none when rate <= 0.
std::vector<uint64_t> sample_positions(uint64_t n, double rate, uint64_t seed);

}  // namespace pmemids
