// Position search inside a tree node's sorted key array.
//
// Linear: the first index whose key is >= `key`. Measured against a branchless
// binary search at the default node sizes (10-15 keys) on the read workload —
// see docs/performance.md; linear was kept.
#pragma once

#include <cstdint>

namespace pmemids {

inline uint32_t node_lower_bound(const uint64_t* keys, uint32_t n, uint64_t key) {
  uint32_t i = 0;
  while (i < n && keys[i] < key) ++i;
  return i;
}

}  // namespace pmemids
