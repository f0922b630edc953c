// One worker's timed phase: its operations (a stream, or a concurrent slice of
// the workload), in chunks.
//
// Between chunks (every kChunk = 256 operations) the worker publishes its progress
// (one relaxed store, read by the timeline sampler) and checks the stop flag
// (one relaxed load, set when --duration expires, another worker failed or
// exhausted its replay budget). Operations whose index is in `samples` are
// timed one by one, with a clock read before and after, into the
// per-operation-type latency histograms; no other operation reads a clock.
// With status lines on, each sample is also published to the worker's
// LiveLatency (a branch in the sampled path only).
//
// A cyclic drive (--duration) runs the stored operations once, then replay
// cycles 1, 2, ... until stopped, each chunk rewritten by the Replay into the
// worker's scratch buffer before it runs (run/replay.h); after
// `max_cycles` cycles it sets the stop flag itself. A non-cyclic drive runs
// the stored operations once and never touches the scratch buffer.
//
// drive_paced is the timed phase under a target rate (--target): operation k
// of the worker is due at start + k * pace; the worker sleeps until then when
// it is early and goes straight on when it is late, so a stall makes the
// operations behind it late instead of quietly moving the schedule (YCSB's
// measurement.interval=intended). Each sampled operation is timed twice: from
// its actual start (latency) and from its due time (intended). Every operation
// reads the clock, publishes progress and checks the stop flag: the run only
// chooses this loop when a target is set, and `drive` stays as it is. An early
// worker sleeps in slices of at most kStopPoll, checking the stop flag between
// them, so a stop (--duration, SIGINT, SIGTERM) ends even a wait for an
// operation due days later. Both
// loops share the cycles (drive_cycles) and the chunk rewriting, so a paced
// --duration run replays exactly as an unthrottled one.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <thread>

#include "run/execute.h"
#include "run/replay.h"
#include "stats/histogram.h"
#include "stats/live_latency.h"
#include "util/stop_signals.h"

