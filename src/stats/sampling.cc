#include "stats/sampling.h"

#include <numeric>
#include <random>

namespace pmemids {

std::vector<uint64_t> sample_positions(uint64_t n, double rate, uint64_t seed) {
  std::vector<uint64_t> out;
  if (rate <= 0 || n == 0) return out;
  if (rate >= 1) {
    out.resize(n);
    std::iota(out.begin(), out.end(), uint64_t{0});
    return out;
  }
  out.reserve(static_cast<size_t>(static_cast<double>(n) * rate * 1.1) + 16);
  std::mt19937_64 rng(seed);
  std::geometric_distribution<uint64_t> gap(rate);
  for (uint64_t i = gap(rng); i < n; i += 1 + gap(rng)) out.push_back(i);
  return out;
}

}  // namespace pmemids
