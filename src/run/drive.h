// One worker's timed phase: its slice of the operation stream, in chunks.
//
// Between chunks (every kChunk = 256 operations) the worker publishes its progress
// (one relaxed store, read by the timeline sampler) and checks the stop flag
// (one relaxed load, set when --duration expires or another worker failed).
// Operations whose index is in `samples` are timed one by one, with a clock read
// before and after, into the per-operation-type latency histograms; no other
// operation reads a clock. A cyclic drive replays the slice until stopped.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <span>

#include "run/execute.h"
#include "stats/histogram.h"

namespace pmemids {

using LatencySet = std::array<LatencyHistogram, kOpTypes>;

struct DriveControl {
  const std::atomic<bool>* stop;
  std::atomic<uint64_t>* progress;
  bool cyclic;  // replay the slice until stop (--duration)
};

inline constexpr size_t kChunk = 256;

// `samples` holds ascending indices into `ops`. `t` is the structure or this
// worker's handle of it; S its operation set.
template <OpSet S, class T, class Lock>
void drive(T& t, Lock& lock, std::span<const Op> ops, std::span<const uint64_t> samples, char* buf,
           uint32_t value_size, const DriveControl& ctl, OpTally& tally, LatencySet& latency) {
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
        execute<S>(t, lock, op, timed, buf, value_size, tally);
        const auto t0 = Clock::now();
        execute<S>(t, lock, timed, timed + 1, buf, value_size, tally);
        const auto t1 = Clock::now();
        latency[static_cast<size_t>(timed->type)].record(
            static_cast<uint64_t>(std::chrono::nanoseconds(t1 - t0).count()));
        op = timed + 1;
      }
      execute<S>(t, lock, op, stop, buf, value_size, tally);
      done += static_cast<uint64_t>(stop - first);
      op = stop;
      ctl.progress->store(done, std::memory_order_relaxed);
      if (ctl.stop->load(std::memory_order_relaxed)) return;
    }
  } while (ctl.cyclic && !ops.empty());
}

}  // namespace pmemids
