// FlatMap (util/flat_map.h): the same answers as std::unordered_map over
// random inserts, lookups and erases, including the key that marks an empty
// slot, keys that share a home slot (long probe runs, erased from their
// middle) and growth from the smallest array.
#include "util/flat_map.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

namespace pmemids {
namespace {

struct Val {
  uint64_t a, b;
  bool operator==(const Val&) const = default;
};

// Applies n random operations on keys drawn from `keys` to both maps and
// compares every answer, then every key.
void against_std(const std::vector<uint64_t>& keys, int n, uint64_t seed) {
  FlatMap<Val> m;
  std::unordered_map<uint64_t, Val> o;
  std::mt19937_64 rng(seed);
  for (int i = 0; i < n; ++i) {
    const uint64_t k = keys[rng() % keys.size()];
    const Val v{rng(), static_cast<uint64_t>(i)};
    switch (rng() % 3) {
      case 0:
        ASSERT_EQ(m.emplace(k, v), o.emplace(k, v).second) << "emplace " << k;
        break;
      case 1:
        ASSERT_EQ(m.erase(k), o.erase(k) == 1) << "erase " << k;
        break;
      default: {
        const Val* f = m.find(k);
        const auto it = o.find(k);
        ASSERT_EQ(f != nullptr, it != o.end()) << "find " << k;
        if (f != nullptr) {
          ASSERT_EQ(*f, it->second) << "find " << k;
        }
      }
    }
    ASSERT_EQ(m.size(), o.size());
  }
  for (const uint64_t k : keys) {
    const Val* f = m.find(k);
    ASSERT_EQ(f != nullptr, o.count(k) == 1) << "key " << k;
    if (f != nullptr) {
      EXPECT_EQ(*f, o.at(k));
    }
  }
}

TEST(FlatMap, AgreesWithUnorderedMapOnRandomKeys) {
  std::mt19937_64 rng(1);
  std::vector<uint64_t> keys(3000);
  for (uint64_t& k : keys) k = rng();
  keys[7] = ~uint64_t{0};  // the empty-slot marker is a key like any other
  keys[8] = 0;
  against_std(keys, 40000, 2);
}

// Keys that differ only above bit 40 fold and multiply to few home slots:
// long runs, wrapping around the array's end, erased from their middle.
TEST(FlatMap, AgreesWithUnorderedMapOnCollidingKeys) {
  std::vector<uint64_t> keys;
  for (uint64_t i = 0; i < 200; ++i) keys.push_back(i << 40 | (i << 8));
  for (uint64_t i = 0; i < 200; ++i) keys.push_back(i);  // sequential keys too
  against_std(keys, 40000, 3);
}

TEST(FlatMap, EmplaceKeepsThePresentValueAndReserveKeepsKeys) {
  FlatMap<Val> m;
  EXPECT_TRUE(m.emplace(5, Val{1, 2}));
  EXPECT_FALSE(m.emplace(5, Val{3, 4}));
  EXPECT_EQ(*m.find(5), (Val{1, 2}));
  for (uint64_t k = 100; k < 1100; ++k) ASSERT_TRUE(m.emplace(k, Val{k, k}));
  m.reserve(100000);
  for (uint64_t k = 100; k < 1100; ++k) ASSERT_EQ(*m.find(k), (Val{k, k}));
  EXPECT_EQ(m.size(), 1001u);
  m.clear();
  EXPECT_EQ(m.size(), 0u);
  EXPECT_EQ(m.find(5), nullptr);
  EXPECT_TRUE(m.emplace(5, Val{7, 8}));
  EXPECT_EQ(*m.find(5), (Val{7, 8}));
}

}  // namespace
}  // namespace pmemids
