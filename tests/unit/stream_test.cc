// Operation streams: determinism by seed, the operation mix, fresh insert keys,
// request distributions over the id space, and the read miss rate.
#include "workload/stream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "errors.h"
#include "workload/properties.h"

namespace pmemids {
namespace {

WorkloadSpec spec(std::initializer_list<std::string> overrides) {
  PropertySet p;
  for (const auto& kv : overrides) p.set_override(kv);
  return p.build();
}

std::vector<uint64_t> ids_of(const Stream& st, OpType t) {
  std::vector<uint64_t> ids;
  for (const Op& op : st.ops) {
    if (op.type == t) ids.push_back(st.codec.decode(op.key));
  }
  return ids;
}

TEST(StreamTest, DeterministicBySeed) {
  const WorkloadSpec s =
      spec({"recordcount=1000", "operationcount=5000", "readproportion=0.5", "updateproportion=0.3",
            "insertproportion=0.2", "requestdistribution=zipfian"});
  const Stream a = generate(s, 1), b = generate(s, 1), c = generate(s, 2);
  ASSERT_EQ(a.ops.size(), 5000u);
  bool differs = false;
  for (size_t i = 0; i < a.ops.size(); ++i) {
    ASSERT_EQ(a.ops[i].key, b.ops[i].key);
    ASSERT_EQ(a.ops[i].type, b.ops[i].type);
    differs |= a.ops[i].key != c.ops[i].key;
  }
  EXPECT_TRUE(differs);
}

TEST(StreamTest, OperationMixFollowsProportions) {
  const WorkloadSpec s = spec({"operationcount=200000", "readproportion=0.4",
                               "updateproportion=0.1", "insertproportion=0.1", "scanproportion=0.1",
                               "readmodifywriteproportion=0.2", "deleteproportion=0.1"});
  const Stream st = generate(s, 3);
  const double expected[kOpTypes] = {0.4, 0.1, 0.1, 0.1, 0.2, 0.1};
  for (int t = 0; t < kOpTypes; ++t) {
    const double share = static_cast<double>(ids_of(st, static_cast<OpType>(t)).size()) / 200000;
    EXPECT_NEAR(share, expected[t], 0.01) << op_name(static_cast<OpType>(t));
  }
  for (const Op& op : st.ops) {
    if (op.type == OpType::kScan) {
      ASSERT_GE(op.scan_len, 1u);
      ASSERT_LE(op.scan_len, s.maxscanlength);
    }
    if (op.type == OpType::kUpdate || op.type == OpType::kInsert) {
      ASSERT_NE(op.value, nullptr);
    }
  }
}

TEST(StreamTest, LoadKeysAreDistinctAndInsertsAreFresh) {
  const WorkloadSpec s = spec({"recordcount=1000", "operationcount=10000", "readproportion=0.5",
                               "updateproportion=0", "insertproportion=0.5"});
  const Stream st = generate(s, 4);
  std::set<uint64_t> keys(st.load_keys.begin(), st.load_keys.end());
  EXPECT_EQ(keys.size(), 1000u);
  uint64_t next_id = 1000;
  for (uint64_t id : ids_of(st, OpType::kInsert)) ASSERT_EQ(id, next_id++);
  EXPECT_EQ(st.records_max, next_id);
  // Reads only target ids already inserted when they are issued.
  uint64_t inserted = 1000;
  for (const Op& op : st.ops) {
    if (op.type == OpType::kInsert) ++inserted;
    if (op.type == OpType::kRead) {
      ASSERT_LT(st.codec.decode(op.key), inserted);
    }
  }
}

TEST(StreamTest, OrderedInsertOrderUsesIdsAsKeys) {
  const Stream st = generate(spec({"recordcount=100", "insertorder=ordered"}), 1);
  for (uint64_t i = 0; i < 100; ++i) ASSERT_EQ(st.load_keys[i], i);
}

TEST(StreamTest, ReadMissRateIsHonouredAndMissesAreNeverInserted) {
  const WorkloadSpec s = spec({"recordcount=1000", "operationcount=100000", "readproportion=1",
                               "updateproportion=0", "readmissrate=0.3"});
  const Stream st = generate(s, 5);
  uint64_t misses = 0;
  for (uint64_t id : ids_of(st, OpType::kRead)) misses += id >= kMissBase;
  EXPECT_EQ(misses, st.read_misses);
  EXPECT_NEAR(static_cast<double>(misses) / 100000, 0.3, 0.01);
}

TEST(StreamTest, LatestFavoursRecentInserts) {
  const WorkloadSpec s =
      spec({"recordcount=10000", "operationcount=50000", "readproportion=0.95",
            "updateproportion=0", "insertproportion=0.05", "requestdistribution=latest"});
  const Stream st = generate(s, 6);
  uint64_t inserted = 10000, recent = 0, reads = 0;
  for (const Op& op : st.ops) {
    if (op.type == OpType::kInsert) ++inserted;
    if (op.type != OpType::kRead) continue;
    ++reads;
    recent += st.codec.decode(op.key) + 100 >= inserted;  // among the newest 1%
  }
  EXPECT_GT(static_cast<double>(recent) / reads, 0.4);
}

TEST(StreamTest, HotspotSendsTheOpFractionToTheHotSet) {
  const WorkloadSpec s =
      spec({"recordcount=10000", "operationcount=100000", "readproportion=1", "updateproportion=0",
            "requestdistribution=hotspot", "hotspotdatafraction=0.2", "hotspotopnfraction=0.8"});
  const auto ids = ids_of(generate(s, 7), OpType::kRead);
  uint64_t hot = 0;
  for (uint64_t id : ids) hot += id < 2000;
  EXPECT_NEAR(static_cast<double>(hot) / ids.size(), 0.8, 0.01);
}

TEST(StreamTest, SequentialWalksIdsInOrder) {
  const auto ids = ids_of(generate(spec({"recordcount=10", "operationcount=25", "readproportion=1",
                                         "updateproportion=0", "requestdistribution=sequential"}),
                                   8),
                          OpType::kRead);
  for (size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(ids[i], i % 10);
}

TEST(StreamTest, ZipfianWithFewRecordsAndManyInsertsFinishes) {
  // Ids hashed over the expected count rarely land among the few that exist:
  // the bounded redraw must fall back rather than spin.
  const WorkloadSpec s =
      spec({"recordcount=1", "operationcount=100000", "readproportion=0.5", "updateproportion=0",
            "insertproportion=0.5", "requestdistribution=zipfian"});
  const Stream st = generate(s, 10);
  uint64_t inserted = 1;
  for (const Op& op : st.ops) {
    if (op.type == OpType::kInsert) ++inserted;
    if (op.type == OpType::kRead) {
      ASSERT_LT(st.codec.decode(op.key), inserted);
    }
  }
}

TEST(StreamTest, StreamThatCannotFitInMemoryIsRefusedUpFront) {
  const WorkloadSpec s = spec({"recordcount=1099511627776", "operationcount=5"});
  try {
    generate(s, 1);
    FAIL() << "no UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("recordcount=1099511627776"), std::string::npos)
        << e.what();
  }
}

// FNV-1a over everything a run takes from a stream.
uint64_t digest(const Stream& st) {
  uint64_t h = 0xcbf29ce484222325ULL;
  const auto mix = [&](uint64_t v) {
    for (int i = 0; i < 8; ++i, v >>= 8) h = (h ^ (v & 0xff)) * 0x100000001b3ULL;
  };
  for (uint64_t k : st.load_keys) mix(k);
  for (const Op& op : st.ops) {
    mix(op.key);
    mix(static_cast<uint64_t>(op.type));
    mix(op.scan_len);
    uint64_t v = 0;
    if (op.value != nullptr) std::memcpy(&v, op.value, sizeof v);
    mix(v);
  }
  mix(st.records_max);
  mix(st.read_misses);
  return h;
}

// zipfian-ycsbc and uniform-inserted are what zipfian and uniform were before
// they became Java YCSB's: the streams of the paper's workloads and of crash's
// default workload must not move. The digests were taken from the code before
// the change (git 82325c8) with requestdistribution=zipfian / uniform.
TEST(StreamTest, PaperAndCrashStreamsAreThoseBeforeYcsbsDistributions) {
  const char* d = "requestdistribution=zipfian-ycsbc";
  const Stream w = generate(spec({"recordcount=10000", "operationcount=100000", "readproportion=0",
                                  "updateproportion=0.9", "insertproportion=0.1", d}),
                            1);
  const Stream r = generate(spec({"recordcount=10000", "operationcount=100000", "readproportion=1",
                                  "updateproportion=0", d}),
                            1);
  const Stream m =
      generate(spec({"recordcount=5000", "operationcount=50000", "readproportion=0.3",
                     "updateproportion=0.1", "insertproportion=0.2", "scanproportion=0.1",
                     "readmodifywriteproportion=0.2", "deleteproportion=0.1", "readmissrate=0.1",
                     "zipfianconstant=0.7", "insertorder=ordered", "maxscanlength=50", d}),
               7);
  const Stream f = generate(spec({"recordcount=1", "operationcount=20000", "readproportion=0.5",
                                  "updateproportion=0", "insertproportion=0.5", d}),
                            3);
  const Stream c = generate(spec({"recordcount=100", "operationcount=300", "readproportion=0",
                                  "updateproportion=0.3", "insertproportion=0.4",
                                  "deleteproportion=0.3", "requestdistribution=uniform-inserted"}),
                            1);
  EXPECT_EQ(digest(w), 7334453942042096394ULL);
  EXPECT_EQ(digest(r), 11500325021515048137ULL);
  EXPECT_EQ(digest(m), 6072106392041873238ULL);
  EXPECT_EQ(digest(f), 11793200926523755278ULL);
  EXPECT_EQ(digest(c), 2223075812314096141ULL);
}

// Concurrent slices: slice t of n inserts ids recordcount + j*n + t, and every
// other operation targets a loaded id or one its own slice inserted before it.
TEST(StreamTest, SlicesTargetOnlyLoadedIdsOrTheirOwnEarlierInserts) {
  const WorkloadSpec s =
      spec({"recordcount=500", "operationcount=20000", "readproportion=0.3", "updateproportion=0.2",
            "insertproportion=0.3", "readmodifywriteproportion=0.1", "deleteproportion=0.1",
            "requestdistribution=zipfian"});
  constexpr uint32_t n = 3;
  std::set<uint64_t> all_inserted;
  uint64_t ops = 0;
  for (uint32_t t = 0; t < n; ++t) {
    const Stream st = generate(s, 7 + t, {t, n});
    EXPECT_EQ(st.load_keys.size(), t == 0 ? 500u : 0u);
    ops += st.ops.size();
    std::set<uint64_t> own;
    uint64_t j = 0, highest = 0;
    for (const Op& op : st.ops) {
      const uint64_t id = st.codec.decode(op.key);
      if (op.type == OpType::kInsert) {
        ASSERT_EQ(id, 500 + j++ * n + t);
        ASSERT_TRUE(all_inserted.insert(id).second);
        own.insert(id);
        highest = std::max(highest, id);
      } else {
        ASSERT_TRUE(id < 500 || own.contains(id)) << "slice " << t << " targets id " << id;
      }
    }
    EXPECT_EQ(st.inserts, j);
    EXPECT_EQ(st.records_max, highest + 1);
  }
  EXPECT_EQ(ops, 20000u);
}

TEST(StreamTest, LocalIdsInvertGlobalIds) {
  const Stream st = generate(spec({"recordcount=100", "operationcount=10"}), 1, {2, 5});
  for (uint64_t k :
       {uint64_t{0}, uint64_t{99}, uint64_t{100}, uint64_t{101}, uint64_t{12345}, kMissBase + 3}) {
    EXPECT_EQ(st.local_id(st.global_id(k)), k);
  }
  EXPECT_EQ(st.global_id(100), 102u);
  EXPECT_EQ(st.global_id(101), 107u);
}

}  // namespace
}  // namespace pmemids
