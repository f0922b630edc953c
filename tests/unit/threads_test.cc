// The thread machinery around the structures: worker crews (barrier, duration,
// timeline, failure), pinning and NUMA placement, lock kinds per mode, and the
// parallel mode's independent instances.
#include <fmt/format.h>
#include <numa.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <thread>

#include "ds/hashtable.h"
#include "run/reopen_check.h"
#include "run/runner.h"
#include "test_support.h"

namespace pmemids::test {
namespace {

// A structure that does nothing: the crew tests measure the machinery only.
struct Nothing {
  bool read(uint64_t, char*) { return true; }
  bool update(uint64_t, const char*) { return true; }
  bool insert(uint64_t, const char*) { return true; }
  bool remove(uint64_t) { return true; }
};

Placement unpinned(int n) { return Placement{.thread_cpus = std::vector<std::vector<int>>(n)}; }

TEST(CrewTest, SetupFinishesEverywhereBeforeAnyWorkStarts) {
  constexpr int n = 3;
  std::atomic<int> set_up{0};
  std::atomic<int> early{0};
  run_crew(
      n, unpinned(n), CrewTiming{}, [&](int) { set_up.fetch_add(1); },
      [&](int, const DriveControl&) {
        if (set_up.load() != n) early.fetch_add(1);
      });
  EXPECT_EQ(early.load(), 0);
}

TEST(CrewTest, DurationStopsCyclicWorkersAndTimelineCoversIt) {
  WorkloadSpec spec;
  spec.recordcount = 10;
  spec.operationcount = 1000;
  const Stream st = generate(spec, 1);
  const Replay replay(st);
  const CrewRun run = run_crew(
      2, unpinned(2), CrewTiming{.duration = 0.2, .timeline_ms = 20}, [](int) {},
      [&](int, const DriveControl& ctl) {
        Nothing ds;
        NoLock none;
        OpTally tally;
        LatencySet latency;
        char buf[8];
        std::vector<Op> scratch(kChunk);
        const DriveEnd end = drive<OpSet::kKv>(
            ds, none, DriveInput{.ops = st.ops, .replay = &replay, .scratch = scratch.data()}, buf,
            8, ctl, tally, latency);
        EXPECT_GT(tally.total(), st.ops.size());  // replayed
        EXPECT_EQ(end.cycles, (tally.total() + st.ops.size() - 1) / st.ops.size());
        EXPECT_FALSE(end.budget_exhausted);
      });
  EXPECT_GE(run.wall_seconds, 0.18);  // workers may start just after the coordinator's clock
  EXPECT_LT(run.wall_seconds, 5.0);
  EXPECT_GE(run.timeline.size(), 5u);
  EXPECT_GT(std::accumulate(run.timeline.begin(), run.timeline.end(), 0.0), 0.0);
}

TEST(CrewTest, AWorkerThatExhaustsItsReplayBudgetStopsTheRun) {
  WorkloadSpec spec;
  spec.recordcount = 10;
  spec.operationcount = 1000;
  const Stream st = generate(spec, 1);
  const Replay replay(st);
  const auto t0 = std::chrono::steady_clock::now();
  run_crew(
      2, unpinned(2), CrewTiming{.duration = 60}, [](int) {},
      [&](int t, const DriveControl& ctl) {
        Nothing ds;
        NoLock none;
        OpTally tally;
        LatencySet latency;
        char buf[8];
        std::vector<Op> scratch(kChunk);
        const DriveInput in{.ops = st.ops,
                            .replay = &replay,
                            .scratch = scratch.data(),
                            .max_cycles = t == 0 ? 3 : kUnboundedCycles};
        const DriveEnd end = drive<OpSet::kKv>(ds, none, in, buf, 8, ctl, tally, latency);
        if (t == 0) {
          EXPECT_EQ(end.cycles, 3u);
          EXPECT_TRUE(end.budget_exhausted);
          EXPECT_EQ(tally.total(), 3 * st.ops.size());
        } else {
          EXPECT_FALSE(end.budget_exhausted);  // stopped by worker 0
        }
      });
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));  // not --duration 60
}

