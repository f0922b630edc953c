// The concurrent thread mode: every (structure, mode) under every lock kind that
// fits the mode, four workers sharing one instance. Afterwards the structure
// must pass its invariant checker and hold exactly the loaded and inserted keys,
// each with a value some operation wrote to it. Run under ThreadSanitizer by
// scripts/test.sh, these tests also prove the lock kinds exclude writers.
#include <algorithm>
#include <set>

#include "catalog_pairs.h"
#include "oracle_driver.h"
#include "run/runner.h"

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

// Every value each key may hold once all slices' operations are applied, in any order.
std::map<uint64_t, std::set<std::string>> candidates(const std::vector<Stream>& slices) {
  std::map<uint64_t, std::set<std::string>> c;
  const Stream& first = slices[0];
  for (uint64_t i = 0; i < first.load_keys.size(); ++i) {
    c[first.load_keys[i]].emplace(first.values.get(i), kValueSize);
  }
  for (const Stream& st : slices) {
    for (const Op& op : st.ops) {
      if (op.type == OpType::kInsert) c[op.key].emplace(op.value, kValueSize);
    }
  }
  for (const Stream& st : slices) {
    for (const Op& op : st.ops) {
      if (op.type == OpType::kUpdate || op.type == OpType::kReadModifyWrite) {
        if (c.contains(op.key)) c[op.key].emplace(op.value, kValueSize);
      }
    }
  }
  return c;
}

template <class P>
class ConcurrentTest : public ::testing::Test {
 protected:
  ScratchDir dir_;
};
// Every kv structure the concurrent mode's global lock serialises (kExternal)
// in every mode, under ThreadSanitizer too (scripts/test.sh): a structure added
// to the catalog is race-checked with every lock without a test edit.
constexpr bool concurrent_pair(const PairTraits& p) {
  return kv_pair(p) && p.sync == Sync::kExternal;
}
using ConcurrentPairs = CatalogPairs<concurrent_pair>;
TYPED_TEST_SUITE(ConcurrentTest, ConcurrentPairs, PairName);

// Also: slices invent no misses. Without deletes or read misses in the
// workload, every read, update and read-modify-write of every worker finds its
// key and every insert is new, whatever the interleaving.
TYPED_TEST(ConcurrentTest, EveryFittingLockKeepsTheStructureConsistent) {
  using B = typename TypeParam::B;
  using DS = typename TypeParam::DS;
  const WorkloadSpec spec = concurrent_spec(DS::kOpSet == OpSet::kOrderedKv);
  std::vector<Stream> slices;
  for (uint32_t t = 0; t < kThreads; ++t)
    slices.push_back(generate(spec, spec.seed + t, {t, kThreads}));
  std::vector<Feed> feeds;
  size_t samples = 0;
  for (const Stream& st : slices) {
    feeds.push_back({&st, {}});
    for (uint64_t i = 3; i < st.ops.size(); i += 5) feeds.back().samples.push_back(i);
    samples += feeds.back().samples.size();
  }
  const RunRequest req{.spec = &spec, .threads = kThreads, .feeds = feeds};
  uint64_t capacity = 0;
  for (const Stream& st : slices) capacity = std::max(capacity, st.records_max);

  for (LockKind kind : kAllLockKinds) {
    if (!lock_fits(kind, B::kMode)) continue;
    SCOPED_TRACE(lock_name(kind));
    B b(this->dir_.spec(std::string(DS::kName) + "-" + std::string(lock_name(kind)), B::kMode));
    DS ds(b, ds_options(req, slices[0], capacity));
    const Stream& first = slices[0];
    for (uint64_t i = 0; i < first.load_keys.size(); ++i)
      ds.insert(first.load_keys[i], first.values.get(i));

    std::vector<detail::WorkerOut> outs(kThreads);
    for (int t = 0; t < kThreads; ++t) outs[t].prepare(req, feeds[t]);
    DramLockSlot dram;
    with_lock(kind, b, dram, [&](auto& lock) {
      const Placement unpinned{.thread_cpus = std::vector<std::vector<int>>(kThreads)};
      run_crew(
          kThreads, unpinned, CrewTiming{}, [](int) {},
          [&](int t, const DriveControl& ctl) {
            detail::timed_drive<DS::kOpSet>(ds, lock, req, feeds[t], ctl, outs[t]);
          });
    });

    OpTally total;
    uint64_t sampled = 0, ops = 0;
    for (const auto& o : outs) {
      total += o.tally;
      for (const auto& h : o.latency) sampled += h.count();
    }
    for (const Stream& st : slices) ops += st.ops.size();
    EXPECT_EQ(total.total(), ops);
    EXPECT_EQ(ops, spec.operationcount);
    EXPECT_EQ(sampled, samples);
    for (OpType t : {OpType::kRead, OpType::kUpdate, OpType::kReadModifyWrite, OpType::kScan}) {
      const auto k = static_cast<size_t>(t);
      EXPECT_EQ(total.found[k], total.count[k]) << op_name(t) << ": a slice missed its key";
    }
    EXPECT_EQ(total.found[static_cast<size_t>(OpType::kInsert)], 0u) << "an insert was not new";

    const auto expect = candidates(slices);
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
