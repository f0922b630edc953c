// Concurrent stress of seed 004's combining stacks (kInternal), in the thread
// suite that scripts/test.sh also runs under ThreadSanitizer: value
// conservation (every pushed id popped at most once, popped or still there,
// pops of an empty stack reported as such), invariants and pool accounting
// after the run, linearizability of short recorded histories
// (crash/linearizability.h), and the native thread mode end to end.
#include <atomic>
#include <set>
#include <thread>

#include "catalog_pairs.h"
#include "crash/linearizability.h"
#include "native_run.h"
#include "workload/generators.h"
#include "workload/properties.h"

namespace pmemids::test {
namespace {

#ifdef PMEMIDS_TSAN
constexpr int kOpsPerThread = 2000;
constexpr int kRounds = 15;
#else
constexpr int kOpsPerThread = 20000;
constexpr int kRounds = 60;
#endif

template <class F>
void on_threads(int n, F&& f) {
  std::vector<std::thread> ts;
  for (int t = 0; t < n; ++t) ts.emplace_back([&, t] { f(t); });
  for (auto& th : ts) th.join();
}

template <class P>
class StackStress : public ::testing::Test {
 protected:
  ScratchDir dir_;
};
// The stacks threads may call at once (kInternal), in their first mode and
// their first durable one.
constexpr bool shared_stack_pair(const PairTraits& p) {
  return p.op_set == OpSet::kStack && p.sync == Sync::kInternal &&
         (p.first_mode() || p.first_durable_mode());
}
TYPED_TEST_SUITE(StackStress, CatalogPairs<shared_stack_pair>, PairName);

TYPED_TEST(StackStress, EveryPushedValueIsPoppedAtMostOnce) {
  using B = typename TypeParam::B;
  using DS = typename TypeParam::DS;
  constexpr int kThreads = 4;
  for (WaitPolicy wait : {WaitPolicy::kSpin, WaitPolicy::kYield}) {
    DsOptions o{
        .capacity = uint64_t{kThreads} * kOpsPerThread, .value_size = 8, .threads = kThreads};
    o.combining.wait = wait;
    B b(this->dir_.spec(fmt::format("{}-{}", DS::kName, wait_policy_name(wait)), B::kMode));
    DS ds(b, o);
    std::vector<std::vector<uint64_t>> popped(kThreads);
    std::vector<uint64_t> pushed(kThreads), empty(kThreads);
    on_threads(kThreads, [&](int t) {
      auto h = ds.handle(t);
      Rng rng(static_cast<uint64_t>(t) + 1);
      for (int i = 0; i < kOpsPerThread; ++i) {
        if (rng.uniform01() < 0.5) {
          ASSERT_TRUE(h.push((uint64_t{static_cast<uint32_t>(t)} << 32) | (pushed[t] + 1)));
          ++pushed[t];
        } else {
          uint64_t id = 0;
          if (h.pop(id)) {
            popped[t].push_back(id);
          } else {
            ++empty[t];
          }
        }
      }
    });
    std::multiset<uint64_t> seen;
    for (const auto& v : popped) seen.insert(v.begin(), v.end());
    uint64_t left = 0;
    ds.for_each([&](uint64_t id) {
      seen.insert(id);
      ++left;
    });
    uint64_t total = 0;
    for (int t = 0; t < kThreads; ++t) {
      total += pushed[t];
      for (uint64_t i = 1; i <= pushed[t]; ++i) {
        ASSERT_EQ(seen.count((uint64_t{static_cast<uint32_t>(t)} << 32) | i), 1u)
            << "thread " << t << "'s push " << i << " must be popped once or be left";
      }
    }
    EXPECT_EQ(seen.size(), total) << "no value appears that was never pushed";
    EXPECT_EQ(ds.check(), left);
  }
}

TYPED_TEST(StackStress, ShortHistoriesAreLinearizable) {
  using B = typename TypeParam::B;
  using DS = typename TypeParam::DS;
  for (int round = 0; round < kRounds; ++round) {
    const DsOptions o{.capacity = 64, .value_size = 8, .threads = 3};
    B b(this->dir_.spec(fmt::format("{}-{}", DS::kName, round), B::kMode));
    DS ds(b, o);
    std::atomic<uint64_t> clock{0};
    std::vector<std::vector<HistoryOp>> per(3);
    on_threads(3, [&](int t) {
      auto h = ds.handle(t);
      Rng rng(static_cast<uint64_t>(round) * 31 + static_cast<uint64_t>(t));
      for (int i = 0; i < 15; ++i) {
        HistoryOp op{.thread = static_cast<uint32_t>(t)};
        op.invoke = clock.fetch_add(1);
        if (rng.uniform01() < 0.55) {
          op.type = OpType::kPush;
          op.arg = static_cast<uint64_t>(t) * 100 + static_cast<uint64_t>(i) + 1;
          op.ok = h.push(op.arg);
        } else {
          op.type = OpType::kPop;
          op.ok = h.pop(op.out);
        }
        op.response = clock.fetch_add(1);
        per[t].push_back(op);
      }
    });
    std::vector<HistoryOp> all;
    for (const auto& v : per) all.insert(all.end(), v.begin(), v.end());
    std::vector<uint64_t> final;
    ds.for_each([&](uint64_t id) { final.insert(final.begin(), id); });  // bottom first
    const LinResult r = check_sequence_history(OpSet::kStack, all, {}, final);
    ASSERT_TRUE(r.ok) << "round " << round << ": " << r.why;
  }
}

// Native mode as the registry runs it (native_run.h), seed 004's push-pop pairs: every operation
// counted, every pop finds an element (each worker pops after its own push), combining metrics
// observed.
template <template <class> class DS>
void expect_push_pop_pairs_counted(const std::string& pool_dir, const WorkloadSpec& spec) {
  const std::string_view name = DS<DramBackend>::kName;
  const RepResult r = run_native_pair<DS>(pool_dir, spec);
  EXPECT_EQ(r.tally.total(), spec.operationcount) << name;
  const auto pops = static_cast<size_t>(OpType::kPop);
  EXPECT_EQ(r.tally.found[pops], r.tally.count[pops]) << name << ": a pop follows a push";
  EXPECT_GT(r.costs.ds[kSessions], 0u) << name;
  EXPECT_EQ(r.costs.ds[kCombinedOps], spec.operationcount) << name << ": every op served once";
}

TEST(StackNativeMode, PushPopPairsThroughTheRegistry) {
  ScratchDir dir;
  PropertySet p;
  p.load_file(std::string(PMEMIDS_SOURCE_DIR) + "/workloads/stack-pushpop");
  p.set_override("operationcount=20000");
  const WorkloadSpec spec = p.build();
  expect_push_pop_pairs_counted<StackDfc>(dir.path(), spec);
  expect_push_pop_pairs_counted<StackDfcFlat>(dir.path(), spec);
  expect_push_pop_pairs_counted<StackPbcomb>(dir.path(), spec);
  expect_push_pop_pairs_counted<StackDfcVolreq>(dir.path(), spec);
  expect_push_pop_pairs_counted<StackFcVolatile>(dir.path(), spec);
}

}  // namespace
}  // namespace pmemids::test
