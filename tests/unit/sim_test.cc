// --counters sim's parts that need no valgrind: the cache geometry read from a
// (fake) sysfs and made acceptable to valgrind, and callgrind dumps read into
// sim_ metrics.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "counters/cache_geometry.h"
#include "counters/callgrind_out.h"
#include "errors.h"

namespace pmemids {
namespace {

namespace fs = std::filesystem;

class CacheSysfs : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pmemids-caches-" + std::to_string(getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void level(int index, int lvl, const char* type, const char* size, int ways) {
    const fs::path p = dir_ / ("index" + std::to_string(index));
    fs::create_directories(p);
    std::ofstream(p / "level") << lvl << "\n";
    std::ofstream(p / "type") << type << "\n";
    std::ofstream(p / "size") << size << "\n";
    std::ofstream(p / "ways_of_associativity") << ways << "\n";
    std::ofstream(p / "coherency_line_size") << "64\n";
  }
  fs::path dir_;
};

TEST_F(CacheSysfs, TheMachinesL1AndLastLevelAreSimulated) {
  level(0, 1, "Data", "32K", 8);
  level(1, 1, "Instruction", "32K", 8);
  level(2, 2, "Unified", "1024K", 8);
  level(3, 3, "Unified", "32768K", 16);
  const auto c = sim_caches(dir_.string());
  ASSERT_TRUE(c);
  EXPECT_EQ(c->d1.option(), "32768,8,64");
  EXPECT_EQ(c->i1.option(), "32768,8,64");
  EXPECT_EQ(c->ll.option(), "33554432,16,64");  // L3, not L2
  EXPECT_EQ(c->ll.text(), "32 MiB, 16-way, 64 B lines");
  EXPECT_TRUE(c->notes.empty());
  EXPECT_NE(c->machine_levels.find("L2 1 MiB"), std::string::npos) << c->machine_levels;
}

TEST_F(CacheSysfs, SetsThatAreNotAPowerOfTwoAreAdjustedAndNoted) {
  level(0, 1, "Data", "48K", 12);  // 64 sets: fine
  level(1, 1, "Instruction", "32K", 8);
  level(2, 3, "Unified", "30720K", 20);  // 24576 sets
  const auto c = sim_caches(dir_.string());
  ASSERT_TRUE(c);
  EXPECT_EQ(c->d1.option(), "49152,12,64");
  EXPECT_EQ(c->ll.size, 30720u * 1024);  // size kept
  EXPECT_EQ(c->ll.assoc, 30u);           // 16384 sets
  ASSERT_EQ(c->notes.size(), 1u);
  EXPECT_NE(c->notes[0].find("24576 sets"), std::string::npos) << c->notes[0];
}

TEST_F(CacheSysfs, NoLevelOneInstructionCacheIsNothingToSimulate) {
  level(0, 1, "Data", "32K", 8);
  level(1, 2, "Unified", "1024K", 8);
  EXPECT_FALSE(sim_caches(dir_.string()));
  EXPECT_FALSE(sim_caches((dir_ / "missing").string()));
}

constexpr const char* kDump = R"(# callgrind format
version: 1
creator: callgrind-3.19.0
part: 1
desc: LL cache: 33554432 B, 64 B, 16-way associative
positions: line
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim
summary: 10000 3000 1000 10 400 100 5 100 20 1500 60 40
fl=(1) ???
fn=(1) f
0 10000 3000 1000 10 400 100 5 100 20 1500 60 40
totals: 9990 3000 1000
)";

TEST(CallgrindDump, SummaryGivesEveryEventTrailingZerosIncluded) {
  std::istringstream in(kDump);
  const CallgrindTotals t = parse_callgrind_totals(in, "test");
  EXPECT_EQ(t.at("Ir"), 10000u);  // summary, not the later partial totals line
  EXPECT_EQ(t.at("DLmr"), 100u);
  EXPECT_EQ(t.at("Bim"), 0u);  // left out of the line: zero
  EXPECT_EQ(t.size(), 13u);
}

TEST(CallgrindDump, MetricsPerOperation) {
  std::istringstream in(kDump);
  nlohmann::json m;
  add_sim_metrics(m, parse_callgrind_totals(in, "test"), 100);
  EXPECT_DOUBLE_EQ(m["sim_instructions_per_op"].get<double>(), 100);
  EXPECT_DOUBLE_EQ(m["sim_d1_read_misses_per_op"].get<double>(), 4);
  EXPECT_DOUBLE_EQ(m["sim_ll_misses_per_op"].get<double>(), 1);
  EXPECT_DOUBLE_EQ(m["sim_ll_miss_ratio"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(m["sim_d1_miss_ratio"].get<double>(), 400.0 / 3000);
  EXPECT_DOUBLE_EQ(m["sim_branch_misses_per_op"].get<double>(), 0.6);  // Bcm 60 + Bim 0
  EXPECT_DOUBLE_EQ(m["sim_branches_per_op"].get<double>(), 15.4);      // Bc 1500 + Bi 40
  EXPECT_EQ(m["sim_events"]["Ir"], 10000);
}

TEST(CallgrindDump, EventsNotSimulatedAreNull) {
  std::istringstream in("events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\nsummary: 500 100\n");
  nlohmann::json m;
  add_sim_metrics(m, parse_callgrind_totals(in, "test"), 10);
  EXPECT_DOUBLE_EQ(m["sim_instructions_per_op"].get<double>(), 50);
  EXPECT_TRUE(m["sim_branch_misses_per_op"].is_null());
  EXPECT_TRUE(m["sim_ll_miss_ratio"].is_null());  // no D1 read misses: no ratio
}

TEST(CallgrindDump, MalformedDumpsAreRefusedNamingTheFile) {
  std::istringstream no_events("summary: 1 2 3\n");
  try {
    parse_callgrind_totals(no_events, "/x/callgrind.out.1");
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("/x/callgrind.out.1"), std::string::npos);
  }
  std::istringstream no_total("events: Ir Dr\n");
  EXPECT_THROW(parse_callgrind_totals(no_total, "x"), RuntimeError);
  std::istringstream too_many("events: Ir\nsummary: 1 2\n");
  EXPECT_THROW(parse_callgrind_totals(too_many, "x"), RuntimeError);
  std::istringstream garbage("events: Ir\nsummary: lots\n");
  EXPECT_THROW(parse_callgrind_totals(garbage, "x"), RuntimeError);
}

}  // namespace
}  // namespace pmemids
