// One worker's timed phase: its operations (a stream, or a concurrent slice of
// the workload), in chunks.
//
// Between chunks (every kChunk = 256 operations) the worker publishes its progress
// (one relaxed store, read by the timeline sampler) and checks the stop flag
// (one relaxed load, set when --duration expires, another worker failed or
// exhausted its replay budget). Operations whose index is in `samples` are
// timed one by one, with a clock read before and after, into the
// per-operation-type latency histograms; no other operation reads a clock.
//
// A cyclic drive (--duration) runs the stored operations once, then replay
// cycles 1, 2, ... until stopped, each chunk rewritten by the Replay into the
// worker's scratch buffer before it runs (run/replay.h); after
// `max_cycles` cycles it sets the stop flag itself. A non-cyclic drive runs
// the stored operations once and never touches the scratch buffer.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <span>
#include <stdexcept>

#include "run/execute.h"
#include "run/replay.h"
#include "stats/histogram.h"

namespace pmemids {

using LatencySet = std::array<LatencyHistogram, kOpTypes>;

struct DriveControl {
  std::atomic<bool>* stop;
  std::atomic<uint64_t>* progress;
  bool cyclic;  // replay until stop (--duration)
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

// One pass over `size` operations; chunk(first, n) yields the n operations
// from index `first`. False when stopped.
template <class DS, class Lock, class Chunk>
[[gnu::always_inline]] inline bool drive_pass(DS& ds, Lock& lock, size_t size,
                                              std::span<const uint64_t> samples, char* buf,
                                              uint32_t value_size, const DriveControl& ctl,
                                              OpTally& tally, LatencySet& latency, uint64_t& done,
                                              Chunk&& chunk) {
  using Clock = std::chrono::steady_clock;
  const uint64_t* s = samples.data();
  const uint64_t* const s_end = s + samples.size();
  for (size_t first = 0; first < size;) {
    const size_t n = size - first > kChunk ? kChunk : size - first;
    const Op* const base = chunk(first, n);  // operation `first` is base[0]
    const Op* op = base;
    const Op* const stop = base + n;
    for (; s != s_end && *s < first + n; ++s) {
      const Op* const timed = base + (*s - first);
      execute(ds, lock, op, timed, buf, value_size, tally);
      const auto t0 = Clock::now();
      execute(ds, lock, timed, timed + 1, buf, value_size, tally);
      const auto t1 = Clock::now();
      latency[static_cast<size_t>(timed->type)].record(
          static_cast<uint64_t>(std::chrono::nanoseconds(t1 - t0).count()));
      op = timed + 1;
    }
    execute(ds, lock, op, stop, buf, value_size, tally);
    done += n;
    first += n;
    ctl.progress->store(done, std::memory_order_relaxed);
    if (ctl.stop->load(std::memory_order_relaxed)) return false;
  }
  return true;
}

}  // namespace detail

template <class DS, class Lock>
DriveEnd drive(DS& ds, Lock& lock, const DriveInput& in, char* buf, uint32_t value_size,
               const DriveControl& ctl, OpTally& tally, LatencySet& latency) {
  if (ctl.cyclic && (in.replay == nullptr || in.scratch == nullptr)) {
    throw std::logic_error("a cyclic drive needs a Replay and a scratch chunk");
  }
  const Op* const ops = in.ops.data();
  const size_t size = in.ops.size();
  uint64_t done = 0;
  DriveEnd end;
  bool more = detail::drive_pass(ds, lock, size, in.samples, buf, value_size, ctl, tally, latency,
                                 done, [ops](size_t first, size_t) { return ops + first; });
  while (more && ctl.cyclic && size > 0) {
    if (end.cycles == in.max_cycles) {
      end.budget_exhausted = true;
      ctl.stop->store(true, std::memory_order_relaxed);
      break;
    }
    const uint64_t cycle = end.cycles++;
    more = detail::drive_pass(ds, lock, size, in.samples, buf, value_size, ctl, tally, latency,
                              done, [&](size_t first, size_t n) {
                                in.replay->fill(cycle, first, n, in.scratch);
                                return static_cast<const Op*>(in.scratch);
                              });
  }
  return end;
}

}  // namespace pmemids
