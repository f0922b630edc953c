// `pmemids compare`: reading result files, matching configurations, verdicts,
// regressions and per-op costs.
#include "compare/compare.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "errors.h"

namespace pmemids {
namespace {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = "/tmp/pmemids-compare-test-XXXXXX";
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = path_ + "/" + name;
    std::ofstream(p) << text;
    return p;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

nlohmann::json record(const std::string& ds, double ops_per_sec, int rep,
                      nlohmann::json extra_config = nlohmann::json::object(),
                      nlohmann::json extra_metrics = nlohmann::json::object()) {
  nlohmann::json config = {{"ds", ds},
                           {"mode", "dram"},
                           {"workload", "w"},
                           {"seed", 100 + rep},
                           {"repetition", rep},
                           {"stream_seeds", {100 + rep}},
                           {"pool_dir", "/dev/shm/x" + std::to_string(rep)}};
  config.update(extra_config);
  nlohmann::json metrics = {{"ops_per_sec", ops_per_sec}, {"persists_per_op", 1.0 + rep}};
  metrics.update(extra_metrics);
  return {{"schema_version", 1},
          {"context", {{"timestamp", rep}}},
          {"config", config},
          {"metrics", metrics}};
}

std::string lines(const std::vector<nlohmann::json>& recs) {
  std::string out;
  for (const auto& r : recs) out += r.dump() + "\n";
  return out;
}

std::vector<nlohmann::json> reps(const std::string& ds, std::initializer_list<double> ops,
                                 nlohmann::json extra = nlohmann::json::object()) {
  std::vector<nlohmann::json> out;
  int rep = 0;
  for (double x : ops) out.push_back(record(ds, x, rep++, extra));
  return out;
}

std::vector<nlohmann::json> operator+(std::vector<nlohmann::json> a,
                                      const std::vector<nlohmann::json>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

Comparison compare_texts(const TempDir& d, const std::string& base, const std::string& fresh,
                         const std::set<std::string>& ignore = {}) {
  return compare(read_record_file(d.write("base.jsonl", base)),
                 read_record_file(d.write("new.jsonl", fresh)), 0.05, ignore);
}

TEST(CompareTest, OnlyMeasuredRepetitionsAreRead) {
  TempDir d;
  auto warm = record("hashtable", 1, 0);
  warm["warmup"] = true;
  const nlohmann::json agg = {{"schema_version", 1},
                              {"aggregate", true},
                              {"config", {{"ds", "hashtable"}}},
                              {"metrics", nlohmann::json::object()}};
  const nlohmann::json skipped = {{"schema_version", 1}, {"skipped", true}, {"reason", "no"}};
  const RecordFile f = read_record_file(
      d.write("r.jsonl", lines({warm, agg, skipped}) + "\n" + lines(reps("hashtable", {5, 6}))));
  EXPECT_EQ(f.runs.size(), 2u);
  EXPECT_EQ(f.not_repetitions, 3u);
  EXPECT_EQ(f.runs[0].line, 5u);
}

TEST(CompareTest, BadFilesAreRefusedByFileAndLine) {
  TempDir d;
  const std::string good = lines(reps("hashtable", {5}));
  const struct {
    std::string text, needle;
  } cases[] = {
      {good + "{not json\n", "r.jsonl:2: not JSON; expected one JSON result record a line"},
      {good + "[1, 2]\n", "r.jsonl:2: not a pmemids result record"},
      {good + R"({"config": {}, "metrics": 3})"
              "\n",
       "r.jsonl:2: not a pmemids result record"},
      {R"({"schema_version": 2, "config": {}, "metrics": {"ops_per_sec": 1}})"
       "\n",
       "r.jsonl:1: schema_version 2; expected schema_version 1"},
      {R"({"config": {}, "metrics": {"ops_per_sec": "fast"}})"
       "\n",
       "r.jsonl:1: metrics.ops_per_sec is \"fast\"; expected a number >= 0"},
      {R"({"config": {}, "metrics": {}})"
       "\n",
       "r.jsonl:1: metrics.ops_per_sec is null"},
      {R"({"config": {}, "metrics": {"ops_per_sec": -1}})"
       "\n",
       "r.jsonl:1: metrics.ops_per_sec is -1"},
      {"\n\n", "r.jsonl: no run records"},
  };
  for (const auto& c : cases) {
    try {
      read_record_file(d.write("r.jsonl", c.text));
      ADD_FAILURE() << "accepted " << c.text;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(c.needle), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(read_record_file(d.path()), UsageError);
  EXPECT_THROW(read_record_file(d.path() + "/missing.jsonl"), UsageError);
}

TEST(CompareTest, ConfigurationsMatchWithoutSeedsPathsOrRepetitions) {
  TempDir d;
  const Comparison c = compare_texts(
      d, lines(reps("hashtable", {10, 11, 12, 13}) + reps("btree", {5, 5, 5, 5})),
      lines(reps("rbtree", {7}) + reps("hashtable", {20, 21, 22, 23}, {{"seed", 9}})));
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].label, "hashtable dram w");
  EXPECT_EQ(c.rows[0].config.count("seed"), 0u);
  EXPECT_EQ(c.rows[0].config.count("pool_dir"), 0u);
  EXPECT_EQ(c.only_base, std::vector<std::string>{"btree dram w"});
  EXPECT_EQ(c.only_new, std::vector<std::string>{"rbtree dram w"});
}

// A key one file's records do not have (an older or newer record version) is
// listed and left out of the match; keys that vary show in labels.
TEST(CompareTest, KeysOfOneFileOnlyAreListedNotMatchedOn) {
  TempDir d;
  const Comparison c = compare_texts(
      d,
      lines(reps("hashtable", {1, 2}, {{"threads", 1}}) +
            reps("hashtable", {1, 2}, {{"threads", 2}})),
      lines(reps("hashtable", {1, 2}, {{"threads", 2}, {"request_generator", "ycsb"}})));
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].label, "hashtable dram w threads=2");
  EXPECT_EQ(c.keys_only_new, std::vector<std::string>{"request_generator"});
  EXPECT_TRUE(c.keys_only_base.empty());
  EXPECT_EQ(c.only_base, std::vector<std::string>{"hashtable dram w threads=1"});
  // --ignore: threads no longer tells them apart; both base groups become one.
  const Comparison merged = compare_texts(d,
                                          lines(reps("hashtable", {1, 2}, {{"threads", 1}}) +
                                                reps("hashtable", {3, 4}, {{"threads", 2}})),
                                          lines(reps("hashtable", {1, 2})), {"threads"});
  ASSERT_EQ(merged.rows.size(), 1u);
  EXPECT_EQ(merged.rows[0].base.ops_per_sec.size(), 4u);
}

// Records carry the keys of their own operation set only; older ones carried
// every set's (a kv record pushproportion 0.5). Matched against a file that
// mixes sets, those keys of another set neither split nor unmatch a kv
// configuration.
TEST(CompareTest, KeysOfAnotherOperationSetAreNotMatchedOn) {
  TempDir d;
  const nlohmann::json stack = {{"operationset", "stack"}, {"pushproportion", 0.5}};
  const Comparison c = compare_texts(
      d, lines(reps("hashtable", {1, 2}, {{"pushproportion", 0.5}, {"queueslots", 64}})),
      lines(reps("hashtable", {1, 2}, {{"operationset", "kv"}}) +
            reps("stack-lock", {1, 2}, stack)));
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].label, "hashtable dram w");
  EXPECT_EQ(c.rows[0].config.count("pushproportion"), 0u);
  EXPECT_TRUE(c.keys_only_base.empty());
  EXPECT_EQ(c.only_new, std::vector<std::string>{"stack-lock dram w"});
}

