// The stack operation set's LIFO oracle, shared by the typed tests of the
// stacks (oracle, knobs).
#pragma once

#include "ds/traits.h"
#include "test_support.h"
#include "workload/generators.h"

namespace pmemids::test {

// A run of random pushes and pops: phases of `phase` steps that push with
// probability `push_share`, then 1 - push_share, so a stack of `capacity`
// slots fills and drains.
struct LifoRun {
  uint64_t seed;
  int steps;
  int phase;
  double push_share;
  uint64_t capacity;
};

// The run through worker 0, checked against a vector: a push succeeds exactly
// while fewer than `capacity` items are held, a pop returns the last pushed id
// or fails on an empty stack, and every 100 steps and at the end the
// structure's check() counts the vector's items and for_each() lists them top
// first.
template <class DS>
void lifo_against_oracle(DS& ds, const LifoRun& run) {
  auto&& h = worker_target(ds, 0);
  std::vector<uint64_t> oracle;
  Rng rng(run.seed);
  uint64_t next = 1;
  const auto matches = [&] {
    ASSERT_EQ(ds.check(), oracle.size());
    std::vector<uint64_t> listed;
    ds.for_each([&](uint64_t id) { listed.push_back(id); });
    ASSERT_EQ(listed, std::vector<uint64_t>(oracle.rbegin(), oracle.rend()));
  };
  for (int i = 0; i < run.steps; ++i) {
    const bool pushing = (i / run.phase) % 2 == 0;
    if (rng.uniform01() < (pushing ? run.push_share : 1 - run.push_share)) {
      const bool ok = h.push(next);
      ASSERT_EQ(ok, oracle.size() < run.capacity) << "push " << i;
      if (ok) oracle.push_back(next++);
    } else {
      uint64_t id = 0;
      ASSERT_EQ(h.pop(id), !oracle.empty()) << "pop " << i;
      if (!oracle.empty()) {
        ASSERT_EQ(id, oracle.back()) << "pop " << i;
        oracle.pop_back();
      }
    }
    if (i % 100 == 0) {
      ASSERT_NO_FATAL_FAILURE(matches());
    }
  }
  ASSERT_NO_FATAL_FAILURE(matches());
}

}  // namespace pmemids::test
