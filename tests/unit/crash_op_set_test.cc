// The crash checker per operation set, on the durable test fixtures
// (durable_fixtures.h): correct designs pass the power model single-threaded
// and in the multi-thread variant, planted defects are reported (a slot
// published before it is durable, a node linked before it is durable, a
// response recorded before the change, a recovery that cannot survive its
// own crash), and crashes inside recovery are taken and checked.
#include "crash/crash_impl.h"
#include "ds/linkedlist.h"
#include "durable_fixtures.h"
#include "test_support.h"
#include "workload/properties.h"

namespace pmemids::test {
namespace {

WorkloadSpec spec_of(std::initializer_list<const char*> kvs) {
  PropertySet p;
  for (const char* kv : kvs) p.set_override(kv);
  return p.build();
}

WorkloadSpec queue_spec(uint64_t ops) {
  WorkloadSpec s = spec_of({"operationset=queue", "recordcount=6", "queueslots=8", "slotsize=64",
                            "fieldlength=24", "pushproportion=0.5", "popproportion=0.5"});
  s.operationcount = ops;
  return s;
}
WorkloadSpec set_spec(uint64_t ops) {
  WorkloadSpec s = spec_of({"operationset=set", "keyrange=16", "readproportion=0.2",
                            "insertproportion=0.4", "deleteproportion=0.4"});
  s.operationcount = ops;
  return s;
}
WorkloadSpec stack_spec(uint64_t ops) {
  WorkloadSpec s =
      spec_of({"operationset=stack", "recordcount=4", "pushproportion=0.5", "popproportion=0.5"});
  s.operationcount = ops;
  return s;
}

CrashOptions options(const ScratchDir& dir, uint32_t points, uint64_t seed = 7) {
  CrashOptions o;
  o.work_dir = dir.path();
  o.points = points;
  o.seed = seed;
  o.pmempool_check = false;  // crash_test.cc covers it; these runs stay short
  return o;
}

std::string describe(const CrashReport& r) {
  std::string s = fmt::format(
      "points {} of {}, recovered {}, invariant failures {}, lost {}, half {}, leaks after "
      "repair {}, recovery crashes {}",
      r.points, r.points_available, r.recovered, r.invariant_failures, r.lost_acknowledged,
      r.half_applied, r.leaks_after_repair, r.recovery_crashes);
  for (const auto& f : r.failures) s += "\n  " + f;
  return s;
}

// ---- single-threaded, every point of a short run ---------------------------------

template <template <class> class DS, class B>
CrashReport single(const ScratchDir& dir, const WorkloadSpec& spec, uint32_t points = 100000) {
  return run_crash<DS, B>(options(dir, points), crash_workload(spec));
}

TEST(CrashOpSets, CorrectFixturesPassEveryPoint) {
  ScratchDir dir;
  for (const CrashReport& r : {single<TestQueue, ShadowPersistBackend>(dir, queue_spec(6)),
                               single<TestQueue, ShadowTransBackend>(dir, queue_spec(6)),
                               single<TestSet, ShadowPersistBackend>(dir, set_spec(6)),
                               single<TestStack, ShadowPersistBackend>(dir, stack_spec(3))}) {
    EXPECT_GT(r.points, 15u) << describe(r);
    EXPECT_EQ(r.points, r.points_available) << "exhaustive: " << describe(r);
    EXPECT_FALSE(r.violation(false)) << describe(r);
  }
}

TEST(CrashOpSets, SlotPublishedBeforeItIsDurableIsReported) {
  ScratchDir dir;
  const CrashReport r = single<TestQueueBad, ShadowPersistBackend>(dir, queue_spec(12));
  EXPECT_GT(r.half_applied + r.lost_acknowledged, 0u) << describe(r);
}

TEST(CrashOpSets, NodeLinkedBeforeItIsDurableIsReported) {
  ScratchDir dir;
  const CrashReport r = single<TestSetBad, ShadowPersistBackend>(dir, set_spec(8));
  EXPECT_GT(r.invariant_failures + r.lost_acknowledged + r.half_applied, 0u) << describe(r);
}

// ---- multi-thread variant --------------------------------------------------------

template <template <class> class DS>
CrashReport multi(const ScratchDir& dir, const WorkloadSpec& spec, uint32_t threads,
                  uint32_t points, uint64_t seed = 7) {
  return run_crash<DS, ShadowPersistBackend>(options(dir, points, seed),
                                             crash_workload(spec, threads));
}

TEST(CrashOpSets, MultiThreadCorrectFixturesPass) {
  ScratchDir dir;
  for (const CrashReport& r :
       {multi<TestQueue>(dir, queue_spec(60), 3, 15), multi<TestSet>(dir, set_spec(60), 3, 15),
        multi<TestStack>(dir, stack_spec(45), 3, 15)}) {
    EXPECT_EQ(r.points, 15u) << describe(r);
    EXPECT_FALSE(r.violation(false)) << describe(r);
  }
}

TEST(CrashOpSets, MultiThreadRunsAreReproducible) {
  ScratchDir dir;
  // The same seed: the same interleaving, so the same points and findings
  // (the planted defect makes findings depend on where each point falls).
  const CrashReport a = multi<TestQueueBad>(dir, queue_spec(40), 3, 15, 11);
  const CrashReport b = multi<TestQueueBad>(dir, queue_spec(40), 3, 15, 11);
  EXPECT_NE(a.points_available, 0u);
  EXPECT_EQ(a.points_available, b.points_available);
  EXPECT_EQ(a.failures, b.failures);
}

TEST(CrashOpSets, MultiThreadPlantedDefectsAreReported) {
  ScratchDir dir;
  const CrashReport q = multi<TestQueueBad>(dir, queue_spec(60), 3, 40);
  EXPECT_GT(q.half_applied + q.lost_acknowledged + q.invariant_failures, 0u) << describe(q);
  const CrashReport s = multi<TestStackBad>(dir, stack_spec(45), 3, 80);
  EXPECT_GT(s.lost_acknowledged + s.half_applied, 0u)
      << "a response recorded before the change must fail detectability: " << describe(s);
}

// ---- crashes inside recovery --------------------------------------------------------

TEST(CrashOpSets, RecoveryThatCannotSurviveItsOwnCrashIsReported) {
  ScratchDir dir;
  CrashOptions o = options(dir, 20);
  const CrashWorkload w = crash_workload(queue_spec(30));
  const CrashReport clean = run_crash<TestQueueCompact, ShadowPersistBackend>(o, w);
  EXPECT_FALSE(clean.violation(false))
      << "without crashes inside it, compaction is correct: " << describe(clean);
  o.recovery_points = 4;
  const CrashReport r = run_crash<TestQueueCompact, ShadowPersistBackend>(o, w);
  EXPECT_GT(r.recovery_crashes, 0u) << describe(r);
  EXPECT_TRUE(r.violation(false)) << describe(r);
}

TEST(CrashOpSets, LeakRepairSurvivesItsOwnCrash) {
  // pmem-persist recovery frees leaked objects one by one: a crash between
  // frees leaves fewer leaks, which the next recovery frees.
  ScratchDir dir;
  WorkloadSpec s =
      spec_of({"recordcount=20", "operationcount=60", "readproportion=0", "updateproportion=0.3",
               "insertproportion=0.4", "deleteproportion=0.3", "requestdistribution=uniform"});
  CrashOptions o = options(dir, 25);
  o.recovery_points = 3;
  const CrashReport r = run_crash<LinkedList, ShadowPersistBackend>(o, crash_workload(s));
  EXPECT_GT(r.recovery_crashes, 0u) << describe(r);
  EXPECT_FALSE(r.violation(false)) << describe(r);
}

}  // namespace
}  // namespace pmemids::test