TEST(CrewTest, WorkersReportCpuTimeOfTheirTimedPhaseOnly) {
  const CrewRun run = run_crew(
      2, unpinned(2), CrewTiming{},
      [](int) {  // set-up burns CPU that must not be counted
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
        while (std::chrono::steady_clock::now() < until) {
        }
      },
      [](int, const DriveControl&) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
        while (std::chrono::steady_clock::now() < until) {
        }
      });
  for (int t = 0; t < 2; ++t) {
    const ThreadUsage& u = run.thread_usage[t];
    EXPECT_LE(u.user_seconds + u.system_seconds, run.thread_seconds[t] + 0.02);
    EXPECT_LT(u.user_seconds + u.system_seconds, 0.15);
    EXPECT_TRUE(std::isnan(u.run_delay_seconds) ||
                (u.run_delay_seconds >= 0 && u.run_delay_seconds <= run.thread_seconds[t] + 0.02));
  }
}

// The run-queue wait is read from schedstat's second field; anything else is
// not a reading.
TEST(ThreadUsageTest, RunDelayIsTheSecondSchedstatField) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  const auto reading = [&](const std::string& text) {
    const std::filesystem::path f = dir / fmt::format("pmemids-schedstat-{}", getpid());
    std::ofstream(f) << text;
    const std::optional<uint64_t> v = run_delay_ns(f.c_str());
    std::filesystem::remove(f);
    return v;
  };
  EXPECT_EQ(reading("58347 1234567 9\n"), std::optional<uint64_t>(1234567));
  EXPECT_EQ(reading("1 0 1"), std::optional<uint64_t>(0));
  EXPECT_EQ(reading("1 5 1 7\n"), std::optional<uint64_t>(5));  // a later kernel's extra field
  EXPECT_EQ(reading("1 2\n"), std::nullopt);
  EXPECT_EQ(reading("on-cpu 2 3\n"), std::nullopt);
  EXPECT_EQ(reading(""), std::nullopt);
  EXPECT_EQ(run_delay_ns((dir / "pmemids-no-such-schedstat").c_str()), std::nullopt);
}

// A worker that shares its CPU with another runnable thread for its whole timed
// phase waits for that CPU about half the time: the usage says so.
TEST(ThreadUsageTest, RunDelayCountsTimeAnotherThreadTookFromTheWorker) {
  if (!run_delay_ns("/proc/thread-self/schedstat")) {
    GTEST_SKIP() << "no /proc/thread-self/schedstat (kernel without CONFIG_SCHED_INFO)";
  }
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  int cpu = 0;
  while (!CPU_ISSET(cpu, &allowed)) ++cpu;
  const Placement one{.thread_cpus = {{cpu}}};
  std::atomic<bool> spin{true};
  std::jthread rival([&] {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
    while (spin.load(std::memory_order_relaxed)) {
    }
  });
  const CrewRun run = run_crew(
      1, one, CrewTiming{}, [](int) {},
      [](int, const DriveControl&) {
        const ThreadUsage start = ThreadUsage::now();
        for (ThreadUsage u = start;
             u.user_seconds + u.system_seconds - start.user_seconds - start.system_seconds < 0.2;
             u = ThreadUsage::now()) {
        }
      });
  spin = false;
  const ThreadUsage& u = run.thread_usage[0];
  ASSERT_FALSE(std::isnan(u.run_delay_seconds));
  EXPECT_GT(u.run_delay_seconds, 0.2 * run.thread_seconds[0]);
  EXPECT_LE(u.run_delay_seconds, run.thread_seconds[0] + 0.02);
}

TEST(CrewTest, FailureInSetupIsRethrownWithoutRunningWork) {
  std::atomic<int> worked{0};
  EXPECT_THROW(run_crew(
                   3, unpinned(3), CrewTiming{},
                   [](int t) {
                     if (t == 1) throw RuntimeError("setup failed");
                   },
                   [&](int, const DriveControl&) { worked.fetch_add(1); }),
               RuntimeError);
  EXPECT_EQ(worked.load(), 0);
}

TEST(CrewTest, FailureInWorkStopsTheOthers) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  EXPECT_THROW(run_crew(
                   2, unpinned(2), CrewTiming{}, [](int) {},
                   [&](int t, const DriveControl& ctl) {
                     if (t == 0) throw RuntimeError("worker failed");
                     while (!ctl.stop->load() && Clock::now() - t0 < std::chrono::seconds(20)) {
                       sched_yield();
                     }
                   }),
               RuntimeError);
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(10));
}

