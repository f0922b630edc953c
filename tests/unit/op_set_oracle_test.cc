// Sequential oracles of the queue, set and stack operation sets, written once
// per set and instantiated for every (structure, mode) of it: random
// operations through worker 0's handle, each response compared with a
// standard container, the structure's invariant checker and contents checked
// along the way. Queues: exact FIFO (ids and payloads) with full and empty
// answers at the ring's capacity; sets: std::set; stacks: LIFO.
#include <deque>
#include <set>

#include "catalog_pairs.h"
#include "durable_fixtures.h"
#include "oracle_driver.h"
#include "stack_oracle.h"

namespace pmemids::test {
namespace {

template <class P>
class OpSetOracle : public ::testing::Test {
 protected:
  ScratchDir dir_;
  DsOptions options(uint32_t threads = 1) const {
    return DsOptions{.capacity = 4096,
                     .value_size = 24,
                     .threads = threads,
                     .keyrange = 200,
                     .queueslots = 16,
                     .slotsize = 64};
  }
  // Constructs the structure in `b`, runs body(ds) and destroys it. dram and
  // pmem-volatile keep nothing: destroying a structure must free every object
  // it allocated (VolatileLifetimeTest checks the kv structures, oracle_test.cc).
  template <class DS, class B, class Body>
  void run_structure(B& b, const DsOptions& o, Body&& body) {
    const CostCounters before = tl_costs;
    {
      DS ds(b, o);
      body(ds);
    }
    if constexpr (!B::kDurable) {
      CostCounters d = tl_costs;
      d -= before;
      EXPECT_GT(d.allocs, 0u);
      EXPECT_EQ(d.allocs, d.frees) << "objects left allocated when the structure was destroyed";
    }
  }
};

std::string payload(uint64_t n) {
  std::string v = fmt::format("p{}-", n);
  v.resize(24, static_cast<char>('a' + n % 26));
  return v;
}

template <class P>
using QueueOracle = OpSetOracle<P>;
constexpr bool queue_pair(const PairTraits& p) { return p.op_set == OpSet::kQueue; }
using QueuePairs = Join<CatalogPairs<queue_pair>, BackendPairs<TestQueue>>;
TYPED_TEST_SUITE(QueueOracle, QueuePairs, PairName);

TYPED_TEST(QueueOracle, ExactFifoWithFullAndEmpty) {
  using B = typename TypeParam::B;
  using DS = typename TypeParam::DS;
  const DsOptions o = this->options();
  B b(this->dir_.spec(DS::kName, B::kMode));
  this->template run_structure<DS>(b, o, [&](DS& ds) {
    auto h = ds.handle(0);
    std::deque<std::pair<uint64_t, std::string>> oracle;
    Rng rng(5);
    char out[24];
    uint64_t next = 1;
    for (int i = 0; i < 3000; ++i) {
      // Phases that fill the ring and drain it, so both limits are reached.
      const double push_share = (i / 200) % 2 == 0 ? 0.7 : 0.3;
      if (rng.uniform01() < push_share) {
        const std::string v = payload(next);
        const bool ok = h.push(next, v.data());
        ASSERT_EQ(ok, oracle.size() < o.queueslots) << "push " << i;
        if (ok) oracle.emplace_back(next++, v);
      } else {
        uint64_t id = 0;
        const bool ok = h.pop(id, out);
        ASSERT_EQ(ok, !oracle.empty()) << "pop " << i;
        if (ok) {
          ASSERT_EQ(id, oracle.front().first) << "pop " << i;
          ASSERT_EQ(std::string(out, 24), oracle.front().second) << "pop " << i;
          oracle.pop_front();
        }
      }
      if (i % 100 == 0) {
        ASSERT_EQ(ds.check(), oracle.size());
        std::vector<uint64_t> listed;
        ds.for_each([&](uint64_t id, const char*) { listed.push_back(id); });
        ASSERT_EQ(listed.size(), oracle.size());
        for (size_t k = 0; k < listed.size(); ++k) ASSERT_EQ(listed[k], oracle[k].first);
      }
    }
  });
}

template <class P>
using SetOracle = OpSetOracle<P>;
constexpr bool set_pair(const PairTraits& p) { return p.op_set == OpSet::kSet; }
using SetPairs = Join<CatalogPairs<set_pair>, BackendPairs<TestSet>>;
TYPED_TEST_SUITE(SetOracle, SetPairs, PairName);

TYPED_TEST(SetOracle, MatchesStdSet) {
  using B = typename TypeParam::B;
  using DS = typename TypeParam::DS;
  const DsOptions o = this->options();
  B b(this->dir_.spec(DS::kName, B::kMode));
  this->template run_structure<DS>(b, o, [&](DS& ds) {
    auto h = ds.handle(0);
    std::set<uint64_t> oracle;
    Rng rng(9);
    for (int i = 0; i < 5000; ++i) {
      const uint64_t key = 1 + rng.below(o.keyrange);
      switch (rng.below(3)) {
        case 0:
          ASSERT_EQ(h.insert(key), oracle.insert(key).second) << "insert " << i;
          break;
        case 1:
          ASSERT_EQ(h.remove(key), oracle.erase(key) == 1) << "delete " << i;
          break;
        case 2:
          ASSERT_EQ(h.contains(key), oracle.count(key) == 1) << "contains " << i;
          break;
      }
      if (i % 250 == 0) {
        ASSERT_EQ(ds.check(), oracle.size());
        std::vector<uint64_t> listed;
        ds.for_each([&](uint64_t k) { listed.push_back(k); });
        ASSERT_EQ(listed, std::vector<uint64_t>(oracle.begin(), oracle.end()));
      }
    }
    // The extreme keys next to the sentinels.
    const uint64_t top = std::numeric_limits<uint64_t>::max() - 1;
    EXPECT_TRUE(h.insert(top));
    EXPECT_TRUE(h.contains(top));
    EXPECT_FALSE(h.insert(top));
    EXPECT_TRUE(h.remove(top));
    EXPECT_FALSE(h.contains(top));
    EXPECT_EQ(ds.check(), oracle.size());
  });
}

template <class P>
using StackOracle = OpSetOracle<P>;
constexpr bool stack_pair(const PairTraits& p) { return p.op_set == OpSet::kStack; }
using StackPairs = Join<BackendPairs<TestStack>, CatalogPairs<stack_pair>>;
TYPED_TEST_SUITE(StackOracle, StackPairs, PairName);

TYPED_TEST(StackOracle, ExactLifo) {
  using B = typename TypeParam::B;
  using DS = typename TypeParam::DS;
  DsOptions o = this->options();
  o.capacity = 64;
  o.combining.poolnodes = 64;  // the node pool of seed 004's stacks
  B b(this->dir_.spec(DS::kName, B::kMode));
  this->template run_structure<DS>(b, o, [&](DS& ds) {
    lifo_against_oracle(
        ds, {.seed = 3, .steps = 2000, .phase = 150, .push_share = 0.65, .capacity = o.capacity});
  });
}

// Durable fixtures: a reopened pool holds what was acknowledged.
template <class P>
using ReopenOracle = OpSetOracle<P>;
using ReopenPairs = BackendPairs<TestSet, durable_pair>;
TYPED_TEST_SUITE(ReopenOracle, ReopenPairs, PairName);

TYPED_TEST(ReopenOracle, ReopenedSetRebuildsItsSlab) {
  using B = typename TypeParam::B;
  using DS = typename TypeParam::DS;
  const DsOptions o = this->options();
  std::set<uint64_t> oracle;
  {
    B b(this->dir_.spec(DS::kName, B::kMode, false, true));
    DS ds(b, o);
    auto h = ds.handle(0);
    for (uint64_t k = 1; k <= 150; k += 3) h.insert(k), oracle.insert(k);
    for (uint64_t k = 1; k <= 150; k += 9) h.remove(k), oracle.erase(k);
  }
  B b(this->dir_.spec(DS::kName, B::kMode, true));
  DS ds(b, o);
  EXPECT_EQ(ds.check(), oracle.size());  // check() verifies the rebuilt bitmap
  std::vector<uint64_t> listed;
  ds.for_each([&](uint64_t k) { listed.push_back(k); });
  EXPECT_EQ(listed, std::vector<uint64_t>(oracle.begin(), oracle.end()));
}

}  // namespace
}  // namespace pmemids::test
