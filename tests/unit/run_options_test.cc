// run's YCSB conventions: one-dash long flags as YCSB users type them, and how
// run's options and the workload's client settings (threadcount, target,
// status.interval) combine; the structures' knobs as run's options, and where
// their values land.
#include "options/run_options.h"

#include <gtest/gtest.h>

#include "pmemids/structure.h"
#include "registry/registry.h"

namespace pmemids {
namespace {

std::vector<std::string> rewrite(std::vector<const char*> argv) {
  return ycsb_long_flags(static_cast<int>(argv.size()), argv.data());
}

TEST(YcsbFlags, OneDashLongFlagsGetTwo) {
  EXPECT_EQ(
      rewrite({"pmemids", "run", "-threads", "4", "-target", "100", "-P", "w", "-p", "a=1", "-s"}),
      (std::vector<std::string>{"pmemids", "run", "--threads", "4", "--target", "100", "-P", "w",
                                "-p", "a=1", "-s"}));
  EXPECT_EQ(rewrite({"pmemids", "run", "-threads=2", "--threads", "3", "-thread", "-targets"}),
            (std::vector<std::string>{"pmemids", "run", "--threads=2", "--threads", "3", "-thread",
                                      "-targets"}));
  EXPECT_EQ(rewrite({"-threads"}), (std::vector<std::string>{"-threads"}));  // argv[0] is a name
}

WorkloadSpec client_spec(std::optional<int> threadcount, std::optional<double> target,
                         std::optional<double> status) {
  WorkloadSpec s;
  s.threadcount = threadcount;
  s.target = target;
  s.status_interval = status;
  return s;
}

TEST(ClientSettings, OptionsWinOverTheWorkloadsYcsbSettings) {
  RunOptions o;
  ClientSettings c = resolve_client(o, client_spec({}, {}, {}));
  EXPECT_EQ(c.threads, 1);
  EXPECT_EQ(c.thread_mode, "single");
  EXPECT_FALSE(c.default_concurrent);
  EXPECT_EQ(c.target, 0);
  EXPECT_EQ(c.status_interval, 0);

  c = resolve_client(o, client_spec(4, 1000, 2));
  EXPECT_EQ(c.threads, 4);
  EXPECT_EQ(c.threads_from, "threadcount=4");
  EXPECT_EQ(c.thread_mode, "concurrent");  // more than one thread, no --thread-mode: as YCSB
  EXPECT_TRUE(c.default_concurrent);
  EXPECT_EQ(c.target, 1000);
  EXPECT_EQ(c.status_interval, 2);

  o.threads = 2;
  o.thread_mode = "parallel";
  o.target = 0;  // --target 0: unthrottled, whatever the workload says
  o.status_interval = 0.5;
  c = resolve_client(o, client_spec(4, 1000, 2));
  EXPECT_EQ(c.threads, 2);
  EXPECT_EQ(c.threads_from, "--threads 2");
  EXPECT_EQ(c.thread_mode, "parallel");
  EXPECT_FALSE(c.default_concurrent);
  EXPECT_EQ(c.target, 0);
  EXPECT_EQ(c.status_interval, 0.5);
}

TEST(ClientSettings, DashSTurnsStatusOnAtStatusIntervalElseTenSeconds) {
  RunOptions o;
  o.status = true;
  EXPECT_EQ(resolve_client(o, client_spec({}, {}, {})).status_interval, kDefaultStatusInterval);
  EXPECT_EQ(resolve_client(o, client_spec({}, {}, 3)).status_interval, 3);
}

// A knob's descriptor states its default; DsOptions's member holds the same.
TEST(Knobs, EveryKnobsDefaultIsWhatDsOptionsHolds) {
  ASSERT_FALSE(all_knobs().empty());
  for (const Knob* k : all_knobs()) EXPECT_EQ(k->of(DsOptions{}), k->def) << k->name;
}

DsOptions parsed(std::vector<std::string> args) {
  CLI::App app;
  RunOptions o;
  add_run_options(&app, o, all_knobs());
  args.insert(args.begin(), {"--ds", "x", "--mode", "dram"});
  std::reverse(args.begin(), args.end());  // CLI11 parses a reversed vector
  app.parse(args);
  DsOptions d;
  for (const auto& [k, v] : knob_values(o.knobs)) k->assign(d, v);
  return d;
}

TEST(Knobs, OptionsLandInDsOptions) {
  const DsOptions d =
      parsed({"--node-keys", "5", "--load-factor", "2", "--max-height", "3", "--wait", "yield",
              "--combiner-yield", "--persist-requests", "off", "--elimination", "off", "--recycle",
              "off", "--combining-rounds", "7"});
  EXPECT_EQ(d.node_keys, 5u);
  EXPECT_EQ(d.load_factor, 2.0);
  EXPECT_EQ(d.max_height, 3u);
  EXPECT_EQ(d.combining.wait, WaitPolicy::kYield);
  EXPECT_TRUE(d.combining.combiner_yield);
  EXPECT_FALSE(d.combining.persist_requests);
  EXPECT_FALSE(d.combining.elimination);
  EXPECT_FALSE(d.combining.recycle);
  EXPECT_EQ(d.combining.rounds, 7u);
  const DsOptions none = parsed({});
  for (const Knob* k : all_knobs()) EXPECT_EQ(k->of(none), k->def) << k->name;
}

TEST(Knobs, OutOfRangeValuesAreRefusedByTheOption) {
  EXPECT_THROW(parsed({"--node-keys", "2"}), CLI::ValidationError);
  EXPECT_THROW(parsed({"--load-factor", "nan"}), CLI::ValidationError);
  EXPECT_THROW(parsed({"--wait", "sleep"}), CLI::ValidationError);
}

// A knob with no member of its own (a new structure's) lands in DsOptions::knobs.
inline constexpr Knob kMemberless{.name = "memberless",
                                  .type = KnobType::kUnsigned,
                                  .def = 7,
                                  .min = 1,
                                  .max = 9,
                                  .help = "a test knob"};

TEST(Knobs, AKnobWithoutAMemberLandsInDsOptionsKnobs) {
  DsOptions o;
  EXPECT_EQ(kMemberless.of(o), 7);
  kMemberless.assign(o, 9);
  EXPECT_EQ(kMemberless.of(o), 9);
  EXPECT_EQ(o.knobs.find("memberless").value_or(0), 9);
  const Knob* knobs[] = {&kMemberless};
  KnobSettings s;
  CLI::App app;
  add_knob_options(&app, knobs, s);
  app.parse(std::vector<std::string>{"3", "--memberless"});
  EXPECT_EQ(knob_values(s).find("memberless").value_or(0), 3);
  EXPECT_EQ(knobs_config(knobs, knob_values(s)), (nlohmann::json{{"memberless", 3}}));
}

// A record's config holds each knob as its type says: whole numbers, numbers,
// booleans, the choice's name.
TEST(Knobs, ConfigValuesKeepTheirJsonTypes) {
  const nlohmann::json c = knobs_config(all_knobs(), {});
  EXPECT_EQ(c["node_keys"], nlohmann::json(0u));
  EXPECT_TRUE(c["node_keys"].is_number_unsigned());
  EXPECT_EQ(c["load_factor"], 0.75);
  EXPECT_EQ(c["max_height"], 16u);
  EXPECT_EQ(c["wait"], "adaptive");
  EXPECT_EQ(c["combiner_yield"], false);
  EXPECT_EQ(c["persist_requests"], "on");
  EXPECT_EQ(c["combining_rounds"], 20u);
}

}  // namespace
}  // namespace pmemids
