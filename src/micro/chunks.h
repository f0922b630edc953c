// The shared machinery of the benches that apply one operation to one chunk of
// memory at a time (persist, store, copy, bandwidth, rmw).
//
// chunk_plan() sizes each thread's region: `blocks` chunks of `size` bytes, at
// most --region bytes and (for a fixed operation count) no more chunks than
// operations, so every operation of a short run gets a fresh chunk as in the
// seeds; at least one chunk. run_chunks() maps the region (or takes the
// caller's), draws every thread's chunk order and latency samples before
// timing, runs op(chunk, i) over it (a fixed count, or cyclically for
// --duration after an untimed --ramp), and returns the measurement with the
// region's description and the plan in m.config. lines_touched() counts the
// cache lines the operations each thread completed covered (for flush counts).
// chunk_footprint() is what the plan needs, for the check before anything runs.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "micro/harness.h"
#include "micro/kernels.h"
#include "micro/offsets.h"
#include "micro/region.h"

namespace pmemids::micro {

struct ChunkPlan {
  uint64_t size = 0;  // bytes per operation
  Pattern pattern = Pattern::kSeq;
  uint64_t ops = 0;           // per thread and pass (cyclic runs replay them)
  uint64_t blocks = 0;        // chunks in a thread's region
  uint64_t region_bytes = 0;  // a thread's region, page-rounded
  bool cyclic = false;        // --duration: replay until the window ends
};

// ops == 0: one pass over the region per cycle (duration runs).
ChunkPlan chunk_plan(const BenchEnv& env, uint64_t size, Pattern p, uint64_t ops);

// Bytes to map for all threads.
inline uint64_t plan_bytes(const BenchEnv& env, const ChunkPlan& plan) {
  return plan.region_bytes * static_cast<uint64_t>(env.shared ? 1 : env.threads);
}

struct ChunkOrders {
  std::vector<std::vector<uint32_t>> order;    // per thread (one when shared)
  std::vector<std::vector<uint64_t>> samples;  // per thread
  const std::vector<uint32_t>& of(int t) const { return order[order.size() == 1 ? 0 : t]; }
};

ChunkOrders draw_orders(const BenchEnv& env, const ChunkPlan& plan);

// What a repetition over `plan` maps and allocates: the region of `memory`
// ("dram", or a file in the pool directory), the orders and the samples.
Footprint chunk_footprint(const BenchEnv& env, const ChunkPlan& plan, std::string_view memory);

uint64_t lines_touched(const BenchEnv& env, const ChunkPlan& plan, const ChunkOrders& orders,
                       const char* base, const Measurement& m);

nlohmann::json plan_json(const BenchEnv& env, const ChunkPlan& plan, const Region& r);

// op(char* chunk, uint64_t i) -> uint64_t (consumed).
template <class Op>
Measurement run_chunks(const BenchEnv& env, const ChunkPlan& plan, const ChunkOrders& orders,
                       char* base, Op&& op) {
  const auto chunk_of = [&](int t) {
    return base + thread_region_offset(env.shared, t, plan.region_bytes);
  };
  const auto ramp = [&](int t) {
    if (env.scalars.ramp <= 0 || !plan.cyclic) return;
    using Clock = std::chrono::steady_clock;
    const auto end = Clock::now() + std::chrono::duration<double>(env.scalars.ramp);
    const std::vector<uint32_t>& order = orders.of(t);
    char* const b = chunk_of(t);
    uint64_t acc = 0;
    for (uint64_t i = 0; Clock::now() < end;) {
      for (uint64_t k = 0; k < kChunk; ++k, i = i + 1 == order.size() ? 0 : i + 1) {
        acc += op(b + order[i] * plan.size, i);
      }
    }
    asm volatile("" : : "r"(acc));
  };
  Measurement m =
      measure(env, {.duration = plan.cyclic ? env.scalars.duration : 0, .timeline_ms = 0}, ramp,
              [&](int t, const DriveControl& ctl, ThreadTally& tally) {
                const uint32_t* const order = orders.of(t).data();
                char* const b = chunk_of(t);
                const uint64_t size = plan.size;
                timed_loop(orders.of(t).size(), orders.samples[t],
                           DriveControl{ctl.stop, ctl.progress, plan.cyclic}, tally,
                           [&](uint64_t i) { return op(b + order[i] * size, i); });
              });
  m.bytes = m.ops * plan.size;
  return m;
}

}  // namespace pmemids::micro
