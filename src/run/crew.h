// Worker threads of one repetition: placement, untimed set-up, a start barrier,
// the timed phase, and the coordinator's duration limit and timeline.
//
// Each worker t: binds itself (apply_placement), runs setup(t) (pool creation,
// loading: never timed), waits at the barrier with every other worker and the
// coordinator, reads the clock, runs work(t, control), reads the clock. The
// coordinator (the calling thread) only sleeps: it wakes every timeline_ms to
// sum the workers' published progress, sets the stop flag when `duration` has
// passed, and is woken as soon as every worker has finished or one failed (the
// last timeline interval ends there). An exception in any worker stops the others at their next
// chunk and is rethrown by run_crew after every thread has joined. SIGINT / SIGTERM
// (util/stop_signals.h) stop the workers the same way, and run_crew throws Interrupted.
#pragma once

#include <sched.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "run/drive.h"
#include "run/placement.h"
#include "util/stop_signals.h"

namespace pmemids {

struct CrewTiming {
  double duration = 0;       // seconds; 0: workers stop when their slice is done
  uint32_t timeline_ms = 0;  // 0: no timeline
};

struct CrewRun {
  std::vector<double> thread_seconds;         // each worker's timed phase
  double wall_seconds = 0;                    // first start to last end
  std::vector<std::vector<int>> thread_cpus;  // CPUs each worker was allowed
  std::vector<int> start_cpu;                 // the CPU each worker started on
  std::vector<double> timeline;               // ops/s per interval, all workers
};

// How often the coordinator looks for a stop signal while workers run.
inline constexpr std::chrono::milliseconds kStopPoll{50};

template <class Setup, class Work>
CrewRun run_crew(int n, const Placement& placement, const CrewTiming& timing, Setup&& setup,
                 Work&& work) {
  using Clock = std::chrono::steady_clock;
  struct alignas(64) Slot {
    std::atomic<uint64_t> progress{0};
    Clock::time_point start, end;
  };
  std::vector<Slot> slots(static_cast<size_t>(n));
  std::atomic<bool> stop{false};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  int finished = 0;  // guarded by mu; the coordinator waits on `wake` for it
  std::mutex mu;
  std::condition_variable wake;
  const auto fail = [&](std::exception_ptr e) {
    const std::lock_guard g(mu);
    if (!error) error = e;
    failed.store(true);
    stop.store(true);
    wake.notify_all();
  };
  const auto finish = [&] {
    const std::lock_guard g(mu);
    ++finished;
    wake.notify_all();
  };
  CrewRun run;
  run.thread_seconds.resize(n);
  run.thread_cpus.resize(n);
  run.start_cpu.resize(n);
  std::barrier start(n + 1);

  std::vector<std::jthread> threads;
  threads.reserve(static_cast<size_t>(n));
  // Declared after `threads`, so destroyed first: whatever happens below, the
  // workers see `stop` before they are joined.
  const auto stop_all = [&](void*) { stop.store(true); };
  const std::unique_ptr<void, decltype(stop_all)> stop_before_join(&stop, stop_all);
  for (int t = 0; t < n; ++t) {
    const auto body = [&, t] {
      try {
        run.thread_cpus[t] = apply_placement(placement, t);
        if (!failed.load()) setup(t);
      } catch (...) {
        fail(std::current_exception());
      }
      start.arrive_and_wait();
      if (!failed.load()) {
        try {
          run.start_cpu[t] = sched_getcpu();
          const DriveControl ctl{&stop, &slots[t].progress, timing.duration > 0};
          slots[t].start = Clock::now();
          work(t, ctl);
          slots[t].end = Clock::now();
        } catch (...) {
          slots[t].end = Clock::now();
          fail(std::current_exception());
        }
      }
      finish();
    };
    try {
      threads.emplace_back(body);
    } catch (...) {  // cannot create thread t: the others must not wait for it
      fail(std::current_exception());
      for (int k = t; k < n; ++k) {
        finish();
        start.arrive_and_drop();
      }
      break;
    }
  }

  start.arrive_and_wait();
  const auto t0 = Clock::now();
  const auto deadline = timing.duration > 0
                            ? t0 + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(timing.duration))
                            : Clock::time_point::max();
  const auto tick = std::chrono::milliseconds(timing.timeline_ms);
  uint64_t before = 0;
  auto last = t0;
  for (auto next = timing.timeline_ms > 0 ? t0 + tick : Clock::time_point::max();;
       next += timing.timeline_ms > 0 ? tick : Clock::duration::zero()) {
    const auto until = std::min(next, deadline);
    bool done;
    {
      // Woken by the workers; every kStopPoll also to notice SIGINT / SIGTERM,
      // which a signal handler cannot deliver through the condition variable.
      std::unique_lock g(mu);
      const auto ended = [&] { return finished == n || failed.load(); };
      for (;;) {
        const auto slice = std::min(until, Clock::now() + kStopPoll);
        done = wake.wait_until(g, slice, ended);
        if (done || slice >= until || stop_requested()) break;
      }
    }
    if (stop_requested()) {
      stop.store(true);
      break;
    }
    if (!done && until >= deadline) stop.store(true);
    if (timing.timeline_ms > 0) {
      uint64_t now_ops = 0;
      for (const Slot& s : slots) now_ops += s.progress.load(std::memory_order_relaxed);
      const auto now = Clock::now();
      const double secs = std::chrono::duration<double>(now - last).count();
      run.timeline.push_back(secs > 0 ? static_cast<double>(now_ops - before) / secs : 0.0);
      before = now_ops;
      last = now;
    }
    if (done || stop.load()) break;
  }
  threads.clear();  // joins
  if (error) std::rethrow_exception(error);
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
