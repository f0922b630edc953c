// One worker's timed phase: its slice of the operation stream, in chunks.
//
// Between chunks (every kChunk = 256 operations) the worker publishes its progress
// (one relaxed store, read by the timeline sampler) and checks the stop flag
// (one relaxed load, set when --duration expires or another worker failed).
// Operations whose index is in `samples` are timed one by one, with a clock read
// before and after, into the per-operation-type latency histograms; no other
// operation reads a clock. A cyclic drive replays the slice until stopped.
// With status lines on, each sample is also published to the worker's
// LiveLatency (a branch in the sampled path only).
//
// drive_paced is the timed phase under a target rate (--target): operation k
// of the worker is due at start + k * pace; the worker sleeps until then when
// it is early and goes straight on when it is late, so a stall makes the
// operations behind it late instead of quietly moving the schedule (YCSB's
// measurement.interval=intended). Each sampled operation is timed twice: from
// its actual start (latency) and from its due time (intended). Every operation
// reads the clock, progress and the stop flag: the run only chooses this loop
// when a target is set, and `drive` stays as it is.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <span>
#include <thread>

#include "run/execute.h"
#include "stats/histogram.h"
#include "stats/live_latency.h"

namespace pmemids {

using LatencySet = std::array<LatencyHistogram, kOpTypes>;

struct DriveControl {
  const std::atomic<bool>* stop;
  std::atomic<uint64_t>* progress;
  bool cyclic;                  // replay the slice until stop (--duration)
  LiveLatency* live = nullptr;  // status lines: publish samples here
  double pace_ns = 0;           // drive_paced: nanoseconds between due times
};

inline constexpr size_t kChunk = 256;

// `samples` holds ascending indices into `ops`.
template <class DS, class Lock>
void drive(DS& ds, Lock& lock, std::span<const Op> ops, std::span<const uint64_t> samples,
           char* buf, uint32_t value_size, const DriveControl& ctl, OpTally& tally,
           LatencySet& latency) {
  using Clock = std::chrono::steady_clock;
  uint64_t done = 0;
  do {
    const Op* const base = ops.data();
    const Op* const end = base + ops.size();
    const uint64_t* s = samples.data();
    const uint64_t* const s_end = s + samples.size();
    for (const Op* op = base; op != end;) {
      const Op* const first = op;
      const Op* const stop = end - op > static_cast<ptrdiff_t>(kChunk) ? op + kChunk : end;
      for (; s != s_end && base + *s < stop; ++s) {
        const Op* const timed = base + *s;
        execute(ds, lock, op, timed, buf, value_size, tally);
        const auto t0 = Clock::now();
        execute(ds, lock, timed, timed + 1, buf, value_size, tally);
        const auto t1 = Clock::now();
        const auto ns = static_cast<uint64_t>(std::chrono::nanoseconds(t1 - t0).count());
        latency[static_cast<size_t>(timed->type)].record(ns);
        if (ctl.live != nullptr) ctl.live->record(static_cast<int>(timed->type), ns);
        op = timed + 1;
      }
      execute(ds, lock, op, stop, buf, value_size, tally);
      done += static_cast<uint64_t>(stop - first);
      op = stop;
      ctl.progress->store(done, std::memory_order_relaxed);
      if (ctl.stop->load(std::memory_order_relaxed)) return;
    }
  } while (ctl.cyclic && !ops.empty());
}

template <class DS, class Lock>
void drive_paced(DS& ds, Lock& lock, std::span<const Op> ops, std::span<const uint64_t> samples,
                 char* buf, uint32_t value_size, const DriveControl& ctl, OpTally& tally,
                 LatencySet& latency, LatencySet& intended) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const std::chrono::duration<double, std::nano> pace(ctl.pace_ns);
  uint64_t done = 0;
  do {
    const uint64_t* s = samples.data();
    const uint64_t* const s_end = s + samples.size();
    for (size_t i = 0; i < ops.size(); ++i) {
      const auto due =
          start + std::chrono::duration_cast<Clock::duration>(pace * static_cast<double>(done));
      if (Clock::now() < due) std::this_thread::sleep_until(due);
      const Op* const op = &ops[i];
      if (s != s_end && *s == i) {
        ++s;
        const auto t0 = Clock::now();
        execute(ds, lock, op, op + 1, buf, value_size, tally);
        const auto t1 = Clock::now();
        const auto type = static_cast<size_t>(op->type);
        latency[type].record(static_cast<uint64_t>(std::chrono::nanoseconds(t1 - t0).count()));
        const auto late = static_cast<uint64_t>(std::chrono::nanoseconds(t1 - due).count());
        intended[type].record(late);
        if (ctl.live != nullptr) ctl.live->record(static_cast<int>(type), late);
      } else {
        execute(ds, lock, op, op + 1, buf, value_size, tally);
      }
      ctl.progress->store(++done, std::memory_order_relaxed);
      if (ctl.stop->load(std::memory_order_relaxed)) return;
    }
  } while (ctl.cyclic && !ops.empty());
}

}  // namespace pmemids