TEST(CrewTest, CoordinatorWakesWhenWorkersFinishAndEndsTheLastInterval) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const CrewRun run = run_crew(
      2, unpinned(2), CrewTiming{.timeline_ms = 20000}, [](int) {},
      [](int, const DriveControl& ctl) { ctl.progress->store(1000); });
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(10));
  ASSERT_EQ(run.timeline.size(), 1u);
  EXPECT_GT(run.timeline[0], 2000 / 10.0);  // 2000 ops in well under 10 s, not over 20 s
}

// Status lines while workers publish live latencies: the coordinator reads
// the workers' counters as they write them (TSan checks the thread suites).
TEST(CrewTest, StatusLinesShowProgressAndLiveP99) {
  WorkloadSpec spec;
  spec.recordcount = 10;
  spec.operationcount = 512;
  spec.readproportion = 1;
  spec.updateproportion = 0;
  const Stream st = generate(spec, 1);
  const Replay replay(st);
  std::vector<uint64_t> every(st.ops.size());
  std::iota(every.begin(), every.end(), uint64_t{0});
  std::vector<std::unique_ptr<LiveLatency>> live;
  for (int t = 0; t < 2; ++t) live.push_back(std::make_unique<LiveLatency>(kOpTypes));
  testing::internal::CaptureStderr();
  run_crew(
      2, unpinned(2), CrewTiming{.duration = 0.35, .status_interval = 0.1, .live = &live},
      [](int) {},
      [&](int, const DriveControl& ctl) {
        Nothing ds;
        NoLock none;
        OpTally tally;
        LatencySet latency;
        char buf[8];
        std::vector<Op> scratch(kChunk);
        drive<OpSet::kKv>(
            ds, none,
            DriveInput{
                .ops = st.ops, .samples = every, .replay = &replay, .scratch = scratch.data()},
            buf, 8, ctl, tally, latency);
      });
  const std::string err = testing::internal::GetCapturedStderr();
  size_t lines = 0;
  for (size_t at = 0; (at = err.find("pmemids: status ", at)) != std::string::npos; ++at) ++lines;
  EXPECT_GE(lines, 2u) << err;
  EXPECT_NE(err.find(" current ops/sec; p99 read "), std::string::npos) << err;
  EXPECT_EQ(err.find("p99 update"), std::string::npos) << err;  // no update was sampled
}

// Under a target the schedule holds: operation k is not started before its due
// time, and every sample's intended latency (from its due time) is at least
// its latency (from its start).
TEST(CrewTest, PacedDriveKeepsTheScheduleAndTimesFromDueTimes) {
  using Clock = std::chrono::steady_clock;
  std::vector<Op> ops(40, Op{.key = 1, .value = nullptr, .type = OpType::kRead, .scan_len = 0});
  std::vector<uint64_t> every(ops.size());
  std::iota(every.begin(), every.end(), uint64_t{0});
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> progress{0};
  const DriveControl ctl{.stop = &stop, .progress = &progress, .cyclic = false, .pace_ns = 2e6};
  Nothing ds;
  NoLock none;
  OpTally tally;
  LatencySet latency, intended;
  char buf[8];
  const auto t0 = Clock::now();
  drive_paced<OpSet::kKv>(ds, none, DriveInput{.ops = ops, .samples = every}, buf, 8, ctl, tally,
                          latency, intended);
  EXPECT_GE(Clock::now() - t0, std::chrono::milliseconds(2 * 39));  // the last is due at 39 x 2 ms
  EXPECT_EQ(tally.total(), ops.size());
  EXPECT_EQ(progress.load(), ops.size());
  const auto read = static_cast<size_t>(OpType::kRead);
  ASSERT_EQ(latency[read].count(), ops.size());
  ASSERT_EQ(intended[read].count(), ops.size());
  for (double q : {0.0, 50.0, 90.0, 100.0}) {
    EXPECT_GE(intended[read].percentile(q), latency[read].percentile(q)) << q;
  }
}

