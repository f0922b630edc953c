// perf_event_open plumbing with the events every Linux machine has (software
// events): counts cover exactly what runs between enable() and disable(), page
// faults grow with the memory touched, events the kernel refuses are null with
// a reason (never 0), and summing threads keeps a null null.
#include "counters/perf_events.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "counters/pmu.h"
#include "errors.h"

namespace pmemids {
namespace {

constexpr size_t index_of(std::string_view name) {
  for (size_t i = 0; i < kPerfEventCount; ++i) {
    if (kPerfEvents[i].name == name) return i;
  }
  return kPerfEventCount;
}
const size_t kFaults = index_of("page_faults");
const size_t kSwitches = index_of("context_switches");

// Touches `pages` fresh 4 KiB pages (no huge pages), so each faults once.
void touch_fresh_pages(size_t pages) {
  const size_t bytes = pages * 4096;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  madvise(p, bytes, MADV_NOHUGEPAGE);
  auto* c = static_cast<volatile char*>(p);
  for (size_t i = 0; i < bytes; i += 4096) c[i] = 1;
  munmap(p, bytes);
}

double faults_while_touching(size_t pages) {
  PerfThreadCounters pc;
  pc.open(parse_perf_events({"software"}));
  touch_fresh_pages(64);  // not counted: before enable()
  pc.enable();
  touch_fresh_pages(pages);
  pc.disable();
  touch_fresh_pages(64);  // not counted: after disable()
  const PerfCounts c = pc.read();
  EXPECT_TRUE(c.value[kFaults].has_value()) << c.reason[kFaults];
  return c.value[kFaults].value_or(-1);
}

TEST(PerfEvents, PageFaultsFollowTheMemoryTouchedBetweenEnableAndDisable) {
  const double small = faults_while_touching(256);
  const double large = faults_while_touching(4096);
  EXPECT_GE(small, 256);
  EXPECT_LT(small, 256 + 64);  // not the 128 pages touched outside
  EXPECT_GE(large, 4096);
  EXPECT_LT(large, 4096 + 64);
}

TEST(PerfEvents, ContextSwitchesAreCountedOrNullWithAReason) {
  PerfThreadCounters pc;
  pc.open(parse_perf_events({"context-switches"}));
  pc.enable();
  for (int i = 0; i < 20; ++i) usleep(200);  // each sleep switches out
  pc.disable();
  const PerfCounts c = pc.read();
  if (c.value[kSwitches]) {
    EXPECT_GE(*c.value[kSwitches], 20);
  } else {
    EXPECT_NE(c.reason[kSwitches].find("kernel"), std::string::npos) << c.reason[kSwitches];
  }
}

TEST(PerfEvents, HardwareEventsAreCountedOrNullWithAReasonNeverZero) {
  PerfThreadCounters pc;
  pc.open(parse_perf_events({"all"}));
  pc.enable();
  volatile uint64_t x = 0;
  for (int i = 0; i < 100000; ++i) x = x + i;
  pc.disable();
  const PerfCounts c = pc.read();
  const bool pmu = assess_pmu(observe_pmu(system_pmu_probe())).state == PmuState::kAvailable;
  for (size_t i = 0; i < kPerfEventCount; ++i) {
    if (!kPerfEvents[i].hardware) continue;
    if (!pmu) {
      EXPECT_FALSE(c.value[i].has_value()) << kPerfEvents[i].name;
    }
    if (c.value[i]) {
      EXPECT_TRUE(c.reason[i].empty());
    } else {
      EXPECT_FALSE(c.reason[i].empty()) << kPerfEvents[i].name;
    }
  }
  if (pmu && c.value[index_of("instructions")]) {
    EXPECT_GE(*c.value[index_of("instructions")], 100000);
  }
}

TEST(PerfEvents, RecordFieldsAreNullWhereNotCountedWithTheReason) {
  PerfCounts c;
  c.selected = parse_perf_events({"software"});
  c.counted_fraction.fill(1);
  c.value[kFaults] = 300;
  c.value[kSwitches].reset();
  c.reason[kSwitches] = "counted in the kernel, which this process may not observe";
  c.value[index_of("cpu_migrations")] = 0;
  nlohmann::json m;
  add_perf_metrics(m, c, 100);
  EXPECT_EQ(m["page_faults"], 300);
  EXPECT_DOUBLE_EQ(m["page_faults_per_op"].get<double>(), 3.0);
  EXPECT_EQ(m["cpu_migrations"], 0);  // observed: a real 0
  EXPECT_TRUE(m["context_switches"].is_null());
  EXPECT_TRUE(m["context_switches_per_op"].is_null());
  EXPECT_EQ(m["perf_unavailable"]["context_switches"], c.reason[kSwitches]);
  EXPECT_EQ(m["perf_unavailable"]["instructions"], "not selected (--perf-events)");
  EXPECT_TRUE(m["instructions_per_op"].is_null());
  EXPECT_TRUE(m["llc_miss_ratio"].is_null());
  EXPECT_TRUE(m["ipc"].is_null());
}

TEST(PerfEvents, RatiosAndMultiplexingAreRecorded) {
  PerfCounts c;
  c.selected = parse_perf_events({"hardware"});
  c.counted_fraction.fill(1);
  c.value[index_of("llc_loads")] = 1000;
  c.value[index_of("llc_misses")] = 250;
  c.counted_fraction[index_of("llc_misses")] = 0.5;
  c.value[index_of("instructions")] = 3000;
  c.value[index_of("cycles")] = 1500;
  nlohmann::json m;
  add_perf_metrics(m, c, 10);
  EXPECT_DOUBLE_EQ(m["llc_miss_ratio"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(m["llc_misses_per_op"].get<double>(), 25);
  EXPECT_DOUBLE_EQ(m["instructions_per_op"].get<double>(), 300);
  EXPECT_DOUBLE_EQ(m["cycles_per_op"].get<double>(), 150);
  EXPECT_DOUBLE_EQ(m["ipc"].get<double>(), 2);
  EXPECT_DOUBLE_EQ(m["perf_counted_fraction"]["llc_misses"].get<double>(), 0.5);
}

TEST(PerfEvents, SummingThreadsKeepsNullsAndTheirReason) {
  PerfCounts a, b;
  a.counted_fraction.fill(1);
  b.counted_fraction.fill(0.5);
  a.value[kFaults] = 10;
  b.value[kFaults] = 5;
  a.value[kSwitches] = 3;
  b.reason[kSwitches] = "refused";
  a += b;
  EXPECT_DOUBLE_EQ(*a.value[kFaults], 15);
  EXPECT_FALSE(a.value[kSwitches].has_value());
  EXPECT_EQ(a.reason[kSwitches], "refused");
  EXPECT_DOUBLE_EQ(a.counted_fraction[kFaults], 0.5);
}

TEST(PerfEvents, SelectionWords) {
  const PerfEventSet sw = parse_perf_events({"software"});
  EXPECT_TRUE(sw[kFaults] && sw[kSwitches]);
  EXPECT_FALSE(wants_hardware(sw));
  EXPECT_TRUE(wants_hardware(parse_perf_events({"all"})));
  const PerfEventSet named = parse_perf_events({"LLC-load-misses", "page_faults"});
  EXPECT_TRUE(named[index_of("llc_misses")] && named[kFaults]);
  EXPECT_FALSE(named[index_of("llc_loads")]);
  try {
    parse_perf_events({"cache-misses"});
    FAIL() << "an unknown event was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("page_faults"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_perf_events({""}), UsageError);
}

}  // namespace
}  // namespace pmemids
