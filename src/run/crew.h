// Worker threads of one repetition: placement, untimed set-up, a start barrier,
// the timed phase, and the coordinator's duration limit and timeline.
//
// Each worker t: binds itself (apply_placement), runs setup(t) (pool creation,
// loading: never timed), waits at the barrier with every other worker and the
// coordinator, reads its CPU usage (run/thread_usage.h) and the clock,
// runs work(t, control), reads the clock and its CPU usage again. The
// coordinator (the calling thread) only sleeps: it wakes every timeline_ms to
// sum the workers' published progress, every status_interval to print a status
// line on stderr (elapsed time, operations done, current ops/sec and, with
// live latencies, the current p99 per operation type), sets the stop flag when
// `duration` has passed, and is woken as soon as every worker has finished or
// one failed (the last timeline interval ends there). With timing.counters, each
// worker opens its counters after set-up, starts them right after the barrier and
// stops them right after its timed phase (counters/crew_counters.h): outside its
// clock reads, around nothing else. An exception in any worker stops the others
// at their next chunk and is rethrown by run_crew after every thread has joined. SIGINT / SIGTERM
// (util/stop_signals.h) stop the workers the same way, and run_crew throws Interrupted.
//
// The common window of a run is from the first worker's start (the first
// clock read after the barrier released them) to the last worker's end. A
// status line counts the same way: elapsed time from the barrier's release,
// and current ops/sec as every worker's operations in the interval over the
// interval's wall time (never a sum of per-worker rates).
#pragma once

#include <fmt/format.h>
#include <sched.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "counters/crew_counters.h"
#include "host/placement.h"
#include "run/drive.h"
#include "run/thread_usage.h"
#include "util/stop_signals.h"

namespace pmemids {

struct CrewTiming {
  double duration = 0;               // seconds; 0: workers stop when their slice is done
  uint32_t timeline_ms = 0;          // 0: no timeline
  double status_interval = 0;        // seconds between status lines; 0: none
  double target = 0;                 // ops/s of all workers together; 0: unthrottled
  CrewCounters* counters = nullptr;  // what the workers count; null: nothing
  // One per worker when status lines show latencies (set by the runner), else null.
  const std::vector<std::unique_ptr<LiveLatency>>* live = nullptr;
};

// "pmemids: status 2.0 s: 41234 operations; 20617.0 current ops/sec; p99 read 1.2 us"
std::string status_line(double elapsed, uint64_t ops, double ops_per_sec,
                        const LiveLatency::Snapshot* interval);

struct CrewRun {
  std::vector<double> thread_seconds;         // each worker's timed phase
  std::vector<ThreadUsage> thread_usage;      // ... its CPU time and context switches
  double wall_seconds = 0;                    // the common window: first start to last end
  std::vector<std::vector<int>> thread_cpus;  // CPUs each worker was allowed
  std::vector<int> start_cpu;                 // the CPU each worker started on
  std::vector<double> timeline;               // ops/s per interval, all workers
};

// What the workers and the coordinator share.
struct CrewSync {
  std::atomic<bool> stop{false};    // the workers stop at their next chunk
  std::atomic<bool> failed{false};  // a worker failed: `error` holds the first exception
  std::exception_ptr error;         // guarded by mu
  int finished = 0;                 // workers done; guarded by mu
  std::mutex mu;
  std::condition_variable wake;  // the coordinator waits on it for `finished` or `failed`

  // A worker failed with `e`: the first failure is kept, every worker stops.
  void fail(std::exception_ptr e);
  // A worker is done (or will never start).
  void finish();
};

// One worker's progress (published for the coordinator) and timed phase.
struct alignas(64) CrewSlot {
  std::atomic<uint64_t> progress{0};
  std::chrono::steady_clock::time_point start, end;
};

// The coordinator (crew.cc), from the barrier's release until the n workers
// are done, one fails, timing.duration passes or a stop is requested (then it
// sets sync.stop): it only sleeps, waking for the timeline (appended to
// `timeline`) and the status lines.
void coordinate(int n, const CrewTiming& timing, const std::vector<CrewSlot>& slots, CrewSync& sync,
                std::vector<double>& timeline);

template <class Setup, class Work>
CrewRun run_crew(int n, const Placement& placement, const CrewTiming& timing, Setup&& setup,
                 Work&& work) {
  using Clock = std::chrono::steady_clock;
  std::vector<CrewSlot> slots(static_cast<size_t>(n));
  CrewSync sync;
  CrewRun run;
  run.thread_seconds.resize(n);
  run.thread_usage.resize(n);
  run.thread_cpus.resize(n);
  run.start_cpu.resize(n);
  std::barrier start(n + 1);

  std::vector<std::jthread> threads;
  threads.reserve(static_cast<size_t>(n));
  // Declared after `threads`, so destroyed first: whatever happens below, the
  // workers see `stop` before they are joined.
  const auto stop_all = [&](void*) { sync.stop.store(true); };
  const std::unique_ptr<void, decltype(stop_all)> stop_before_join(&sync.stop, stop_all);
  for (int t = 0; t < n; ++t) {
    const auto body = [&, t] {
      try {
        run.thread_cpus[t] = apply_placement(placement, t);
        if (!sync.failed.load()) setup(t);
        if (timing.counters != nullptr) timing.counters->open(t);
      } catch (...) {
        sync.fail(std::current_exception());
      }
      start.arrive_and_wait();
      if (!sync.failed.load()) {
        try {
          run.start_cpu[t] = sched_getcpu();
          const DriveControl ctl{.stop = &sync.stop,
                                 .progress = &slots[t].progress,
                                 .cyclic = timing.duration > 0,
                                 .live = timing.live != nullptr ? (*timing.live)[t].get() : nullptr,
                                 .pace_ns = timing.target > 0 ? 1e9 * n / timing.target : 0};
          const ThreadUsage before = ThreadUsage::now();
          if (timing.counters != nullptr) timing.counters->begin(t);
          slots[t].start = Clock::now();
          work(t, ctl);
          slots[t].end = Clock::now();
          if (timing.counters != nullptr) timing.counters->end(t);
          run.thread_usage[t] = ThreadUsage::now();
          run.thread_usage[t] -= before;
        } catch (...) {
          slots[t].end = Clock::now();
          sync.fail(std::current_exception());
        }
      }
      sync.finish();
    };
    try {
      threads.emplace_back(body);
    } catch (...) {  // cannot create thread t: the others must not wait for it
      sync.fail(std::current_exception());
      for (int k = t; k < n; ++k) {
        sync.finish();
        start.arrive_and_drop();
      }
      break;
    }
  }

  start.arrive_and_wait();
  coordinate(n, timing, slots, sync, run.timeline);
  threads.clear();  // joins
  if (sync.error) std::rethrow_exception(sync.error);
  throw_if_stopped();

  Clock::time_point first = slots[0].start, last_end = slots[0].end;
  for (int t = 0; t < n; ++t) {
    run.thread_seconds[t] = std::chrono::duration<double>(slots[t].end - slots[t].start).count();
    first = std::min(first, slots[t].start);
    last_end = std::max(last_end, slots[t].end);
  }
  run.wall_seconds = std::chrono::duration<double>(last_end - first).count();
  return run;
}

}  // namespace pmemids
