// Concurrent stress of the structures that synchronise themselves (kInternal),
// in the thread suite that scripts/test.sh also runs under ThreadSanitizer:
// several threads on one instance through their handles, then conservation
// (queues: every acknowledged push is popped exactly once or still there, in
// each producer's order; sets: every key's final presence follows from its
// successful inserts and deletes), the structure's invariants, and
// linearizability of short recorded histories (crash/linearizability.h). And
// the native thread mode end to end, as the registry runs it.
#include <atomic>
#include <map>
#include <set>
#include <thread>

#include "catalog_pairs.h"
#include "crash/linearizability.h"
#include "durable_fixtures.h"
#include "native_run.h"

namespace pmemids::test {
namespace {

#ifdef PMEMIDS_TSAN
constexpr int kOpsPerThread = 3000;
constexpr int kRounds = 20;
#else
constexpr int kOpsPerThread = 20000;
constexpr int kRounds = 60;
#endif

DsOptions stress_options(uint32_t threads) {
  return DsOptions{.capacity = 1 << 16,
                   .value_size = 16,
                   .threads = threads,
                   .keyrange = 64,
                   .queueslots = 32,
                   .slotsize = 64};
}

template <class F>
void on_threads(int n, F&& f) {
  std::vector<std::thread> ts;
  for (int t = 0; t < n; ++t) ts.emplace_back([&, t] { f(t); });
  for (auto& th : ts) th.join();
}

template <class P>
class QueueStress : public ::testing::Test {
 protected:
  ScratchDir dir_;
};
constexpr bool shared_queue_pair(const PairTraits& p) {
  return p.op_set == OpSet::kQueue && p.sync == Sync::kInternal;
}
using QueueStressPairs =
    Join<CatalogPairs<shared_queue_pair>, BackendPairs<TestQueue, first_mode_pair>>;
TYPED_TEST_SUITE(QueueStress, QueueStressPairs, PairName);

TYPED_TEST(QueueStress, EveryPushedElementIsPoppedOnceInProducerOrder) {
  using B = typename TypeParam::B;
  using DS = typename TypeParam::DS;
  constexpr int kThreads = 4;  // 0, 1 produce; 2, 3 consume; all also do the other now and then
  const DsOptions o = stress_options(kThreads);
  B b(this->dir_.spec(DS::kName, B::kMode));
  DS ds(b, o);
  std::vector<std::vector<uint64_t>> pushed(kThreads), popped(kThreads);
  on_threads(kThreads, [&](int t) {
    auto h = ds.handle(t);
    Rng rng(100 + t);
    char v[16] = {};
    uint64_t n = 0;
    for (int i = 0; i < kOpsPerThread; ++i) {
      const bool producer = t < 2 ? rng.uniform01() < 0.9 : rng.uniform01() < 0.1;
      if (producer) {
        const uint64_t id = push_id(t, n);
        std::memcpy(v, &id, 8);
        if (h.push(id, v)) pushed[t].push_back(id), ++n;
      } else {
        uint64_t id = 0;
        if (h.pop(id, v)) {
          uint64_t copy;
          std::memcpy(&copy, v, 8);
          ASSERT_EQ(copy, id) << "payload does not belong to its element";
          popped[t].push_back(id);
        }
      }
    }
  });
  const uint64_t left = ds.check();
  std::vector<uint64_t> remaining;
  ds.for_each([&](uint64_t id, const char*) { remaining.push_back(id); });
  ASSERT_EQ(remaining.size(), left);
  std::map<uint64_t, int> seen;
  for (const auto& v : popped) {
    for (uint64_t id : v) ++seen[id];
  }
  for (uint64_t id : remaining) ++seen[id];
  uint64_t total = 0;
  for (const auto& v : pushed) {
    total += v.size();
    for (uint64_t id : v) EXPECT_EQ(seen[id], 1) << "element " << id;
  }
  EXPECT_EQ(seen.size(), total) << "an element appeared that was never pushed";
  // Each consumer sees each producer's elements in push order (FIFO).
  for (const auto& v : popped) {
    std::map<uint64_t, uint64_t> last;
    for (uint64_t id : v) {
      const uint64_t producer = id >> 40, n = id & ((uint64_t{1} << 40) - 1);
      if (last.count(producer) != 0) {
        EXPECT_GT(n, last[producer]) << "producer " << producer;
      }
      last[producer] = n;
    }
  }
}

template <class P>
class SetStress : public ::testing::Test {
 protected:
  ScratchDir dir_;
};
constexpr bool shared_set_pair(const PairTraits& p) {
  return p.op_set == OpSet::kSet && p.sync == Sync::kInternal;
}
using SetStressPairs = Join<CatalogPairs<shared_set_pair>, BackendPairs<TestSet, first_mode_pair>>;
TYPED_TEST_SUITE(SetStress, SetStressPairs, PairName);

TYPED_TEST(SetStress, FinalPresenceFollowsFromSuccessfulUpdates) {
  using B = typename TypeParam::B;
  using DS = typename TypeParam::DS;
  constexpr int kThreads = 4;
  const DsOptions o = stress_options(kThreads);
  B b(this->dir_.spec(DS::kName, B::kMode));
  DS ds(b, o);
  std::set<uint64_t> initial;
  {
    auto h = ds.handle(0);
    for (uint64_t k = 1; k <= o.keyrange; k += 2) h.insert(k), initial.insert(k);
  }
  std::vector<std::map<uint64_t, int64_t>> delta(kThreads);
  on_threads(kThreads, [&](int t) {
    auto h = ds.handle(t);
    Rng rng(7 + t);
    for (int i = 0; i < kOpsPerThread; ++i) {
      const uint64_t key = 1 + rng.below(o.keyrange);
      switch (rng.below(3)) {
        case 0:
          if (h.insert(key)) ++delta[t][key];
          break;
        case 1:
          if (h.remove(key)) --delta[t][key];
          break;
        case 2:
          h.contains(key);
          break;
      }
    }
  });
  std::set<uint64_t> now;
  ds.for_each([&](uint64_t k) { now.insert(k); });
  EXPECT_EQ(ds.check(), now.size());  // invariants: order, no marked node, slab bitmap
  for (uint64_t k = 1; k <= o.keyrange; ++k) {
    int64_t present = initial.count(k);
    for (const auto& d : delta) present += d.count(k) != 0 ? d.at(k) : 0;
    EXPECT_EQ(present, static_cast<int64_t>(now.count(k))) << "key " << k;
  }
}

// Short histories (3 threads x 15 operations, timestamps from one atomic
// clock), each checked for linearizability; many rounds.
template <class DS, class Apply>
std::vector<HistoryOp> record(DS& ds, int threads, int ops, uint64_t seed, Apply&& apply) {
  std::atomic<uint64_t> clock{0};
  std::vector<std::vector<HistoryOp>> per(threads);
  on_threads(threads, [&](int t) {
    auto h = ds.handle(t);
    Rng rng(seed * 31 + t);
    for (int i = 0; i < ops; ++i) {
      HistoryOp op{.thread = static_cast<uint32_t>(t)};
      op.invoke = clock.fetch_add(1);
      apply(h, rng, t, i, op);
      op.response = clock.fetch_add(1);
      per[t].push_back(op);
    }
  });
  std::vector<HistoryOp> all;
  for (const auto& v : per) all.insert(all.end(), v.begin(), v.end());
  return all;
}

TYPED_TEST(QueueStress, ShortHistoriesAreLinearizable) {
  using B = typename TypeParam::B;
  using DS = typename TypeParam::DS;
  for (int round = 0; round < kRounds; ++round) {
    const DsOptions o = stress_options(3);
    B b(this->dir_.spec(fmt::format("{}-{}", DS::kName, round), B::kMode, false, false,
                        16 << 20));  // many rounds: small pools
    DS ds(b, o);
    const auto h = record(ds, 3, 15, round, [&](auto& q, Rng& rng, int t, int i, HistoryOp& op) {
      char v[16] = {};
      if (rng.uniform01() < 0.55) {
        op.type = OpType::kPush;
        op.arg = push_id(t, i);
        op.ok = q.push(op.arg, v);
      } else {
        op.type = OpType::kPop;
        op.ok = q.pop(op.out, v);
      }
    });
    const LinResult r = check_sequence_history(OpSet::kQueue, h, {}, std::nullopt, o.queueslots);
    ASSERT_TRUE(r.ok) << "round " << round << ": " << r.why;
  }
}

TYPED_TEST(SetStress, ShortHistoriesAreLinearizable) {
  using B = typename TypeParam::B;
  using DS = typename TypeParam::DS;
  for (int round = 0; round < kRounds; ++round) {
    const DsOptions o = stress_options(3);
    B b(this->dir_.spec(fmt::format("{}-{}", DS::kName, round), B::kMode, false, false,
                        16 << 20));  // many rounds: small pools
    DS ds(b, o);
    const auto h = record(ds, 3, 15, round, [&](auto& s, Rng& rng, int, int, HistoryOp& op) {
      op.arg = 1 + rng.below(4);  // few keys: much contention per key
      switch (rng.below(3)) {
        case 0:
          op.type = OpType::kInsert;
          op.ok = !s.insert(op.arg);  // "found": already present
          break;
        case 1:
          op.type = OpType::kDelete;
          op.ok = s.remove(op.arg);
          break;
        default:
          op.type = OpType::kContains;
          op.ok = s.contains(op.arg);
      }
    });
    std::vector<uint64_t> final;
    ds.for_each([&](uint64_t k) { final.push_back(k); });
    const LinResult r = check_set_history(h, {}, final);
    ASSERT_TRUE(r.ok) << "round " << round << ": " << r.why;
  }
}

// Native mode as the registry runs it (native_run.h): one instance, no lock, a stream per worker
// (queues: producers and consumers), every operation counted.
template <template <class> class DS>
void expect_native_run_counts_every_op(const std::string& pool_dir, const char* workload) {
  const std::string name(DS<DramBackend>::kName);
  const bool ring = DS<DramBackend>::kOpSet == OpSet::kQueue;
  PropertySet p;
  p.load_file(std::string(PMEMIDS_SOURCE_DIR) + workload);
  p.set_override("operationcount=20000");
  if (ring) {
    p.set_override("queueslots=256");
    p.set_override("recordcount=64");
  }
  const WorkloadSpec spec = p.build();
  const RepResult r = run_native_pair<DS>(pool_dir, spec);
  EXPECT_EQ(r.tally.total(), spec.operationcount) << name;
  ASSERT_EQ(r.threads.size(), 2u);
  EXPECT_EQ(r.threads[0].ops + r.threads[1].ops, spec.operationcount);
  if (ring) {
    EXPECT_EQ(r.tally.count[static_cast<int>(OpType::kPush)], spec.operationcount / 2);
    EXPECT_EQ(r.threads[0].ops, spec.operationcount / 2);  // the producer
  }
}

TEST(NativeMode, WorkersShareOneInstanceWithoutALock) {
  ScratchDir dir;
  expect_native_run_counts_every_op<RingBufferVolatile>(dir.path(), "/workloads/ring-5050");
  expect_native_run_counts_every_op<LfListHarris>(dir.path(), "/workloads/set-u20");
}

}  // namespace
}  // namespace pmemids::test
