#include "micro/offsets.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>

namespace pmemids::micro {

Pattern parse_pattern(std::string_view name) {
  if (name == "seq") return Pattern::kSeq;
  if (name == "rand") return Pattern::kRand;
  throw std::logic_error("micro: unknown pattern");
}

std::vector<uint32_t> block_order(Pattern p, uint64_t blocks, uint64_t ops, uint64_t seed) {
  if (blocks == 0 || blocks > (uint64_t{1} << 32)) {
    throw std::logic_error("micro: block count out of range");
  }
  std::vector<uint32_t> out(ops);
  if (p == Pattern::kSeq) {
    for (uint64_t i = 0; i < ops; ++i) out[i] = static_cast<uint32_t>(i % blocks);
    return out;
  }
  std::vector<uint32_t> pass(blocks);
  std::mt19937_64 rng(seed);
  for (uint64_t at = 0; at < ops; at += blocks) {
    std::iota(pass.begin(), pass.end(), uint32_t{0});
    std::shuffle(pass.begin(), pass.end(), rng);
    std::copy_n(pass.begin(), std::min<uint64_t>(blocks, ops - at),
                out.begin() + static_cast<long>(at));
  }
  return out;
}

}  // namespace pmemids::micro