// Records carry the knobs of their own structure only; older ones carried
// every structure's (a btree record load_factor 0.75, the hashtable's knob).
// Matched against a file that mixes structures, another structure's knob
// neither splits nor unmatches a configuration, and the structure's own knob
// is still matched on; a structure this binary does not list keeps every knob.
TEST(CompareTest, KnobsOfAnotherStructureAreNotMatchedOn) {
  TempDir d;
  const nlohmann::json older = {{"load_factor", 0.75}, {"max_height", 16}, {"node_keys", 0}};
  const std::string mixed = lines(reps("btree", {1, 2}, {{"node_keys", 0}}) +
                                  reps("hashtable", {1, 2}, {{"load_factor", 0.75}}));
  const Comparison c = compare_texts(d, lines(reps("btree", {1, 2}, older)), mixed);
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].label, "btree dram w node_keys=0");
  EXPECT_EQ(c.rows[0].config.count("load_factor"), 0u);
  EXPECT_EQ(c.rows[0].config.at("node_keys"), 0);
  EXPECT_TRUE(c.keys_only_base.empty());
  EXPECT_EQ(c.only_new, std::vector<std::string>{"hashtable dram w node_keys=null"});

  const std::string other_node_keys = lines(reps("btree", {1, 2}, {{"node_keys", 7}}));
  EXPECT_TRUE(compare_texts(d, lines(reps("btree", {1, 2}, older)), other_node_keys).rows.empty());

  const Comparison gone = compare_texts(d, lines(reps("gone", {1, 2}, older)),
                                        lines(reps("gone", {1, 2}, {{"node_keys", 0}})));
  EXPECT_EQ(gone.keys_only_base, (std::vector<std::string>{"load_factor", "max_height"}));
}