// A structure that records the (type, key) of every call, to compare what two
// drives ran.
struct Recorder {
  static constexpr bool kCanScan = false;
  std::vector<std::pair<char, uint64_t>> calls;
  bool read(uint64_t k, char*) { return log('r', k); }
  bool update(uint64_t k, const char*) { return log('u', k); }
  bool insert(uint64_t k, const char*) { return !log('i', k); }
  bool remove(uint64_t k) { return log('d', k); }
  bool log(char type, uint64_t k) {
    calls.emplace_back(type, k);
    return true;
  }
};

// --duration with and without --target: the unthrottled and the paced loop
// run the same replay cycles (each chunk rewritten by the Replay, sampled or
// not), stop at the same budget, and publish every operation as progress.
TEST(DriveTest, PacedAndUnthrottledDrivesReplayTheSameCycles) {
  WorkloadSpec spec;
  spec.recordcount = 20;
  spec.operationcount = 700;  // chunks of 256, 256 and 188
  spec.readproportion = 0.4;
  spec.updateproportion = 0.2;
  spec.insertproportion = 0.3;
  spec.readmodifywriteproportion = 0.1;
  const Stream st = generate(spec, 5);
  const Replay replay(st);
  constexpr uint64_t kCycles = 3;
  std::vector<Op> expected_ops = st.ops;
  for (uint64_t c = 1; c < kCycles; ++c) {
    std::vector<Op> cycle(st.ops.size());
    replay.fill(c, 0, cycle.size(), cycle.data());
    expected_ops.insert(expected_ops.end(), cycle.begin(), cycle.end());
  }
  Recorder expected;
  NoLock none;
  OpTally expected_tally;
  char buf[8];
  execute<OpSet::kKv>(expected, none, expected_ops.data(),
                      expected_ops.data() + expected_ops.size(), buf, 8, expected_tally);
  const std::vector<uint64_t> samples = {0, 3, 255, 256, 300, 699};
  for (const bool paced : {false, true}) {
    SCOPED_TRACE(paced ? "drive_paced" : "drive");
    std::atomic<bool> stop{false};
    std::atomic<uint64_t> progress{0};
    const DriveControl ctl{
        .stop = &stop, .progress = &progress, .cyclic = true, .pace_ns = paced ? 1e3 : 0};
    std::vector<Op> scratch(kChunk);
    const DriveInput in{.ops = st.ops,
                        .samples = samples,
                        .replay = &replay,
                        .scratch = scratch.data(),
                        .max_cycles = kCycles};
    Recorder ds;
    OpTally tally;
    LatencySet latency, intended;
    const DriveEnd end =
        paced ? drive_paced<OpSet::kKv>(ds, none, in, buf, 8, ctl, tally, latency, intended)
              : drive<OpSet::kKv>(ds, none, in, buf, 8, ctl, tally, latency);
    EXPECT_EQ(end.cycles, kCycles);
    EXPECT_TRUE(end.budget_exhausted);
    EXPECT_TRUE(stop.load());
    EXPECT_EQ(progress.load(), expected_ops.size());
    EXPECT_EQ(tally.total(), expected_ops.size());
    EXPECT_TRUE(ds.calls == expected.calls);
    uint64_t sampled = 0;
    for (const auto& h : latency) sampled += h.count();
    EXPECT_EQ(sampled, kCycles * samples.size());
    uint64_t from_due = 0;
    for (const auto& h : intended) from_due += h.count();
    EXPECT_EQ(from_due, paced ? sampled : 0);
  }
}

TEST(PlacementTest, CompactAndScatterPinEachThreadToOneAllowedCpu) {
  const std::vector<int> allowed = current_cpus();
  for (PinPolicy pin : {PinPolicy::kCompact, PinPolicy::kScatter}) {
    const int n = static_cast<int>(allowed.size());
    const Placement p = plan_placement({.pin = pin, .threads = n});
    ASSERT_EQ(p.thread_cpus.size(), allowed.size());
    std::set<int> used;
    for (const auto& cpus : p.thread_cpus) {
      ASSERT_EQ(cpus.size(), 1u);
      used.insert(cpus[0]);
    }
    EXPECT_EQ(used, std::set<int>(allowed.begin(), allowed.end()));
    EXPECT_TRUE(p.warnings.empty());
  }
}

