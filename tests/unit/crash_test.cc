// The crash checker: planted persistence bugs are reported by the power model,
// a corrupted pool is reported as a failed recovery (the checker survives), every
// structure survives bounded crash runs in pmem-trans (and the simple ones in
// pmem-persist), and recovery frees leaked objects in pmem-persist only.
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

#include "catalog_pairs.h"
#include "crash/crash_impl.h"
#include "oracle_driver.h"
#include "workload/properties.h"

namespace pmemids::test {
namespace {

// A small write-heavy stream: inserts, updates and deletes.
struct Fixture {
  WorkloadSpec spec;
  CrashWorkload w;

  explicit Fixture(uint64_t records = 24, uint64_t ops = 60)
      : spec(make(records, ops)), w(crash_workload(spec)) {}
  static WorkloadSpec make(uint64_t records, uint64_t ops) {
    PropertySet p;
    for (const char* kv : {"readproportion=0", "updateproportion=0.3", "insertproportion=0.4",
                           "deleteproportion=0.3", "requestdistribution=uniform-inserted"}) {
      p.set_override(kv);
    }
    p.set_override(fmt::format("recordcount={}", records));
    p.set_override(fmt::format("operationcount={}", ops));
    return p.build();
  }
};

CrashOptions options(const ScratchDir& dir, uint32_t points, uint64_t seed = 7) {
  CrashOptions o;
  o.work_dir = dir.path();
  o.points = points;
  o.seed = seed;
  return o;
}

std::string describe(const CrashReport& r) {
  std::string s = fmt::format(
      "points {} of {}, recovered {}, invariant failures {}, lost {}, half {}, torn values {}, "
      "leaked {}, left after repair {}",
      r.points, r.points_available, r.recovered, r.invariant_failures, r.lost_acknowledged,
      r.half_applied, r.torn_values, r.leaked_objects, r.leaks_after_repair);
  for (const auto& f : r.failures) s += "\n  " + f;
  return s;
}

// ---- the model comparison ---------------------------------------------------------

// An in-flight overwrite whose value is neither the old nor the new one is
// torn: counted apart where the design overwrites in place (kTornValueModes),
// half-applied elsewhere. A torn insert, or a torn acknowledged value, is
// never excused.
TEST(CrashVerdict, ATornOverwriteIsExcusedOnlyWhereTheDesignAdmitsIt) {
  using crash_detail::compare;
  using crash_detail::Items;
  const Items before{{1, "aaaa"}, {2, "bbbb"}}, after{{1, "aaaa"}, {2, "cccc"}};
  const Items torn{{1, "aaaa"}, {2, "ccbb"}};
  for (bool admitted : {false, true}) {
    const auto v = compare(OpSet::kKv, torn, before, after, 2, "update", admitted);
    EXPECT_EQ(v.torn, admitted ? 1u : 0u);
    EXPECT_EQ(v.half, admitted ? 0u : 1u);
    EXPECT_EQ(v.lost, 0u);
  }
  const Items inserted{{1, "aaaa"}, {2, "bbbb"}, {3, "dddd"}};
  const auto insert = compare(OpSet::kKv, {{1, "aaaa"}, {2, "bbbb"}, {3, "dd??"}}, before, inserted,
                              3, "insert", true);
  EXPECT_EQ(insert.half, 1u);
  EXPECT_EQ(insert.torn, 0u);
  const auto acked =
      compare(OpSet::kKv, {{1, "aa??"}, {2, "cccc"}}, before, after, 2, "update", true);
  EXPECT_EQ(acked.lost, 1u);
  EXPECT_EQ(acked.torn, 0u);
}

// ---- planted bugs ----------------------------------------------------------------

TEST(CrashChecker, CorrectLinkedListPassesThePowerModel) {
  ScratchDir dir;
  Fixture f;
  const CrashReport r = run_crash<LinkedList, ShadowPersistBackend>(options(dir, 60), f.w);
  EXPECT_EQ(r.points, 60u);
  EXPECT_FALSE(r.violation(false)) << describe(r);
  EXPECT_GT(r.leaked_objects, 0u) << "crashes between allocation and publication leak";
}

TEST(CrashChecker, SkippedPersistIsReported) {
  ScratchDir dir;
  Fixture f;
  CrashOptions o = options(dir, 60);
  o.fault = PlantedFault::kSkipPersist;
  o.fault_nth = 5;  // the link store that appends the sixth loaded element
  const CrashReport r = run_crash<LinkedList, ShadowPersistBackend>(o, f.w);
  EXPECT_TRUE(r.violation(false)) << describe(r);
  EXPECT_GT(r.lost_acknowledged, 0u) << describe(r);
}

TEST(CrashChecker, PublishBeforePersistIsReported) {
  ScratchDir dir;
  Fixture f;
  CrashOptions o = options(dir, 60);
  o.fault = PlantedFault::kSkipSeal;  // nodes are linked while their contents are not durable
  const CrashReport r = run_crash<HashTable, ShadowPersistBackend>(o, f.w);
  EXPECT_TRUE(r.violation(false)) << describe(r);
  EXPECT_GT(r.lost_acknowledged + r.invariant_failures, 0u) << describe(r);
}

// Raw stores the checking backend is not told of (no snapshot, no report, no
// write-back): what is durable derives from what was written back and fenced,
// so they are lost at a crash after the operation was acknowledged.
TEST(CrashChecker, UnloggedRawStoreInATransactionIsReported) {
  ScratchDir dir;
  Fixture f;
  CrashOptions o = options(dir, kAllPoints);
  o.fault = PlantedFault::kSkipSnapshot;
  o.fault_nth = 3;  // a raw store into the fourth logged range: the commit never flushes it
  const CrashReport r = run_crash<LinkedList, ShadowTransBackend>(o, f.w);
  EXPECT_TRUE(r.violation(true)) << describe(r);
  EXPECT_GT(r.lost_acknowledged + r.half_applied + r.invariant_failures, 0u) << describe(r);
}

TEST(CrashChecker, RawFieldStoreInPersistIsReported) {
  ScratchDir dir;
  Fixture f;
  CrashOptions o = options(dir, kAllPoints);
  o.fault = PlantedFault::kRawStore;
  o.fault_nth = 5;  // the link that appends the sixth loaded element, assigned directly
  const CrashReport r = run_crash<LinkedList, ShadowPersistBackend>(o, f.w);
  EXPECT_TRUE(r.violation(false)) << describe(r);
  EXPECT_GT(r.lost_acknowledged, 0u) << describe(r);
}

PersistencePolicy in_domain(const char* d) {
  PersistencePolicy p = PersistencePolicy::host_default();
  p.domain = *choose_domain(d, false);
  return p;
}

// A design that is correct only when caches are persistent: every write-back
// dropped, every fence kept. The checker must fail it under ADR and pass it
// under eADR: it has teeth in both directions.
TEST(CrashChecker, AnEadrOnlyDesignFailsUnderAdrAndPassesUnderEadr) {
  Fixture f;
  for (const char* domain : {"adr", "eadr"}) {
    ScratchDir dir;
    CrashOptions o = options(dir, 30);
    o.fault = PlantedFault::kSkipFlushes;
    o.policy = in_domain(domain);
    const CrashReport r = run_crash<HashTable, ShadowPersistBackend>(o, f.w);
    if (std::string(domain) == "adr") {
      EXPECT_TRUE(r.violation(false)) << describe(r);
      EXPECT_GT(r.lost_acknowledged, 0u) << describe(r);
    } else {
      EXPECT_FALSE(r.violation(false)) << describe(r);
    }
  }
}

TEST(CrashChecker, EadrCrashesAtTheSamePointsAsAdr) {
  Fixture f;
  ScratchDir dir;
  CrashOptions o = options(dir, 1);
  const CrashReport adr = run_crash<BPlusTree, ShadowPersistBackend>(o, f.w);
  o.policy = in_domain("eadr");
  const CrashReport eadr = run_crash<BPlusTree, ShadowPersistBackend>(o, f.w);
  EXPECT_EQ(adr.points_available, eadr.points_available);
}

TEST(CrashChecker, TheSameSeedPicksTheSamePoints) {
  const auto a = crash_detail::pick_points(1000, 50, 3);
  EXPECT_EQ(a, crash_detail::pick_points(1000, 50, 3));
  EXPECT_NE(a, crash_detail::pick_points(1000, 50, 4));
  EXPECT_EQ(a.size(), 50u);
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
  EXPECT_EQ(crash_detail::pick_points(10, 50, 3).size(), 10u);
}

// ---- corrupted pools ----------------------------------------------------------------

TEST(CrashChecker, IntactPoolChecksClean) {
  ScratchDir dir;
  Fixture f;
  {
    PersistBackend b(dir.spec("linkedlist", Mode::kPersist, false, true, 8 << 20));
    LinkedList<PersistBackend> ds(b, f.w.ds);
    char buf[kValueSize];
    for (const Op& op : f.w.ops) crash_detail::apply_to_ds(ds, op, buf, kValueSize);
  }
  crash_detail::Checker<LinkedList, PersistBackend> checker(options(dir, 1), f.w);
  const PointResult r = checker.check({0, f.w.ops.size(), -1});
  EXPECT_TRUE(r.recovered) << r.message;
  EXPECT_TRUE(r.invariants_ok) << r.message;
  EXPECT_EQ(r.lost + r.half + r.leaked, 0u) << r.message;
}

class CorruptPool : public ::testing::TestWithParam<int> {};

TEST_P(CorruptPool, IsReportedAsAFailedRecoveryNotACrash) {
  ScratchDir dir;
  Fixture f;
  const PoolSpec spec = dir.spec("linkedlist", Mode::kPersist, false, true, 8 << 20);
  uint64_t heap_lo = 0, heap_hi = 0;
  {
    PersistBackend b(spec);
    LinkedList<PersistBackend> ds(b, f.w.ds);
    char buf[kValueSize];
    for (const Op& op : f.w.ops) crash_detail::apply_to_ds(ds, op, buf, kValueSize);
    // The span of the structure's objects in the file.
    heap_lo = UINT64_MAX;
    ds.for_each_object([&](const void* p) {
      const uint64_t off = static_cast<const char*>(p) - reinterpret_cast<char*>(b.pop());
      heap_lo = std::min(heap_lo, off);
      heap_hi = std::max(heap_hi, off + 152);
      return true;
    });
  }
  const int fd = open(spec.path().c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  switch (GetParam()) {
    case 0:  // truncated
      ASSERT_EQ(ftruncate(fd, 1 << 20), 0);
      break;
    case 1: {  // the pool header overwritten
      std::vector<char> junk(4096, '\x5a');
      ASSERT_EQ(pwrite(fd, junk.data(), junk.size(), 0), 4096);
      break;
    }
    case 2: {  // random bytes over the structure's objects
      Rng rng(11);
      std::vector<char> junk(heap_hi - heap_lo);
      for (char& c : junk) c = static_cast<char>(rng.next());
      ASSERT_EQ(pwrite(fd, junk.data(), junk.size(), static_cast<off_t>(heap_lo)),
                static_cast<ssize_t>(junk.size()));
      break;
    }
  }
  close(fd);
  crash_detail::Checker<LinkedList, PersistBackend> checker(options(dir, 1), f.w);
  const PointResult r = checker.check({0, f.w.ops.size(), -1});
  EXPECT_FALSE(r.recovered && r.invariants_ok && r.lost == 0 && r.half == 0)
      << "a corrupt pool passed: " << r.message;
  EXPECT_NE(r.message[0], '\0');
  // The checker is still alive: an intact image after it checks fine.
  {
    PersistBackend b(spec);  // the checker removed the corrupt file
    LinkedList<PersistBackend> ds(b, f.w.ds);
    char buf[kValueSize];
    for (const Op& op : f.w.ops) crash_detail::apply_to_ds(ds, op, buf, kValueSize);
  }
  const PointResult ok = checker.check({1, f.w.ops.size(), -1});
  EXPECT_TRUE(ok.recovered && ok.invariants_ok) << ok.message;
}

std::string corruption_name(const ::testing::TestParamInfo<int>& p) {
  return p.param == 0 ? "truncated" : p.param == 1 ? "header" : "objects";
}

INSTANTIATE_TEST_SUITE_P(Kinds, CorruptPool, ::testing::Values(0, 1, 2), corruption_name);

// ---- bounded runs per structure ---------------------------------------------------

template <class P>
class CrashRun : public ::testing::Test {
 protected:
  ScratchDir dir_;
};
TYPED_TEST_SUITE(CrashRun, DurableKvPairs, PairName);

// Every (structure, mode) its traits declare failure-atomic (pmem-trans; in
// pmem-persist the structures whose every change is one 8-byte publication):
// nothing lost, nothing torn, nothing leaked, in either model and domain,
// whether unpersisted lines are all lost or survive at random (`survive`, at
// `grain`: real caches write lines back early) — except the in-flight
// overwrite's value where the design overwrites in place (kTornValueModes),
// which only torn_values may count. The modes a structure declares torn
// (kTornModes: the pmem-persist trees' multi-word in-place changes,
// docs/crash.md): recovery must succeed and leaks be repaired.
template <class P>
void bounded_run(const ScratchDir& dir, CrashModel model, uint32_t points,
                 const char* domain = "adr", bool store_buffer_loss = false, double survive = 0,
                 uint32_t grain = kCacheLine) {
  using B = typename P::B;
  // Every point of a shorter stream, or `points` of the default one. The
  // every-point runs leave `pmempool check` (one process per image, checking
  // the pool header and shutdown state) to the sampled runs.
  const bool every = points == kAllPoints;
  Fixture f = every ? Fixture(12, 24) : Fixture();
  CrashOptions o = options(dir, points);
  o.pmempool_check = !every;
  o.model = model;
  o.policy = in_domain(domain);
  o.store_buffer_loss = store_buffer_loss;
  o.survive = survive;
  o.grain = grain;
  const CrashReport r = run_crash<P::template With, typename ShadowOf<B>::type>(o, f.w);
  EXPECT_EQ(r.points, std::min<uint64_t>(points, r.points_available));
  EXPECT_EQ(r.recovered, r.points) << describe(r);
  EXPECT_EQ(r.dangling_objects, 0u) << describe(r);
  EXPECT_EQ(r.leaks_after_repair, 0u) << describe(r);
  if (!torn_modes<typename P::DS>().has(B::kMode)) {
    EXPECT_FALSE(r.violation(B::kMode == Mode::kTrans)) << describe(r);
  }
}

// Every point (`--points all`) of a short stream: a window between two
// persists of one operation cannot be missed.
TYPED_TEST(CrashRun, EveryPointPowerRun) {
  bounded_run<TypeParam>(this->dir_, CrashModel::kPower, kAllPoints);
}

TYPED_TEST(CrashRun, EveryPointSurvivingLinesRun) {
  bounded_run<TypeParam>(this->dir_, CrashModel::kPower, kAllPoints, "adr", false, 0.5);
}

// Lines cut between their stores, in order (a line written in several stores).
TYPED_TEST(CrashRun, EveryPointSurvivingWordsRun) {
  bounded_run<TypeParam>(this->dir_, CrashModel::kPower, kAllPoints, "adr", false, 0.5, 8);
}

TYPED_TEST(CrashRun, BoundedProcessRun) {
  bounded_run<TypeParam>(this->dir_, CrashModel::kProcess, 4);
}

// eADR: every store executed before the crash survives; with store-buffer
// loss, a suffix of those since the last fence is lost.
TYPED_TEST(CrashRun, BoundedEadrPowerRun) {
  bounded_run<TypeParam>(this->dir_, CrashModel::kPower, 10, "eadr");
}

TYPED_TEST(CrashRun, BoundedEadrStoreBufferLossRun) {
  bounded_run<TypeParam>(this->dir_, CrashModel::kPower, 6, "eadr", true);
}

// An object allocated and never linked (a crash between allocation and
// publication) is freed on reopen in pmem-persist; pmem-trans never repairs (its
// transactions cannot leak), so the same orphan, allocated in a committed
// transaction, is only counted.
TYPED_TEST(CrashRun, RecoveryRepairsLeaksInPersistOnly) {
  using B = typename TypeParam::B;
  using DS = typename TypeParam::DS;
  const DsOptions o{.capacity = 64,
                    .expected = 32,
                    .value_size = kValueSize,
                    .codec = KeyCodec{InsertOrder::kHashed}};
  {
    B b(this->dir_.spec(DS::kName, B::kMode, false, true));
    DS ds(b, o);
    for (uint64_t id = 0; id < 20; ++id) ds.insert(o.codec.encode(id), value_for(id).data());
    b.tx([&] {
      auto orphan = b.template alloc<char>(200, 9);
      std::memset(orphan.get(), 1, 200);
      b.seal(orphan.get(), 200);
    });
  }
  B b(this->dir_.spec(DS::kName, B::kMode, true));
  DS ds(b, o);
  const auto left = b.unreachable([&](auto&& v) { ds.for_each_object(v); });
  if constexpr (B::kMode == Mode::kPersist) {
    EXPECT_EQ(b.repaired_objects(), 1u);
    EXPECT_TRUE(left.empty());
  } else {
    EXPECT_EQ(b.repaired_objects(), 0u);
    EXPECT_EQ(left.size(), 1u);
  }
  EXPECT_EQ(ds.check(), 20u);
}

}  // namespace
}  // namespace pmemids::test