namespace pmemids {

using LatencySet = std::array<LatencyHistogram, kOpTypes>;

struct DriveControl {
  std::atomic<bool>* stop;
  std::atomic<uint64_t>* progress;
  bool cyclic;                  // replay until stop (--duration)
  LiveLatency* live = nullptr;  // status lines: publish samples here
  double pace_ns = 0;           // drive_paced: nanoseconds between due times
};

inline constexpr size_t kChunk = 256;

struct DriveInput {
  std::span<const Op> ops;
  std::span<const uint64_t> samples;  // ascending indices into ops
  const Replay* replay = nullptr;     // cyclic drives
  Op* scratch = nullptr;              // kChunk operations (cyclic drives)
  uint64_t max_cycles = kUnboundedCycles;
};

struct DriveEnd {
  uint64_t cycles = 1;            // passes over the operations begun (1: no replay)
  bool budget_exhausted = false;  // stopped after max_cycles
};

namespace detail {

// The passes of a drive: pass(chunk) over the stored operations (chunk
// returns `first` itself), then, when cyclic, once per replay cycle with
// chunk rewriting [first, stop) into the scratch buffer, until a pass reports
// a stop (false) or the budget of max_cycles is spent. chunk(first, stop)
// yields the operations to run for [first, stop).
template <class Pass>
[[gnu::always_inline]] inline DriveEnd drive_cycles(const DriveInput& in, const DriveControl& ctl,
                                                    Pass&& pass) {
  if (ctl.cyclic && (in.replay == nullptr || in.scratch == nullptr)) {
    throw std::logic_error("a cyclic drive needs a Replay and a scratch chunk");
  }
  const Op* const base = in.ops.data();
  DriveEnd end;
  bool more = pass([](const Op* first, const Op*) { return first; });
  while (more && ctl.cyclic && !in.ops.empty()) {
    if (end.cycles == in.max_cycles) {
      end.budget_exhausted = true;
      ctl.stop->store(true, std::memory_order_relaxed);
      break;
    }
    const uint64_t cycle = end.cycles++;
    more = pass([&](const Op* first, const Op* stop) {
      in.replay->fill(cycle, static_cast<size_t>(first - base), static_cast<size_t>(stop - first),
                      in.scratch);
      return static_cast<const Op*>(in.scratch);
    });
  }
  return end;
}

// One pass over the operations [base, end) in chunks; chunk(first, stop)
// yields the operations to run for [first, stop): `first` itself, or a
// replay's rewrite of them. False when stopped.
template <OpSet S, class T, class Lock, class Chunk>
[[gnu::always_inline]] inline bool drive_pass(T& t, Lock& lock, const Op* const base,
                                              const Op* const end,
                                              std::span<const uint64_t> samples, char* buf,
                                              uint32_t value_size, const DriveControl& ctl,
                                              OpTally& tally, LatencySet& latency, uint64_t& done,
                                              Chunk&& chunk) {
  using Clock = std::chrono::steady_clock;
  const uint64_t* s = samples.data();
  const uint64_t* const s_end = s + samples.size();
  for (const Op* op = base; op != end;) {
    const Op* const first = op;
    const Op* const stop = end - op > static_cast<ptrdiff_t>(kChunk) ? op + kChunk : end;
    const Op* const run = chunk(first, stop);
    const Op* next = run;
    for (; s != s_end && base + *s < stop; ++s) {
      const Op* const timed = run + (base + *s - first);
      execute<S>(t, lock, next, timed, buf, value_size, tally);
      const auto t0 = Clock::now();
      execute<S>(t, lock, timed, timed + 1, buf, value_size, tally);
      const auto t1 = Clock::now();
      const auto ns = static_cast<uint64_t>(std::chrono::nanoseconds(t1 - t0).count());
      latency[static_cast<size_t>(timed->type)].record(ns);
      if (ctl.live != nullptr) ctl.live->record(static_cast<int>(timed->type), ns);
      next = timed + 1;
    }
    execute<S>(t, lock, next, run + (stop - first), buf, value_size, tally);
    done += static_cast<uint64_t>(stop - first);
    op = stop;
    ctl.progress->store(done, std::memory_order_relaxed);
    if (ctl.stop->load(std::memory_order_relaxed)) return false;
  }
  return true;
}

// When operation `done` of a paced worker is due: `done` paces after `start`;
// time_point::max() when that is beyond the clock's range (a tiny target,
// whose next operation only a stop can end the wait for).
inline std::chrono::steady_clock::time_point paced_due(std::chrono::steady_clock::time_point start,
                                                       double pace_ns, uint64_t done) {
  const double ns = pace_ns * static_cast<double>(done);
  if (!(ns < 4e18)) return std::chrono::steady_clock::time_point::max();  // 126 years
  return start + std::chrono::nanoseconds(static_cast<int64_t>(ns));
}

// One paced pass over [base, end): chunked as drive_pass (so a replay
// rewrites whole chunks), each operation waiting for its due time; `done`
// counts the worker's operations over all passes, so the schedule runs on
// across cycles. False when stopped.
template <OpSet S, class T, class Lock, class Chunk>
bool paced_pass(T& t, Lock& lock, const Op* const base, const Op* const end,
                std::span<const uint64_t> samples, char* buf, uint32_t value_size,
                const DriveControl& ctl, OpTally& tally, LatencySet& latency, LatencySet& intended,
                std::chrono::steady_clock::time_point start, uint64_t& done, Chunk&& chunk) {
  using Clock = std::chrono::steady_clock;
  const uint64_t* s = samples.data();
  const uint64_t* const s_end = s + samples.size();
  for (const Op* op = base; op != end;) {
    const Op* const first = op;
    const Op* const stop = end - op > static_cast<ptrdiff_t>(kChunk) ? op + kChunk : end;
    const Op* const run = chunk(first, stop);
    for (const Op* at = first; at != stop; ++at) {
      const auto due = paced_due(start, ctl.pace_ns, done);
      for (auto now = Clock::now(); now < due; now = Clock::now()) {
        if (ctl.stop->load(std::memory_order_relaxed)) return false;
        std::this_thread::sleep_until(std::min(due, now + kStopPoll));
      }
      const Op* const o = run + (at - first);
      if (s != s_end && base + *s == at) {
        ++s;
        const auto t0 = Clock::now();
        execute<S>(t, lock, o, o + 1, buf, value_size, tally);
        const auto t1 = Clock::now();
        const auto type = static_cast<size_t>(o->type);
        latency[type].record(static_cast<uint64_t>(std::chrono::nanoseconds(t1 - t0).count()));
        const auto late = static_cast<uint64_t>(std::chrono::nanoseconds(t1 - due).count());
        intended[type].record(late);
        if (ctl.live != nullptr) ctl.live->record(static_cast<int>(type), late);
      } else {
        execute<S>(t, lock, o, o + 1, buf, value_size, tally);
      }
      ctl.progress->store(++done, std::memory_order_relaxed);
      if (ctl.stop->load(std::memory_order_relaxed)) return false;
    }
    op = stop;
  }
  return true;
}

}  // namespace detail

// `t` is the structure or this worker's handle of it (run/runner.h); S its
// operation set.
template <OpSet S, class T, class Lock>
DriveEnd drive(T& t, Lock& lock, const DriveInput& in, char* buf, uint32_t value_size,
               const DriveControl& ctl, OpTally& tally, LatencySet& latency) {
  const Op* const base = in.ops.data();
  const Op* const last = base + in.ops.size();
  uint64_t done = 0;
  return detail::drive_cycles(in, ctl, [&](auto&& chunk) [[gnu::always_inline]] {
    return detail::drive_pass<S>(t, lock, base, last, in.samples, buf, value_size, ctl, tally,
                                 latency, done, chunk);
  });
}

template <OpSet S, class T, class Lock>
DriveEnd drive_paced(T& t, Lock& lock, const DriveInput& in, char* buf, uint32_t value_size,
                     const DriveControl& ctl, OpTally& tally, LatencySet& latency,
                     LatencySet& intended) {
  const Op* const base = in.ops.data();
  const Op* const last = base + in.ops.size();
  const auto start = std::chrono::steady_clock::now();
  uint64_t done = 0;
  return detail::drive_cycles(in, ctl, [&](auto&& chunk) {
    return detail::paced_pass<S>(t, lock, base, last, in.samples, buf, value_size, ctl, tally,
                                 latency, intended, start, done, chunk);
  });
}

}  // namespace pmemids