// pin cores: one hardware thread per core (the lowest allowed CPU of each core,
// read from sysfs here), threads beyond the cores wrapping around: SMT unused.
TEST(PlacementTest, CoresPinsOneHardwareThreadPerCoreAndWraps) {
  std::map<std::pair<std::string, std::string>, int> first;  // (package, core) -> lowest CPU
  for (int c : current_cpus()) {
    const auto topo = [c](const char* f) {
      std::ifstream in(fmt::format("/sys/devices/system/cpu/cpu{}/topology/{}", c, f));
      std::string v;
      in >> v;
      return v;
    };
    first.try_emplace({topo("physical_package_id"), topo("core_id")}, c);
  }
  std::set<int> cores;
  for (const auto& [key, cpu] : first) cores.insert(cpu);
  const int n = static_cast<int>(cores.size());
  const Placement p = plan_placement({.pin = PinPolicy::kCores, .threads = 2 * n});
  EXPECT_EQ(p.allowed_cpus, n);
  ASSERT_EQ(p.thread_cpus.size(), static_cast<size_t>(2 * n));
  std::set<int> used;
  for (const auto& cpus : p.thread_cpus) {
    ASSERT_EQ(cpus.size(), 1u);
    used.insert(cpus[0]);
  }
  EXPECT_EQ(used, cores);
  EXPECT_EQ(p.thread_cpus[0], p.thread_cpus[n]);  // wrapped
  ASSERT_EQ(p.warnings.size(), 1u);               // 2n threads on n cores
}

TEST(PlacementTest, AppliedPinningIsVerifiedAndReported) {
  const Placement p = plan_placement({.pin = PinPolicy::kCompact, .threads = 1});
  std::vector<int> got;
  std::thread([&] { got = apply_placement(p, 0); }).join();
  EXPECT_EQ(got, p.thread_cpus[0]);
}

TEST(PlacementTest, MoreThreadsThanCpusIsAWarningWhateverThePinning) {
  const int cpus = static_cast<int>(current_cpus().size());
  for (PinPolicy pin : {PinPolicy::kNone, PinPolicy::kCompact, PinPolicy::kScatter}) {
    const Placement p = plan_placement({.pin = pin, .threads = cpus + 1});
    EXPECT_EQ(p.thread_cpus.size(), static_cast<size_t>(cpus + 1));
    EXPECT_EQ(p.allowed_cpus, cpus);
    ASSERT_EQ(p.warnings.size(), 1u);
    EXPECT_NE(p.warnings[0].find("oversubscribed"), std::string::npos) << p.warnings[0];
    EXPECT_TRUE(plan_placement({.pin = pin, .threads = cpus}).warnings.empty());
  }
}

TEST(PlacementTest, ExistingNodeBindsToItsCpus) {
  if (numa_available() < 0) GTEST_SKIP() << "this process cannot set NUMA policies";
  const int node = numa_nodes().front();
  const Placement p = plan_placement({.cpu_node = node, .mem_node = node, .threads = 2});
  ASSERT_EQ(p.thread_cpus.size(), 2u);
  EXPECT_FALSE(p.thread_cpus[0].empty());
  std::vector<int> got;
  std::thread([&] { got = apply_placement(p, 1); }).join();
  EXPECT_EQ(got, p.thread_cpus[1]);
}

TEST(PlacementTest, MissingNodeIsAUsageErrorNamingTheNodes) {
  const int missing = numa_nodes().back() + 1;
  for (bool cpu : {true, false}) {
    PlacementRequest req{.threads = 1};
    (cpu ? req.cpu_node : req.mem_node) = missing;
    try {
      plan_placement(req);
      ADD_FAILURE() << "node " << missing << " accepted";
    } catch (const UsageError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(cpu ? "--cpu-node" : "--mem-node"), std::string::npos) << msg;
      EXPECT_NE(msg.find("this machine has node"), std::string::npos) << msg;
    }
  }
}

