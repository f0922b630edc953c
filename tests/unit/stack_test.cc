// Seed 004's stacks (stack-dfc, stack-dfc-flat, stack-pbcomb, stack-dfc-volreq, stack-lock,
// stack-fc-volatile) beyond the shared LIFO oracle (op_set_oracle_test.cc):
// every knob keeps LIFO semantics; a reopened pool holds what was
// acknowledged and reports each thread's last operation; and `pmemids
// crash`'s power model (single-threaded at every point of short runs,
// randomised with several threads, crashes inside recovery) finds no
// violation in the durable ones under every persistence domain they claim,
// while a planted copy of the DFC artifact's wrong-address flush is caught
// (ADR).
#include <vector>

#include "catalog_pairs.h"
#include "crash/crash_impl.h"
#include "stack_oracle.h"
#include "workload/generators.h"
#include "workload/properties.h"

namespace pmemids::test {
namespace {

DsOptions stack_options(uint32_t threads = 1) {
  return DsOptions{.capacity = 256, .value_size = 8, .threads = threads};
}

// ---- knobs -------------------------------------------------------------------------

template <class P>
class StackKnobs : public ::testing::Test {
 protected:
  ScratchDir dir_;
};
// The stacks that read the combining knobs (ds/combining.h), each in one mode.
constexpr bool combining_pair(const PairTraits& p) {
  return p.op_set == OpSet::kStack && p.reads(kWaitKnob) && p.representative_mode();
}
TYPED_TEST_SUITE(StackKnobs, CatalogPairs<combining_pair>, PairName);

TYPED_TEST(StackKnobs, EveryKnobKeepsLifo) {
  using B = typename TypeParam::B;
  using DS = typename TypeParam::DS;
  const auto variant = [](auto&& change) {
    DsOptions o = stack_options();
    change(o.combining);
    return o;
  };
  const std::vector<DsOptions> variants = {
      variant([](CombiningOptions& c) { c.elimination = false; }),
      variant([](CombiningOptions& c) { c.recycle = false; }),
      variant([](CombiningOptions& c) { c.persist_requests = false; }),
      variant([](CombiningOptions& c) { c.rounds = 1; }),
      variant([](CombiningOptions& c) { c.wait = WaitPolicy::kYield; }),
      variant([](CombiningOptions& c) { c.combiner_yield = true; }),
  };
  int n = 0;
  for (const DsOptions& o : variants) {
    B b(this->dir_.spec(fmt::format("{}-{}", DS::kName, n++), B::kMode));
    DS ds(b, o);
    // 600 steps in phases of 100 stay far below the 256 slots: every push succeeds
    lifo_against_oracle(ds, {.seed = static_cast<uint64_t>(n),
                             .steps = 600,
                             .phase = 100,
                             .push_share = 0.7,
                             .capacity = o.capacity});
  }
}

TEST(StackKnobs, RecycleOffHoldsPoppedNodesBack) {
  ScratchDir dir;
  DsOptions o = stack_options();
  o.combining.poolnodes = 4;
  for (bool recycle : {true, false}) {
    o.combining.recycle = recycle;
    DramBackend b(dir.spec("stack-pbcomb", Mode::kDram));
    StackPbcomb<DramBackend> ds(b, o);
    auto h = ds.handle(0);
    uint64_t id;
    for (uint64_t i = 1; i <= 4; ++i) ASSERT_TRUE(h.push(i));
    EXPECT_FALSE(h.push(5)) << "a pool of 4 nodes is full";
    ASSERT_TRUE(h.pop(id));
    EXPECT_EQ(h.push(6), recycle) << "the popped node is reused only with recycle on";
    EXPECT_EQ(ds.check(), recycle ? 4u : 3u);
  }
}

// ---- reopen ------------------------------------------------------------------------

template <class P>
class StackReopen : public ::testing::Test {
 protected:
  ScratchDir dir_;
};
constexpr bool durable_stack_pair(const PairTraits& p) {
  return p.op_set == OpSet::kStack && p.durable();
}
TYPED_TEST_SUITE(StackReopen, CatalogPairs<durable_stack_pair>, PairName);

TYPED_TEST(StackReopen, ReopenedPoolHoldsAcknowledgedContents) {
  using B = typename TypeParam::B;
  using DS = typename TypeParam::DS;
  const DsOptions o = stack_options(2);
  std::vector<uint64_t> want;
  uint64_t popped = 0;
  {
    B b(this->dir_.spec(DS::kName, B::kMode, false, true));
    DS ds(b, o);
    auto&& h = worker_target(ds, 1);
    for (uint64_t i = 1; i <= 40; ++i) ASSERT_TRUE(h.push(i));
    for (int i = 0; i < 15; ++i) ASSERT_TRUE(h.pop(popped));
    for (uint64_t i = 25; i >= 1; --i) want.push_back(i);
  }
  B b(this->dir_.spec(DS::kName, B::kMode, true, true));
  DS ds(b, o);
  EXPECT_EQ(ds.check(), want.size());
  std::vector<uint64_t> got;
  ds.for_each([&](uint64_t id) { got.push_back(id); });
  EXPECT_EQ(got, want);
  if constexpr (Detectable<DS>) {
    const RecoveredOp r = ds.recovered(1);
    EXPECT_EQ(r.status, RecoveredOp::kApplied);
    EXPECT_EQ(r.seq, 55u) << "thread 1's 55th operation was its last";
    EXPECT_TRUE(r.ok);
    EXPECT_EQ(r.response, popped);
    EXPECT_EQ(ds.recovered(0).status, RecoveredOp::kUnknown) << "thread 0 did nothing";
  }
  // And it goes on: the next pop returns the top.
  auto&& h = worker_target(ds, 0);
  uint64_t id = 0;
  ASSERT_TRUE(h.pop(id));
  EXPECT_EQ(id, 25u);
}

// ---- crash -------------------------------------------------------------------------

WorkloadSpec stack_spec(uint64_t ops) {
  PropertySet p;
  for (const char* kv :
       {"operationset=stack", "recordcount=3", "pushproportion=0.5", "popproportion=0.5"}) {
    p.set_override(kv);
  }
  WorkloadSpec s = p.build();
  s.operationcount = ops;
  return s;
}

// `domain` decides both what the backends write back and what the power
// model keeps (an eADR crash keeps every executed store).
CrashOptions crash_options(const ScratchDir& dir, uint32_t points, Domain domain,
                           uint64_t seed = 5) {
  CrashOptions o;
  o.work_dir = dir.path();
  o.points = points;
  o.seed = seed;
  o.pmempool_check = false;  // crash_test.cc covers it; these runs stay short
  o.policy.domain = *choose_domain(domain_name(domain), false);
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

// Crash runs of DS under checking backend C (a durable mode's, backends.h).
template <template <class> class DS, class C = ShadowPersistBackend>
CrashReport single(const ScratchDir& dir, uint64_t ops, Domain domain, bool planted = false,
                   uint32_t points = 100000) {
  CrashWorkload w = crash_workload(stack_spec(ops));
  w.ds.combining.planted_misflush = planted;
  return run_crash<DS, C>(crash_options(dir, points, domain), w);
}
template <template <class> class DS, class C>
CrashReport multi(const ScratchDir& dir, uint32_t threads, uint32_t points, Domain domain,
                  uint64_t seed, uint32_t recovery_points = 0) {
  CrashOptions o = crash_options(dir, points, domain, seed);
  o.recovery_points = recovery_points;
  return run_crash<DS, C>(o, crash_workload(stack_spec(12 * threads), threads));
}

// Every durable stack in every durable mode it supports.
template <class P>
class StackCrash : public ::testing::Test {
 protected:
  using C = typename ShadowOf<typename P::B>::type;
};
TYPED_TEST_SUITE(StackCrash, CatalogPairs<durable_stack_pair>, PairName);

// Every persistence domain the structure claims (its kDomains).
template <template <class> class DS>
std::vector<Domain> claimed_domains() {
  std::vector<Domain> out;
  for (Domain d : kAllDomains) {
    if (DS<DramBackend>::kDomains.has(d)) out.push_back(d);
  }
  return out;
}

TYPED_TEST(StackCrash, EveryPointOfAShortRunRecovers) {
  for (Domain d : claimed_domains<TypeParam::template With>()) {
    ScratchDir dir;
    const CrashReport r = single<TypeParam::template With, typename TestFixture::C>(dir, 4, d);
    EXPECT_GT(r.points, 10u) << domain_name(d) << ": " << describe(r);
    EXPECT_EQ(r.points, r.points_available) << domain_name(d) << ": exhaustive: " << describe(r);
    EXPECT_FALSE(r.violation(false)) << domain_name(d) << ": " << describe(r);
  }
}

TYPED_TEST(StackCrash, RandomisedThreadsRecoverDetectably) {
  if constexpr (TypeParam::DS::kSync == Sync::kInternal) {
    for (Domain d : claimed_domains<TypeParam::template With>()) {
      ScratchDir dir;
      for (uint64_t seed : {3, 4}) {
        const CrashReport r = multi<TypeParam::template With, typename TestFixture::C>(
            dir, 3, 25, d, seed, seed == 4 ? 3 : 0);
        EXPECT_EQ(r.points, 25u) << describe(r);
        EXPECT_FALSE(r.violation(false))
            << domain_name(d) << ", seed " << seed << ": " << describe(r);
      }
    }
  }
}

// Under ADR, where write-backs decide what survives (under eADR the addresses
// flushed do not matter).
TEST(StackCrash, DfcArtifactsWrongAddressFlushIsCaught) {
  ScratchDir dir;
  for (const CrashReport& r : {single<StackDfc>(dir, 8, Domain::kAdr, true),
                               single<StackDfcFlat>(dir, 8, Domain::kAdr, true)}) {
    EXPECT_GT(r.lost_acknowledged + r.half_applied + r.invariant_failures, 0u)
        << "flushing the pointer slot instead of the node and the record must lose data: "
        << describe(r);
  }
}

}  // namespace
}  // namespace pmemids::test