TEST(CompareTest, VerdictsFollowTheTest) {
  TempDir d;
  const std::string base = lines(reps("hashtable", {100, 101, 102, 103, 104}));
  // 5 vs 5 fully apart: exact p = 2 / C(10, 5) = 2 / 252.
  Comparison c = compare_texts(d, base, lines(reps("hashtable", {110, 111, 112, 113, 114})));
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].verdict, Verdict::kFaster);
  EXPECT_DOUBLE_EQ(c.rows[0].test.p, 2.0 / 252);
  EXPECT_NEAR(c.rows[0].ratio, 112.0 / 102, 1e-12);
  c = compare_texts(d, base, lines(reps("hashtable", {90, 91, 92, 93, 94})));
  EXPECT_EQ(c.rows[0].verdict, Verdict::kSlower);
  c = compare_texts(d, base, lines(reps("hashtable", {99.5, 101.5, 102.5, 103.5, 100.5})));
  EXPECT_EQ(c.rows[0].verdict, Verdict::kSame);
  EXPECT_GT(c.rows[0].test.p, 0.05);
}

TEST(CompareTest, ThreeAgainstThreeCannotBeSignificant) {
  TempDir d;
  const Comparison c = compare_texts(d, lines(reps("hashtable", {100, 101, 102})),
                                     lines(reps("hashtable", {10, 11, 12})));
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].verdict, Verdict::kTooFew);
  EXPECT_DOUBLE_EQ(c.rows[0].test.p, 0.1);
  EXPECT_TRUE(regressions(c, 5).empty());
  const std::string text = to_text(c, read_record_file(d.path() + "/base.jsonl"),
                                   read_record_file(d.path() + "/new.jsonl"));
  EXPECT_NE(text.find("too few repetitions for alpha 0.05: need at least 4 per side"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find(" same"), std::string::npos) << text;
}

TEST(CompareTest, RegressionsAreSignificantAndLargerThanTheThreshold) {
  TempDir d;
  const Comparison c = compare_texts(d, lines(reps("hashtable", {100, 101, 102, 103, 104})),
                                     lines(reps("hashtable", {90, 91, 92, 93, 94})));
  EXPECT_EQ(regressions(c, 5).size(), 1u);  // 9.8% slower
  EXPECT_TRUE(regressions(c, 15).empty());
}

TEST(CompareTest, CostsAreMediansAndNullWhereNeverObserved) {
  TempDir d;
  std::vector<nlohmann::json> base = reps("hashtable", {1, 2, 3});  // persists 1, 2, 3
  for (auto& r : base) r["metrics"]["flushed_lines_per_op"] = nullptr;
  std::vector<nlohmann::json> fresh = reps("hashtable", {1, 2, 3, 4});
  for (auto& r : fresh) r["metrics"]["tx_bytes_per_op"] = 8;
  const Comparison c = compare_texts(d, lines(base), lines(fresh));
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].base.costs["persists_per_op"], 2.0);
  EXPECT_EQ(c.rows[0].fresh.costs["persists_per_op"], 2.5);
  EXPECT_TRUE(c.rows[0].base.costs["flushed_lines_per_op"].is_null());
  EXPECT_TRUE(c.rows[0].fresh.costs["flushed_lines_per_op"].is_null());
  EXPECT_TRUE(c.rows[0].base.costs["tx_bytes_per_op"].is_null());
  EXPECT_EQ(c.rows[0].fresh.costs["tx_bytes_per_op"], 8.0);
  const nlohmann::json j = to_json(c, read_record_file(d.path() + "/base.jsonl"),
                                   read_record_file(d.path() + "/new.jsonl"));
  EXPECT_EQ(j["configurations"][0]["new"]["costs"]["tx_bytes_per_op"], 8.0);
  EXPECT_EQ(j["configurations"][0]["verdict"], "too few repetitions");
  EXPECT_TRUE(j["configurations"][0]["base"]["costs"]["tx_bytes_per_op"].is_null());
}

}  // namespace
}  // namespace pmemids