TEST(LockTest, KindsFitTheModesThatHaveTheirMemory) {
  EXPECT_TRUE(lock_fits(LockKind::kPthreadDram, Mode::kDram));
  EXPECT_FALSE(lock_fits(LockKind::kPthreadPmem, Mode::kDram));
  EXPECT_TRUE(lock_fits(LockKind::kPthreadPmem, Mode::kVolatile));
  EXPECT_FALSE(lock_fits(LockKind::kPmemobj, Mode::kVolatile));
  EXPECT_FALSE(lock_fits(LockKind::kRwlockPmemobj, Mode::kVolatile));
  EXPECT_TRUE(lock_fits(LockKind::kRwlockPmemobj, Mode::kTrans));
  EXPECT_EQ(default_lock(Mode::kVolatile), LockKind::kPthreadDram);
  EXPECT_EQ(default_lock(Mode::kPersist), LockKind::kPmemobj);
}

TEST(LockTest, UnfitOrUnknownKindNamesTheAcceptedOnes) {
  try {
    find_lock("pmemobj", Mode::kDram);
    ADD_FAILURE();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("locks that do: pthread-dram, rwlock-dram"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(find_lock("spinlock", Mode::kPersist), UsageError);
  EXPECT_EQ(find_lock("rwlock-pmemobj", Mode::kPersist), LockKind::kRwlockPmemobj);
}

// Parallel instances: one pool per worker, each worker runs the whole stream on
// its own instance, and the per-worker results add up to the totals.
TEST(ParallelTest, InstancesAreIndependentAndResultsAddUp) {
  ScratchDir dir;
  WorkloadSpec spec;
  spec.recordcount = 500;
  spec.operationcount = 2000;
  spec.readproportion = 0.5;
  spec.updateproportion = 0.3;
  spec.insertproportion = 0.2;
  constexpr int n = 3;
  std::vector<Stream> streams;
  for (int t = 0; t < n; ++t) streams.push_back(generate(spec, spec.seed + t));
  RunRequest req{.pool_dir = dir.path(),
                 .keep_pool = true,
                 .spec = &spec,
                 .thread_mode = ThreadMode::kParallel,
                 .threads = n,
                 .placement = unpinned(n)};
  for (const Stream& s : streams) req.feeds.push_back({&s, {0, 7}});
  const RepResult r = run_rep_checked<HashTable, PersistBackend>(req);

  ASSERT_EQ(r.threads.size(), static_cast<size_t>(n));
  uint64_t ops = 0;
  double rate = 0, longest = 0;
  for (const ThreadResult& t : r.threads) {
    EXPECT_EQ(t.ops, spec.operationcount);  // every worker ran the whole workload
    ops += t.ops;
    rate += static_cast<double>(t.ops) / t.seconds;
    longest = std::max(longest, t.seconds);
  }
  EXPECT_EQ(r.tally.total(), ops);
  // Throughput over the common window, which spans every worker's phase; the
  // sum of the workers' own rates is kept apart.
  EXPECT_GE(r.seconds, longest);
  EXPECT_DOUBLE_EQ(r.ops_per_sec, static_cast<double>(ops) / r.seconds);
  EXPECT_DOUBLE_EQ(r.sum_of_rates, rate);
  EXPECT_LE(r.ops_per_sec, r.sum_of_rates * (1 + 1e-12));
  EXPECT_EQ(r.load_ops, n * spec.recordcount);
  uint64_t sampled = 0;
  for (const auto& h : r.latency) sampled += h.count();
  EXPECT_EQ(sampled, 2u * n);  // operations 0 and 7 of every worker's stream

  // Each pool holds exactly its own worker's keys.
  for (int t = 0; t < n; ++t) {
    const auto path =
        std::filesystem::path(dir.path()) / fmt::format("hashtable.pmem-persist.{}.pool", t);
    ASSERT_TRUE(std::filesystem::exists(path)) << path;
    PoolSpec ps = dir.spec("hashtable", Mode::kPersist, /*reopen=*/true);
    ps.instance = t;
    PersistBackend b(ps);
    HashTable<PersistBackend> ds(b, ds_options(req, streams[t]));
    uint64_t inserted = 0;
    for (const Op& op : streams[t].ops) inserted += op.type == OpType::kInsert;
    EXPECT_EQ(ds.check(), spec.recordcount + inserted);
    char buf[128];
    for (uint64_t k : streams[t].load_keys) ASSERT_TRUE(ds.read(k, buf));
  }
}

}  // namespace
}  // namespace pmemids::test
