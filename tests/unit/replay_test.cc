// --duration replay (run/replay.h): every cycle inserts ids no earlier cycle
// used and, without deletes, every other operation of every cycle targets a
// live id, as in the first cycle; read misses stay misses; instances are sized
// for the cycles the budget allows.
#include "run/replay.h"

#include <gtest/gtest.h>

#include <set>

#include "workload/properties.h"

namespace pmemids {
namespace {

WorkloadSpec spec(std::initializer_list<std::string> overrides) {
  PropertySet p;
  for (const auto& kv : overrides) p.set_override(kv);
  return p.build();
}

// Walks `cycles` cycles of every slice (one after another, as the slices'
// workers may) against a model of the live ids.
void expect_honest_replay(const WorkloadSpec& s, uint32_t slices, uint64_t cycles) {
  std::vector<Stream> streams;
  for (uint32_t t = 0; t < slices; ++t) streams.push_back(generate(s, 3 + t, {t, slices}));
  std::set<uint64_t> live;
  for (uint64_t id = 0; id < s.recordcount; ++id) live.insert(id);
  uint64_t capacity = 0;
  for (const Stream& st : streams) capacity = std::max(capacity, ids_after(st, cycles));
  for (const Stream& st : streams) {
    const Replay replay(st);
    std::vector<Op> chunk(st.ops.size());
    for (uint64_t c = 0; c < cycles; ++c) {
      if (c == 0) {
        chunk = st.ops;
      } else {
        replay.fill(c, 0, st.ops.size(), chunk.data());
      }
      for (size_t i = 0; i < chunk.size(); ++i) {
        const Op& op = chunk[i];
        const Op& first = st.ops[i];
        ASSERT_EQ(op.type, first.type);
        ASSERT_EQ(op.value, first.value);
        ASSERT_EQ(op.scan_len, first.scan_len);
        const uint64_t id = st.codec.decode(op.key);
        if (st.codec.decode(first.key) >= kMissBase) {
          ASSERT_EQ(op.key, first.key) << "a miss must stay a miss";
          continue;
        }
        ASSERT_LT(id, capacity) << "cycle " << c;
        if (op.type == OpType::kInsert) {
          ASSERT_TRUE(live.insert(id).second) << "cycle " << c << " re-inserts id " << id;
        } else {
          ASSERT_TRUE(live.contains(id))
              << "cycle " << c << " op " << i << " targets dead id " << id;
        }
      }
    }
  }
}

TEST(ReplayTest, EveryCycleInsertsFreshIdsAndTargetsLiveOnes) {
  expect_honest_replay(
      spec({"recordcount=200", "operationcount=3000", "readproportion=0.4", "updateproportion=0.2",
            "insertproportion=0.2", "readmodifywriteproportion=0.1", "scanproportion=0.1",
            "readmissrate=0.1", "requestdistribution=zipfian"}),
      1, 6);
}

TEST(ReplayTest, SlicesReplayInTheirOwnIdSpace) {
  for (const char* order : {"insertorder=hashed", "insertorder=ordered"}) {
    SCOPED_TRACE(order);
    expect_honest_replay(
        spec({"recordcount=100", "operationcount=4000", "readproportion=0.5",
              "updateproportion=0.2", "insertproportion=0.3", "requestdistribution=latest", order}),
        3, 5);
  }
}

TEST(ReplayTest, WithoutInsertsCyclesRepeatTheFirst) {
  const Stream st = generate(spec({"recordcount=50", "operationcount=500"}), 1);
  const Replay replay(st);
  std::vector<Op> chunk(st.ops.size());
  replay.fill(4, 0, st.ops.size(), chunk.data());
  for (size_t i = 0; i < chunk.size(); ++i) ASSERT_EQ(chunk[i].key, st.ops[i].key);
  const Stream* const streams[] = {&st};
  EXPECT_EQ(replay_cycles(10, streams, 200, 1), kUnboundedCycles);
  EXPECT_EQ(ids_after(st, 1000), st.records_max);
}

TEST(ReplayTest, BudgetIsTheDurationsInsertsAtTheRateBoundWithinTheGrowthBytes) {
  const Stream st = generate(spec({"recordcount=1000", "operationcount=10000", "readproportion=0.9",
                                   "updateproportion=0", "insertproportion=0.1"}),
                             1);
  const Stream* const streams[] = {&st};
  const double per_cycle = static_cast<double>(st.inserts);
  // By rate: 0.01 s at the bound inserts 0.01 * 20e6 * inserts / ops ids.
  const double by_rate = 0.01 * kReplayOpsPerSecBound * per_cycle / 10000;
  EXPECT_EQ(replay_cycles(0.01, streams, 1, 1),
            1 + static_cast<uint64_t>(std::ceil(by_rate / per_cycle)));
  // By bytes: two instances share the growth budget.
  const double by_bytes = static_cast<double>(kReplayGrowthBytes) / 2 / 4096;
  EXPECT_EQ(replay_cycles(1000, streams, 4096, 2),
            1 + static_cast<uint64_t>(std::ceil(by_bytes / per_cycle)));
  EXPECT_EQ(ids_after(st, 3), 1000 + 3 * st.inserts);
}

}  // namespace
}  // namespace pmemids
