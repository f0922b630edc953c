// The concurrent thread mode: every (structure, mode) under every lock kind that
// fits the mode, four workers sharing one instance. Afterwards the structure
// must pass its invariant checker and hold exactly the loaded and inserted keys,
// each with a value some operation wrote to it. Run under ThreadSanitizer by
// scripts/test.sh, these tests also prove the lock kinds exclude writers.
#include <set>

#include "oracle_driver.h"
#include "run/runner.h"
#include "test_support.h"

namespace pmemids::test {
namespace {

constexpr int kThreads = 4;

WorkloadSpec concurrent_spec(bool scans) {
  WorkloadSpec s;
  s.recordcount = 300;
  s.operationcount = 3000;
  s.readproportion = scans ? 0.3 : 0.4;
  s.updateproportion = 0.3;
  s.insertproportion = 0.2;
  s.readmodifywriteproportion = 0.1;
  s.scanproportion = scans ? 0.1 : 0;
  s.maxscanlength = 20;
  s.fieldlength = kValueSize;
  s.requestdistribution = Distribution::kZipfian;
  s.seed = 7;
  return s;
}

// Every value each key may hold once all operations are applied, in any order.
std::map<uint64_t, std::set<std::string>> candidates(const Stream& st) {
  std::map<uint64_t, std::set<std::string>> c;
  for (uint64_t i = 0; i < st.load_keys.size(); ++i) {
    c[st.load_keys[i]].emplace(st.values.get(i), kValueSize);
  }
  for (const Op& op : st.ops) {
    if (op.type == OpType::kUpdate || op.type == OpType::kInsert ||
        op.type == OpType::kReadModifyWrite) {
      if (op.type == OpType::kInsert || c.contains(op.key)) c[op.key].emplace(op.value, kValueSize);
    }
  }
  return c;
}

template <class P>
class ConcurrentTest : public ::testing::Test {
 protected:
  ScratchDir dir_;
};
#ifdef PMEMIDS_TSAN
// Under ThreadSanitizer (scripts/test.sh), every lock kind on structures of
// each shape: array, list with a DRAM index, chains, trees; the race checker
// watches the locks, which are the same for all structures.
using ConcurrentPairs =
    ::testing::Types<PMEMIDS_PAIRS_FOR(ArrayList), PMEMIDS_PAIRS_FOR(LinkedList),
                     PMEMIDS_PAIRS_FOR(HashTable), PMEMIDS_PAIRS_FOR(BPlusTree),
                     PMEMIDS_PAIRS_FOR(RBTree)>;
#else
using ConcurrentPairs = AllPairs;
#endif
TYPED_TEST_SUITE(ConcurrentTest, ConcurrentPairs, PairName);

TYPED_TEST(ConcurrentTest, EveryFittingLockKeepsTheStructureConsistent) {
  using B = typename TypeParam::B;
  using DS = typename TypeParam::DS;
  const WorkloadSpec spec = concurrent_spec(DS::kOpSet == OpSet::kOrderedKv);
  const Stream st = generate(spec, spec.seed);
  Feed feed{&st, {}};
  for (uint64_t i = 3; i < st.ops.size(); i += 5) feed.samples.push_back(i);
  const RunRequest req{.spec = &spec, .threads = kThreads};

  for (LockKind kind : kAllLockKinds) {
    if (!lock_fits(kind, B::kMode)) continue;
    SCOPED_TRACE(lock_name(kind));
    B b(this->dir_.spec(std::string(DS::kName) + "-" + std::string(lock_name(kind)), B::kMode));
    DS ds(b, ds_options(req, st));
    for (uint64_t i = 0; i < st.load_keys.size(); ++i) ds.insert(st.load_keys[i], st.values.get(i));

    std::vector<detail::WorkerOut> outs(kThreads);
    for (auto& o : outs) o.prepare(spec, st);
    DramLockSlot dram;
    with_lock(kind, b, dram, [&](auto& lock) {
      const Placement unpinned{.thread_cpus = std::vector<std::vector<int>>(kThreads)};
      run_crew(
          kThreads, unpinned, CrewTiming{}, [](int) {},
          [&](int t, const DriveControl& ctl) {
            const auto [ops, samples] = detail::slice(feed, t, kThreads);
            detail::timed_drive<DS::kOpSet>(ds, lock, req, ops, samples, ctl, outs[t]);
          });
    });

    OpTally total;
    uint64_t sampled = 0;
    for (const auto& o : outs) {
      total += o.tally;
      for (const auto& h : o.latency) sampled += h.count();
    }
    EXPECT_EQ(total.total(), st.ops.size());
    EXPECT_EQ(sampled, feed.samples.size());

    const auto expect = candidates(st);
    EXPECT_EQ(ds.check(), expect.size());
    const Oracle got = contents(ds);
    ASSERT_EQ(got.size(), expect.size());
    for (const auto& [key, value] : got) {
      const auto it = expect.find(key);
      ASSERT_NE(it, expect.end()) << "unexpected key " << key;
      EXPECT_TRUE(it->second.contains(value)) << "key " << key << " holds a value never written";
    }
  }
}

}  // namespace
}  // namespace pmemids::test
