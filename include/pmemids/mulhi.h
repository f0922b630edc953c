// High 64 bits of a 64x64-bit product: maps a uniform 64-bit value x onto
// [0, n) as mulhi64(x, n) without a division (Lemire's range reduction).
#pragma once

#include <cstdint>

namespace pmemids {

__extension__ using uint128_t = unsigned __int128;

inline uint64_t mulhi64(uint64_t a, uint64_t b) {
  return static_cast<uint64_t>((static_cast<uint128_t>(a) * b) >> 64);
}

}  // namespace pmemids
