// Parts of a sweep: --shard K/N deals every configuration to exactly one shard, by
// config_id order (stable whatever the expansion order); --only keeps the
// configurations with the given values; bad K/N and KEY=V are usage errors.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "errors.h"
#include "sweep/expand.h"
#include "sweep/run_keys.h"
#include "sweep/subset.h"
#include "sweep/sweep_file.h"

namespace pmemids::sweep {
namespace {

const RunKeys& keys() {
  static const RunKeys k;
  return k;
}

std::vector<Configuration> expand_text(const std::string& text) {
  return expand(parse_sweep_text(text, "test.toml", "default", keys()));
}

constexpr const char* kMatrix =
    "[matrix]\n"
    "ds = [\"arraylist\", \"btree\", \"rbtree\"]\n"
    "mode = [\"dram\", \"pmem-persist\", \"pmem-trans\"]\n"
    "threads = \"1:*2:4\"\n"
    "[properties]\n"
    "recordcount = [100, 200]\n";

// The same matrix with the keys and values in another order: another expansion order.
constexpr const char* kReordered =
    "[properties]\n"
    "recordcount = [200, 100]\n"
    "[matrix]\n"
    "threads = [4, 2, 1]\n"
    "mode = [\"pmem-trans\", \"dram\", \"pmem-persist\"]\n"
    "ds = [\"rbtree\", \"arraylist\", \"btree\"]\n";

template <class F>
std::string usage_error(F f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

class SweepShard : public ::testing::TestWithParam<size_t> {};

TEST_P(SweepShard, ShardsCoverEveryConfigurationExactlyOnce) {
  const size_t n = GetParam();
  const auto all = expand_text(kMatrix);
  ASSERT_EQ(all.size(), 3u * 3u * 3u * 2u);
  std::map<std::string, size_t> seen;
  size_t largest = 0, smallest = all.size();
  for (size_t k = 0; k < n; ++k) {
    const auto part = subset(all, Shard{k, n}, {});
    largest = std::max(largest, part.size());
    smallest = std::min(smallest, part.size());
    for (const auto& c : part) {
      ++seen[c.id];
      EXPECT_EQ(all[c.index].id, c.id) << "a configuration keeps its expansion index";
    }
  }
  EXPECT_EQ(seen.size(), all.size());
  for (const auto& [id, count] : seen) EXPECT_EQ(count, 1u) << id;
  EXPECT_LE(largest - smallest, 1u) << "shards are dealt round-robin";
}

TEST_P(SweepShard, AssignmentDoesNotDependOnExpansionOrder) {
  const size_t n = GetParam();
  const auto a = expand_text(kMatrix);
  const auto b = expand_text(kReordered);
  ASSERT_EQ(a.size(), b.size());
  ASSERT_NE(a[0].id, b[0].id) << "the two files must expand in different orders";
  for (size_t k = 0; k < n; ++k) {
    std::set<std::string> ia, ib;
    for (const auto& c : subset(a, Shard{k, n}, {})) ia.insert(c.id);
    for (const auto& c : subset(b, Shard{k, n}, {})) ib.insert(c.id);
    EXPECT_EQ(ia, ib) << "shard " << k << "/" << n;
  }
}

INSTANTIATE_TEST_SUITE_P(Counts, SweepShard, ::testing::Values(1u, 2u, 3u, 7u, 54u, 60u));

TEST(SweepShardText, ParsesKOverN) {
  const Shard s = parse_shard("2/5");
  EXPECT_EQ(s.index, 2u);
  EXPECT_EQ(s.count, 5u);
  EXPECT_EQ(parse_shard("0/1").count, 1u);
  for (const char* bad :
       {"", "3", "1/", "/2", "2/2", "5/2", "0/0", "-1/3", "a/3", "1/3/4", "1.0/3"}) {
    const std::string e = usage_error([&] { parse_shard(bad); });
    EXPECT_NE(e.find(std::string("--shard '") + bad + "'"), std::string::npos) << bad << ": " << e;
    EXPECT_NE(e.find("accepted: K/N"), std::string::npos) << e;
  }
}

TEST(SweepOnly, KeepsMatchingConfigurationsInExpansionOrder) {
  const auto all = expand_text(kMatrix);
  const auto kept =
      subset(all, Shard{}, {parse_only("mode=dram,pmem-trans"), parse_only("recordcount=200")});
  ASSERT_EQ(kept.size(), 3u * 2u * 3u);
  for (size_t i = 1; i < kept.size(); ++i) EXPECT_LT(kept[i - 1].index, kept[i].index);
  for (const auto& c : kept) {
    const std::string mode = value_text(*c.option("mode"));
    EXPECT_TRUE(mode == "dram" || mode == "pmem-trans") << mode;
    EXPECT_EQ(value_text(*c.property("recordcount")), "200");
  }
}

TEST(SweepOnly, WorkloadMatchesByPathOrFileName) {
  const auto all = expand_text(
      "ds = \"btree\"\nmode = \"dram\"\n[matrix]\n"
      "workload = [\"workloads/pmemids-read\", \"workloads/pmemids-write\"]\n");
  ASSERT_EQ(all.size(), 2u);
  for (const char* w : {"workload=pmemids-read", "workload=workloads/pmemids-read"}) {
    const auto part = subset(all, Shard{}, {parse_only(w)});
    ASSERT_EQ(part.size(), 1u) << w;
    EXPECT_EQ(value_text(*part[0].option("workload")), "workloads/pmemids-read");
  }
}

TEST(SweepOnly, CombinesWithShardsWithoutMovingConfigurations) {
  const auto all = expand_text(kMatrix);
  const std::vector<OnlyTerm> only = {parse_only("ds=btree")};
  size_t total = 0;
  for (size_t k = 0; k < 4; ++k) {
    std::set<std::string> whole;
    for (const auto& c : subset(all, Shard{k, 4}, {})) whole.insert(c.id);
    for (const auto& c : subset(all, Shard{k, 4}, only)) {
      EXPECT_EQ(whole.count(c.id), 1u) << "--only does not move a configuration to another shard";
      ++total;
    }
  }
  EXPECT_EQ(total, subset(all, Shard{}, only).size());
}

TEST(SweepOnly, TyposAreUsageErrors) {
  const auto all = expand_text(kMatrix);
  EXPECT_NE(usage_error([&] {
              subset(all, Shard{}, {parse_only("mood=dram")});
            }).find("--only mood: no configuration of the sweep sets 'mood'"),
            std::string::npos);
  EXPECT_NE(usage_error([&] {
              subset(all, Shard{}, {parse_only("mode=pmem-tran")});
            }).find("--only mode=pmem-tran: no configuration of the sweep has mode = pmem-tran"),
            std::string::npos);
  for (const char* bad : {"mode", "=dram", "mode=", "mode=a,,b", "mode=a,"}) {
    const std::string e = usage_error([&] { parse_only(bad); });
    EXPECT_NE(e.find(std::string("--only '") + bad + "'"), std::string::npos) << bad << ": " << e;
    EXPECT_NE(e.find("accepted: KEY=VALUE"), std::string::npos) << e;
  }
}

}  // namespace
}  // namespace pmemids::sweep
