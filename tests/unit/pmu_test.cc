// PMU detection: what a machine shows (its event sources, whether a hardware
// event opens) decides available / absent / refused, and the refusal names
// --counters sim. The machine is injected: a fake sysfs directory and open
// function.
#include "counters/pmu.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

namespace pmemids {
namespace {

namespace fs = std::filesystem;

class PmuProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("pmemids-pmu-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
             "-" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "devices");
    std::ofstream(root_ / "paranoid") << "2\n";
  }
  void TearDown() override { fs::remove_all(root_); }

  void source(const std::string& name, bool cycles_event = false) {
    fs::create_directories(root_ / "devices" / name / "events");
    if (cycles_event) std::ofstream(root_ / "devices" / name / "events" / "cpu-cycles") << "x";
  }
  PmuFacts observe(int open_errno) {
    PmuProbe p;
    p.sysfs_dir = (root_ / "devices").string();
    p.paranoid_file = (root_ / "paranoid").string();
    p.open_hardware_event = [open_errno] { return open_errno; };
    return observe_pmu(p);
  }

  fs::path root_;
};

TEST_F(PmuProbeTest, VirtualMachineWithoutPmuIsAbsentAndTheRefusalNamesSim) {
  for (const char* s : {"breakpoint", "msr", "software", "tracepoint", "uprobe"}) source(s);
  const PmuFacts f = observe(ENOENT);
  EXPECT_FALSE(f.core_pmu_listed);
  EXPECT_EQ(f.paranoid, 2);
  EXPECT_EQ(f.event_sources.size(), 5u);
  const PmuStatus s = assess_pmu(f);
  EXPECT_EQ(s.state, PmuState::kAbsent);
  EXPECT_NE(s.detail.find("no CPU PMU"), std::string::npos) << s.detail;
  EXPECT_NE(s.detail.find("breakpoint, msr, software, tracepoint, uprobe"), std::string::npos);
  const std::string msg = pmu_refusal(s);
  EXPECT_NE(msg.find("--counters sim"), std::string::npos) << msg;
  EXPECT_NE(msg.find("no hardware performance counters"), std::string::npos) << msg;
}

TEST_F(PmuProbeTest, ListedCorePmuThatOpensIsAvailable) {
  source("cpu");
  source("software");
  const PmuFacts f = observe(0);
  EXPECT_TRUE(f.core_pmu_listed);
  EXPECT_EQ(assess_pmu(f).state, PmuState::kAvailable);
}

TEST_F(PmuProbeTest, OpeningDecidesEvenWhenTheListingLooksEmpty) {
  source("software");
  EXPECT_EQ(assess_pmu(observe(0)).state, PmuState::kAvailable);
}

TEST_F(PmuProbeTest, ArmAndHybridCorePmusAreRecognised) {
  source("armv8_pmuv3_0");
  EXPECT_TRUE(observe(ENOENT).core_pmu_listed);
  fs::remove_all(root_ / "devices");
  source("cpu_core");
  EXPECT_TRUE(observe(ENOENT).core_pmu_listed);
  fs::remove_all(root_ / "devices");
  source("some_core_pmu", /*cycles_event=*/true);
  EXPECT_TRUE(observe(ENOENT).core_pmu_listed);
  fs::remove_all(root_ / "devices");
  source("amd_l3");
  EXPECT_FALSE(observe(ENOENT).core_pmu_listed);
}

TEST_F(PmuProbeTest, ListedPmuThatCountsNothingIsAbsent) {
  source("cpu");
  const PmuStatus s = assess_pmu(observe(ENOENT));
  EXPECT_EQ(s.state, PmuState::kAbsent);
  EXPECT_NE(s.detail.find("lists a CPU PMU but counts no hardware event"), std::string::npos);
}

TEST_F(PmuProbeTest, PermissionDeniedIsRefusedNamingParanoid) {
  source("cpu");
  const PmuStatus s = assess_pmu(observe(EACCES));
  EXPECT_EQ(s.state, PmuState::kRefused);
  EXPECT_NE(s.detail.find("perf_event_paranoid is 2"), std::string::npos) << s.detail;
  EXPECT_NE(pmu_refusal(s).find("--counters sim"), std::string::npos);
}

TEST_F(PmuProbeTest, MissingSysfsAndParanoidAreReportedNotGuessed) {
  PmuProbe p;
  p.sysfs_dir = (root_ / "nowhere").string();
  p.paranoid_file = (root_ / "nowhere" / "paranoid").string();
  p.open_hardware_event = [] { return ENOENT; };
  const PmuFacts f = observe_pmu(p);
  EXPECT_TRUE(f.event_sources.empty());
  EXPECT_EQ(f.paranoid, -1);
  const PmuStatus s = assess_pmu(f);
  EXPECT_EQ(s.state, PmuState::kAbsent);
  EXPECT_NE(s.detail.find("lists no event sources"), std::string::npos) << s.detail;
}

// This machine: the real probe agrees with itself (a hardware event opens
// exactly when the status is available).
TEST(PmuSystem, RealProbeIsConsistent) {
  const PmuFacts f = observe_pmu(system_pmu_probe());
  EXPECT_EQ(assess_pmu(f).state == PmuState::kAvailable, f.open_errno == 0);
}

}  // namespace
}  // namespace pmemids
