// The std::map oracle shared by the behaviour suites: random reads, updates,
// inserts, deletes (and scans, for structures that can) applied to a structure
// and to the oracle together, every result asserted, the structure's invariant
// checker run along the way.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ds/common.h"
#include "workload/generators.h"

namespace pmemids::test {

constexpr uint32_t kValueSize = 100;

using Oracle = std::map<uint64_t, std::string>;
using Pairs = std::vector<std::pair<uint64_t, std::string>>;

inline std::string value_for(uint64_t n) {
  std::string v = fmt::format("value-{}-", n);
  v.resize(kValueSize, static_cast<char>('a' + n % 26));
  return v;
}

// Everything for_each lists, failing on a key listed twice.
template <class DS>
Oracle contents(const DS& ds) {
  Oracle out;
  ds.for_each([&](uint64_t k, const char* v) {
    EXPECT_TRUE(out.emplace(k, std::string(v, kValueSize)).second) << "key listed twice";
  });
  return out;
}

template <class DS>
Pairs scan_of(const DS& ds, uint64_t start, uint32_t n) {
  Pairs out;
  const uint32_t got = ds.scan(start, n, [&](uint64_t k, const char* v) {
    out.emplace_back(k, std::string(v, kValueSize));
  });
  EXPECT_EQ(got, out.size());
  return out;
}

inline Pairs oracle_range(const Oracle& o, uint64_t start, uint32_t n) {
  Pairs out;
  for (auto it = o.lower_bound(start); it != o.end() && out.size() < n; ++it) out.emplace_back(*it);
  return out;
}

// Applies `n` random operations on the keys of record ids [0, ids) to ds and
// oracle; scans (1 to 40 elements) are included when the structure can scan.
template <class DS>
void random_ops(DS& ds, Oracle& oracle, uint64_t seed, int n, uint64_t ids, const KeyCodec& codec) {
  Rng rng(seed);
  char buf[kValueSize];
  for (int i = 0; i < n; ++i) {
    const uint64_t key = codec.encode(rng.below(ids));
    const std::string v = value_for(seed * 1000003 + i);
    const bool present = oracle.count(key) != 0;
    switch (rng.below(DS::kOpSet == OpSet::kOrderedKv ? 6 : 5)) {
      case 0:
        ASSERT_EQ(ds.read(key, buf), present) << "read " << i;
        if (present) {
          ASSERT_EQ(std::string(buf, kValueSize), oracle[key]) << "read " << i;
        }
        break;
      case 1:
        ASSERT_EQ(ds.update(key, v.data()), present) << "update " << i;
        if (present) oracle[key] = v;
        break;
      case 2:
      case 3:
        ASSERT_EQ(ds.insert(key, v.data()), !present) << "insert " << i;
        oracle[key] = v;
        break;
      case 4:
        ASSERT_EQ(ds.remove(key), present) << "delete " << i;
        oracle.erase(key);
        break;
      case 5:
        if constexpr (DS::kOpSet == OpSet::kOrderedKv) {
          const auto len = static_cast<uint32_t>(1 + rng.below(40));
          ASSERT_EQ(scan_of(ds, key, len), oracle_range(oracle, key, len)) << "scan " << i;
        }
        break;
    }
    if (i % 1000 == 0) {
      ASSERT_EQ(ds.check(), oracle.size()) << "after op " << i;
    }
  }
  ASSERT_EQ(ds.check(), oracle.size());
  ASSERT_EQ(contents(ds), oracle);
}

}  // namespace pmemids::test
