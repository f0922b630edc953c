// `pmemids doctor`'s verdicts as functions of what the probes found: every
// missing capability says what it disables; parsing of kernel CPU lists.
#include <gtest/gtest.h>

#include "doctor/findings.h"
#include "doctor/probes.h"

namespace pmemids::doctor {
namespace {

bool mentions(const Finding& f, const std::string& s) {
  return f.note.find(s) != std::string::npos;
}

TEST(Doctor, CpuListsParseAndPrintBack) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpu_list("5\n"), (std::vector<int>{5}));
  EXPECT_TRUE(parse_cpu_list("").empty());
  EXPECT_TRUE(parse_cpu_list("3-1").empty());
  EXPECT_TRUE(parse_cpu_list("a,b").empty());
  EXPECT_EQ(cpu_list_text({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
}

TEST(Doctor, OneNumaNodeDisablesRemoteRuns) {
  const Finding one = numa_finding({{0, {0, 1}}});
  EXPECT_EQ(one.verdict, "limited");
  EXPECT_TRUE(mentions(one, "1 NUMA node: Figure 9 remote runs")) << one.note;
  EXPECT_EQ(one.value[0]["cpus"], "0-1");
  EXPECT_EQ(numa_finding({{0, {0}}, {1, {1}}}).verdict, "ok");
}

TEST(Doctor, ClwbRetentionIsJudgedAgainstClflush) {
  EXPECT_EQ(retention_finding(LoadLatencies{20, 35, 150}).verdict, "ok");
  const Finding evicts = retention_finding(LoadLatencies{20, 120, 150});
  EXPECT_EQ(evicts.verdict, "limited");
  EXPECT_TRUE(mentions(evicts, "clflushopt"));
  EXPECT_EQ(evicts.value["load_after_clwb_ns"], 120);
  EXPECT_EQ(retention_finding(std::nullopt).verdict, "limited");
}

TEST(Doctor, EmulationAndDomainSayWhatTheyDisable) {
  const Finding emulated = pmem_finding(false, "page", "tmpfs", false);
  EXPECT_EQ(emulated.verdict, "limited");
  EXPECT_TRUE(mentions(emulated, "EMULATED"));
  EXPECT_EQ(pmem_finding(true, "cache-line", "ext4", true).verdict, "ok");
  EXPECT_TRUE(mentions(domain_finding(false, 0), "--domain eadr is emulated"));
  EXPECT_EQ(domain_finding(true, 1).verdict, "ok");
}

TEST(Doctor, MissingToolsCountersAndInstructionsAreLimitations) {
  const Finding no_pmu = counters_finding(false, "no cpu PMU in sysfs", "valgrind-3.19.0");
  EXPECT_EQ(no_pmu.verdict, "limited");
  EXPECT_TRUE(mentions(no_pmu, "no cpu PMU in sysfs"));
  EXPECT_TRUE(mentions(no_pmu, "--counters sim works (valgrind-3.19.0)"));
  EXPECT_EQ(no_pmu.value, (nlohmann::json{{"perf", false}, {"sim", true}}));
  EXPECT_TRUE(mentions(counters_finding(false, "x", std::nullopt), "needs valgrind on PATH"));
  const Finding pmu = counters_finding(true, "", std::nullopt);
  EXPECT_EQ(pmu.verdict, "ok");
  EXPECT_TRUE(mentions(pmu, "--counters perf works"));
  EXPECT_TRUE(mentions(dcpmm_tools_finding(false, false), "ipmctl and ipmwatch"));
  EXPECT_TRUE(mentions(dcpmm_tools_finding(true, false), "ipmwatch not on PATH"));
  EXPECT_EQ(dcpmm_tools_finding(true, true).verdict, "ok");
  const Finding noclwb = flush_finding({"clflushopt", "clflush"}, "clflushopt");
  EXPECT_EQ(noclwb.verdict, "limited");
  EXPECT_TRUE(mentions(noclwb, "--flush clwb is refused"));
  EXPECT_EQ(flush_finding({"clwb", "clflushopt", "clflush"}, "clwb").verdict, "ok");
  EXPECT_EQ(smt_finding(1).verdict, "limited");
  EXPECT_EQ(smt_finding(2).verdict, "ok");
  EXPECT_EQ(governor_finding(std::nullopt).verdict, "limited");
  EXPECT_EQ(governor_finding(std::string("powersave")).verdict, "limited");
  EXPECT_EQ(governor_finding(std::string("performance")).verdict, "ok");
  EXPECT_EQ(space_finding(uint64_t{1} << 20, 0).verdict, "limited");
  EXPECT_EQ(interposition_finding(false).verdict, "limited");
}

TEST(Doctor, AnUnusablePoolDirectoryFails) {
  bool pool_ok = true;
  const auto findings = run_doctor("/nonexistent/pmemids-doctor", pool_ok);
  EXPECT_FALSE(pool_ok);
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings.front().verdict, "fail");
  const auto json = to_json(findings);
  for (const char* key :
       {"pool_dir", "flush_instructions", "clwb_retains_line", "numa_nodes", "smt", "llc_bytes",
        "hw_counters", "dcpmm_counters", "cpu_governor", "versions", "movnt_threshold"}) {
    EXPECT_TRUE(json.contains(key)) << key;
  }
}

}  // namespace
}  // namespace pmemids::doctor
