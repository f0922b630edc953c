// The timed phase of every micro bench: placed workers, untimed set-up, a start
// barrier, each worker's loop over pre-decided operations, one common window.
//
// timed_loop(n, samples, ctl, tally, op) calls op(i) for i = 0 .. n-1 (again and
// again while ctl.cyclic, until ctl.stop), summing what op returns into
// tally.sink so the compiler cannot drop loads. Every kChunk operations it
// publishes progress and checks the stop flag (one relaxed store and load). The
// operations whose index is in `samples` (ascending, drawn before timing) are
// timed one by one with a clock read before and after, into tally.latency; no
// other operation reads a clock, allocates, locks or builds a string.
//
// measure(env, timing, setup, work) runs setup(t) in each placed worker before
// the barrier, then work(t, ctl, tally) timed; the window runs from the first
// worker's start to the last worker's end (run_crew).
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "micro/bench.h"
#include "run/crew.h"
#include "stats/histogram.h"

namespace pmemids::micro {

struct ThreadTally {
  uint64_t ops = 0;
  uint64_t sink = 0;
  LatencyHistogram latency;
};

// Median cost of two back-to-back clock reads, measured once per process.
double timer_overhead_ns();

// Sampled indices of a thread's n operations (rate env.scalars.latency_sample).
std::vector<uint64_t> thread_samples(const BenchEnv& env, int t, uint64_t n);

template <class Op>
void timed_loop(uint64_t n, std::span<const uint64_t> samples, const DriveControl& ctl,
                ThreadTally& tally, Op&& op) {
  using Clock = std::chrono::steady_clock;
  uint64_t done = 0, acc = 0;
  do {
    const uint64_t* s = samples.data();
    const uint64_t* const s_end = s + samples.size();
    for (uint64_t i = 0; i < n;) {
      const uint64_t stop = n - i > kChunk ? i + kChunk : n;
      const uint64_t first = i;
      for (; s != s_end && *s < stop; ++s) {
        for (; i < *s; ++i) acc += op(i);
        const auto t0 = Clock::now();
        acc += op(i);
        const auto t1 = Clock::now();
        tally.latency.record(static_cast<uint64_t>(std::chrono::nanoseconds(t1 - t0).count()));
        ++i;
      }
      for (; i < stop; ++i) acc += op(i);
      done += stop - first;
      ctl.progress->store(done, std::memory_order_relaxed);
      if (ctl.stop->load(std::memory_order_relaxed)) {
        tally.ops = done;
        tally.sink = acc;
        return;
      }
    }
  } while (ctl.cyclic && n != 0);
  tally.ops = done;
  tally.sink = acc;
}

template <class Setup, class Work>
Measurement measure(const BenchEnv& env, const CrewTiming& timing, Setup&& setup, Work&& work) {
  std::vector<ThreadTally> tallies(static_cast<size_t>(env.threads));
  const CrewRun run = run_crew(env.threads, env.placement, timing, setup,
                               [&](int t, const DriveControl& ctl) { work(t, ctl, tallies[t]); });
  Measurement m;
  m.seconds = run.wall_seconds;
  m.thread_seconds = run.thread_seconds;
  m.thread_cpus = run.thread_cpus;
  m.start_cpu = run.start_cpu;
  m.thread_usage = run.thread_usage;
  for (const ThreadTally& t : tallies) {
    m.ops += t.ops;
    m.thread_ops.push_back(t.ops);
    m.latency.merge(t.latency);
    m.sink += t.sink;
  }
  return m;
}

}  // namespace pmemids::micro
