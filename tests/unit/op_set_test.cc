// Operation sets: their properties (each set's own keys and proportions), the
// streams generated for them, how plan_streams splits a run over workers
// (queue producers and consumers), and the descriptor list's traits and the
// checks built on them (op set fit, modes, domains, native mode).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <type_traits>
#include <vector>

#include "ds/catalog.h"
#include "errors.h"
#include "registry/registry.h"
#include "run/locks.h"
#include "workload/properties.h"
#include "workload/stream.h"

namespace pmemids {
namespace {

WorkloadSpec build(std::initializer_list<std::string> kvs) {
  PropertySet p;
  for (const auto& kv : kvs) p.set_override(kv);
  return p.build();
}

std::string usage_error(std::initializer_list<std::string> kvs) {
  try {
    build(kvs);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(OpSetProperties, EachSetHasItsOwnProportions) {
  const WorkloadSpec set = build(
      {"operationset=set", "readproportion=0.8", "insertproportion=0.1", "deleteproportion=0.1"});
  EXPECT_EQ(set.op_set(), OpSet::kSet);
  EXPECT_EQ(set.keyrange, 1024u);
  const WorkloadSpec q = build({"operationset=queue"});
  EXPECT_EQ(q.op_set(), OpSet::kQueue);
  EXPECT_EQ(q.queueslots, 32768u);
  EXPECT_EQ(q.slotsize, 4096u);
  EXPECT_EQ(build({"scanproportion=0.05", "readproportion=0.9"}).op_set(), OpSet::kOrderedKv);
  EXPECT_EQ(build({}).op_set(), OpSet::kKv);
}

TEST(OpSetProperties, MisfitsAreUsageErrorsNamingWhatApplies) {
  EXPECT_NE(usage_error({"operationset=set", "readproportion=0.5"}).find("sum to"),
            std::string::npos);
  EXPECT_NE(usage_error({"operationset=queue", "keyrange=64"}).find("applies to operationset set"),
            std::string::npos);
  EXPECT_NE(usage_error({"operationset=set", "readproportion=1", "updateproportion=0"})
                .find("'updateproportion'"),
            std::string::npos);
  EXPECT_NE(usage_error({"pushproportion=0.5"}).find("queue, stack"), std::string::npos);
  EXPECT_NE(usage_error({"operationset=stack", "pushproportion=0.7", "popproportion=0.3",
                         "pushpoppairs=true"})
                .find("pushpoppairs"),
            std::string::npos);
  EXPECT_NE(usage_error({"operationset=queue", "slotsize=64", "fieldlength=100"}).find("slotsize"),
            std::string::npos);
  EXPECT_NE(usage_error({"operationset=heap"}).find("one of kv queue set stack"),
            std::string::npos);
  EXPECT_NE(usage_error({"recordcount=0"}).find("recordcount=0"), std::string::npos);
  EXPECT_EQ(usage_error({"operationset=stack", "recordcount=0"}), "");
}

TEST(OpSetStreams, SetStreamFillsHalfTheRangeWithDistinctUniformKeys) {
  const WorkloadSpec s =
      build({"operationset=set", "keyrange=512", "operationcount=100000", "readproportion=0.6",
             "insertproportion=0.2", "deleteproportion=0.2"});
  const Stream a = generate(s, 1), b = generate(s, 2);
  EXPECT_EQ(a.load_keys, b.load_keys) << "the fill is the run's, not the stream's";
  EXPECT_EQ(a.load_keys.size(), 256u);
  const std::set<uint64_t> fill(a.load_keys.begin(), a.load_keys.end());
  EXPECT_EQ(fill.size(), 256u);
  EXPECT_GE(*fill.begin(), 1u);
  EXPECT_LE(*fill.rbegin(), 512u);
  std::map<OpType, uint64_t> kinds;
  std::vector<uint64_t> hits(513, 0);
  for (const Op& op : a.ops) {
    ++kinds[op.type];
    ASSERT_GE(op.key, 1u);
    ASSERT_LE(op.key, 512u);
    ++hits[op.key];
  }
  EXPECT_NEAR(kinds[OpType::kContains] / 1e5, 0.6, 0.01);
  EXPECT_NEAR(kinds[OpType::kInsert] / 1e5, 0.2, 0.01);
  EXPECT_NEAR(kinds[OpType::kDelete] / 1e5, 0.2, 0.01);
  const auto [lo, hi] = std::minmax_element(hits.begin() + 1, hits.end());
  EXPECT_GT(*lo, 100u);  // uniform: about 195 per key
  EXPECT_LT(*hi, 300u);
}

TEST(OpSetStreams, PushesCarryDistinctIdsPerWorker) {
  const WorkloadSpec s =
      build({"operationset=queue", "recordcount=10", "operationcount=1000", "fieldlength=32"});
  const Stream a = generate(s, 1, {500, StreamRole::kMixed, 0});
  const Stream b = generate(s, 2, {500, StreamRole::kMixed, 1});
  std::set<uint64_t> ids(a.load_keys.begin(), a.load_keys.end());
  EXPECT_EQ(ids.size(), 10u);
  for (const Stream* st : {&a, &b}) {
    for (const Op& op : st->ops) {
      if (op.type != OpType::kPush) continue;
      EXPECT_TRUE(ids.insert(op.key).second) << "id " << op.key << " pushed twice";
      EXPECT_NE(op.value, nullptr);
    }
  }
  const Stream p = generate(s, 3, {100, StreamRole::kProducer, 2});
  const Stream c = generate(s, 4, {100, StreamRole::kConsumer, 3});
  for (const Op& op : p.ops) EXPECT_EQ(op.type, OpType::kPush);
  for (const Op& op : c.ops) EXPECT_EQ(op.type, OpType::kPop);
}

TEST(OpSetStreams, PairsAlternatePushAndPop) {
  const WorkloadSpec s =
      build({"operationset=stack", "recordcount=0", "operationcount=9", "pushpoppairs=true"});
  const auto shapes = plan_streams(s, 2, true);
  ASSERT_EQ(shapes.size(), 2u);
  EXPECT_EQ(shapes[0].operations + shapes[1].operations, 9u);
  EXPECT_EQ(shapes[0].operations % 2, 0u);
  const Stream st = generate(s, 1, shapes[1]);
  for (size_t i = 0; i < st.ops.size(); ++i) {
    EXPECT_EQ(st.ops[i].type, i % 2 == 0 ? OpType::kPush : OpType::kPop) << i;
  }
  EXPECT_TRUE(st.load_keys.empty());
}

TEST(PlanStreams, QueueWorkersSplitIntoProducersAndConsumers) {
  const WorkloadSpec s = build(
      {"operationset=queue", "operationcount=1000", "pushproportion=0.6", "popproportion=0.4"});
  const auto four = plan_streams(s, 4, true);
  ASSERT_EQ(four.size(), 4u);
  uint64_t pushes = 0, pops = 0;
  for (const auto& sh : four) {
    (sh.role == StreamRole::kProducer ? pushes : pops) += sh.operations;
    EXPECT_NE(sh.role, StreamRole::kMixed);
  }
  EXPECT_EQ(pushes, 600u);
  EXPECT_EQ(pops, 400u);
  EXPECT_EQ(four[0].role, StreamRole::kProducer);
  EXPECT_EQ(four[3].role, StreamRole::kConsumer);
  // One worker does both; explicit roles must add up to the workers.
  EXPECT_EQ(plan_streams(s, 1, true).at(0).role, StreamRole::kMixed);
  WorkloadSpec bad = s;
  bad.producers = 3;
  bad.consumers = 3;
  EXPECT_THROW(plan_streams(bad, 4, true), UsageError);
  WorkloadSpec mixed = s;
  mixed.producers = 0;
  mixed.consumers = 0;
  for (const auto& sh : plan_streams(mixed, 4, true)) EXPECT_EQ(sh.role, StreamRole::kMixed);
  WorkloadSpec only = s;
  only.producers = 4;
  EXPECT_THROW(plan_streams(only, 4, true), UsageError);  // pops but no consumer
  // Parallel: each worker runs the whole workload on its own instance.
  for (const auto& sh : plan_streams(s, 3, false)) EXPECT_EQ(sh.operations, 1000u);
}

// One StreamShape carries a shared run's kv slice as it carries a queue's role:
// kv workers get slice t of n (what generate(spec, seed, slice) draws), set
// workers their share of one key range, unsliced.
TEST(PlanStreams, SharedKvWorkersGetSlicesAndSetWorkersShares) {
  const WorkloadSpec kv = build({"recordcount=100", "operationcount=1000", "readproportion=0.5",
                                 "updateproportion=0", "insertproportion=0.5"});
  const auto three = plan_streams(kv, 3, true);
  ASSERT_EQ(three.size(), 3u);
  uint64_t ops = 0;
  for (uint32_t t = 0; t < 3; ++t) {
    EXPECT_EQ(three[t].slice.index, t);
    EXPECT_EQ(three[t].slice.count, 3u);
    ops += three[t].operations;
    const Stream by_shape = generate(kv, 7 + t, three[t]);
    const Stream by_slice = generate(kv, 7 + t, StreamSlice{t, 3});
    ASSERT_EQ(by_shape.ops.size(), by_slice.ops.size());
    for (size_t i = 0; i < by_shape.ops.size(); ++i) {
      EXPECT_EQ(by_shape.ops[i].key, by_slice.ops[i].key) << t << ' ' << i;
      EXPECT_EQ(by_shape.ops[i].type, by_slice.ops[i].type) << t << ' ' << i;
    }
    EXPECT_EQ(by_shape.load_keys.size(), t == 0 ? 100u : 0u);  // only slice 0 loads
  }
  EXPECT_EQ(ops, 1000u);
  for (const auto& sh : plan_streams(kv, 3, false)) EXPECT_EQ(sh.slice.count, 1u);

  const WorkloadSpec set =
      build({"operationset=set", "operationcount=1000", "keyrange=64", "readproportion=0.8",
             "insertproportion=0.1", "deleteproportion=0.1"});
  const auto two = plan_streams(set, 2, true);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].operations + two[1].operations, 1000u);
  std::vector<const Stream*> all;
  std::vector<Stream> streams;
  for (uint32_t t = 0; t < 2; ++t) {
    EXPECT_EQ(two[t].slice.count, 1u);
    streams.push_back(generate(set, 1 + t, two[t]));
  }
  for (const Stream& st : streams) {
    all.push_back(&st);
    EXPECT_EQ(st.load_keys, streams[0].load_keys);  // one fill
    for (const Op& op : st.ops) EXPECT_TRUE(op.key >= 1 && op.key <= 64) << op.key;
  }
  EXPECT_EQ(shared_capacity(OpSet::kSet, all), 64u);
}

// Queue and stack streams count elements: a shared instance holds the load
// once and every worker's pushes.
TEST(PlanStreams, SharedPushPopCapacityCountsTheLoadOnceAndEveryPush) {
  const WorkloadSpec q = build({"operationset=queue", "recordcount=10", "operationcount=100",
                                "pushproportion=0.5", "popproportion=0.5"});
  std::vector<Stream> streams;
  for (const auto& sh : plan_streams(q, 2, true)) streams.push_back(generate(q, 3, sh));
  const std::vector<const Stream*> all{&streams[0], &streams[1]};
  EXPECT_EQ(shared_capacity(OpSet::kQueue, all), 10u + 50u);  // producer 50 pushes, consumer 0
}

// ---- the descriptor list ------------------------------------------------------

TEST(Registry, EveryStructureDeclaresItsTraitsOnce) {
  std::set<std::string_view> names;
  size_t n = 0;
  for_each_structure(Catalog{}, [&]<template <class> class DS>() { ++n; });
  for (const auto& e : registry()) {
    EXPECT_TRUE(names.insert(e.name).second) << e.name;
    EXPECT_FALSE(e.description.empty()) << e.name;
    for (Mode m : kAllModes) {
      EXPECT_EQ(e.in(m).run != nullptr, e.supports(m)) << e.name;
      EXPECT_EQ(e.in(m).crash != nullptr, durable(m) && e.supports(m) && !e.harness) << e.name;
    }
  }
  EXPECT_EQ(names.size(), n);
  EXPECT_TRUE(find_ds("blackhole").harness);
  EXPECT_EQ(find_ds("lflist-harris").sync, Sync::kInternal);
  EXPECT_EQ(find_ds("ringbuffer-volatile").op_set, OpSet::kQueue);
}

TEST(Registry, AllMeansEveryStructureOfTheWorkloadsSet) {
  const auto names = [](OpSet s) {
    std::set<std::string_view> out;
    for (const DsEntry* e : structures_for(s)) out.insert(e->name);
    return out;
  };
  EXPECT_EQ(names(OpSet::kSet),
            (std::set<std::string_view>{"lflist-harris", "lflist-tlog", "lflist-logfree",
                                        "lflist-soft", "lflist-linkfree"}));
  EXPECT_EQ(
      names(OpSet::kQueue),
      (std::set<std::string_view>{"ringbuffer-volatile", "ringbuffer-tx", "ringbuffer-txfree"}));
  EXPECT_TRUE(names(OpSet::kKv).count("hashtable"));
  EXPECT_TRUE(names(OpSet::kKv).count("btree"));  // ordered-kv runs kv workloads
  EXPECT_FALSE(names(OpSet::kOrderedKv).count("hashtable"));
  EXPECT_FALSE(names(OpSet::kKv).count("blackhole"));
}

std::string message_of(auto&& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

// ---- the backend list --------------------------------------------------------

// Every entry: its name is its mode's, and it is durable exactly when it has a
// checking backend of the same mode (which the list maps both ways); every
// structure then has a crash test in each durable mode it supports
// (Registry.EveryStructureDeclaresItsTraitsOnce).
TEST(BackendList, DurableBackendsHaveACheckingCounterpartOfTheirMode) {
  std::vector<Mode> durable_ones;
  for_each_backend([&](const auto& entry) {
    using E = std::remove_cvref_t<decltype(entry)>;
    using B = typename E::type;
    EXPECT_EQ(mode_name(B::kMode), entry.name);
    EXPECT_EQ(durable(B::kMode), B::kDurable) << entry.name;
    if constexpr (B::kDurable) {
      using C = typename E::checking;
      static_assert(std::is_same_v<typename ShadowOf<B>::type, C>);
      static_assert(std::is_same_v<typename PlainOf<C>::type, B>);
      static_assert(C::kMode == B::kMode);
      durable_ones.push_back(B::kMode);
    }
  });
  EXPECT_EQ(durable_modes(), durable_ones);
  EXPECT_FALSE(durable_ones.empty());
}

TEST(BackendList, ModesRoundTripThroughTheirNames) {
  std::set<std::string_view> names;
  for (Mode m : kAllModes) {
    EXPECT_TRUE(names.insert(mode_name(m)).second) << mode_name(m);
    EXPECT_EQ(find_mode(mode_name(m)), m);
    EXPECT_TRUE(kEveryMode.has(m)) << mode_name(m);
    EXPECT_EQ(kVolatileModes.has(m), !durable(m)) << mode_name(m);
  }
  const std::string refused = message_of([] { find_mode("nvram"); });
  for (Mode m : kAllModes) EXPECT_NE(refused.find(mode_name(m)), std::string::npos) << refused;
  EXPECT_FALSE(mode_named("all"));
}

// The default lock of every mode is one a run of that mode can place.
TEST(BackendList, DefaultLocksFitTheirModes) {
  for (Mode m : kAllModes) {
    EXPECT_TRUE(lock_fits(default_lock(m), m)) << mode_name(m);
    EXPECT_EQ(find_lock(lock_name(default_lock(m)), m), default_lock(m));
  }
}

// Leak repair belongs to the backend: a checking backend repairs as the
// backend it stands for does (so `pmemids crash` recovers as a reopened run
// does), a volatile backend keeps nothing to repair, and the list says so per
// mode. pmem-persist repairs what a crash leaked; pmem-trans allocates inside
// its transactions, so any leak there is a violation (docs/crash.md).
TEST(BackendList, LeakRepairIsTheBackendsOwn) {
  for_each_backend([&](const auto& entry) {
    using E = std::remove_cvref_t<decltype(entry)>;
    using B = typename E::type;
    EXPECT_EQ(mode_info(B::kMode).repairs_leaks, RepairsLeaks<B>) << entry.name;
    if constexpr (B::kDurable) {
      EXPECT_EQ(RepairsLeaks<typename E::checking>, RepairsLeaks<B>) << entry.name;
    } else {
      EXPECT_FALSE(RepairsLeaks<B>) << entry.name;
    }
  });
  EXPECT_TRUE(mode_info(Mode::kPersist).repairs_leaks);
  EXPECT_FALSE(mode_info(Mode::kTrans).repairs_leaks);
}

TEST(Registry, MisfitsNameTheStructuresThatFit) {
  const std::string set_on_kv =
      message_of([] { check_fits(find_ds("hashtable"), OpSet::kSet, Mode::kDram); });
  EXPECT_NE(set_on_kv.find("structures that can: lflist-harris, lflist-tlog, lflist-logfree, "
                           "lflist-soft, lflist-linkfree"),
            std::string::npos)
      << set_on_kv;
  const std::string mode =
      message_of([] { check_fits(find_ds("lflist-harris"), OpSet::kSet, Mode::kPersist); });
  EXPECT_NE(mode.find("dram, pmem-volatile"), std::string::npos) << mode;
  const std::string native =
      message_of([] { check_thread_mode(find_ds("hashtable"), ThreadMode::kNative); });
  EXPECT_NE(native.find("structures that can: ringbuffer-volatile, ringbuffer-tx, "
                        "ringbuffer-txfree, lflist-harris, lflist-tlog, lflist-logfree, "
                        "lflist-soft, lflist-linkfree"),
            std::string::npos)
      << native;
  EXPECT_EQ(message_of([] { check_thread_mode(find_ds("lflist-harris"), ThreadMode::kNative); }),
            "");
  DsEntry eadr_only = find_ds("hashtable");
  eadr_only.domains = DomainSet{Domain::kEadr};
  const std::string adr =
      message_of([&] { check_domain(eadr_only, Mode::kPersist, Domain::kAdr, false); });
  EXPECT_NE(adr.find("only under --domain eadr"), std::string::npos) << adr;
  EXPECT_NE(adr.find("--unsafe"), std::string::npos) << adr;
  EXPECT_EQ(message_of([&] { check_domain(eadr_only, Mode::kPersist, Domain::kAdr, true); }), "");
  EXPECT_EQ(message_of([&] { check_domain(eadr_only, Mode::kDram, Domain::kAdr, false); }), "");
  EXPECT_EQ(message_of([&] { check_domain(eadr_only, Mode::kTrans, Domain::kEadr, false); }), "");
}

}  // namespace
}  // namespace pmemids
