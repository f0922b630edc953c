// micro latency: load against p-store latency as the cache hit ratio varies
// (seed 002, Figure 3(a): I1).
//
// The region (default: the detected last-level cache, split between threads
// unless --region-sharing shared) is prepared before timing, per repetition,
// by the worker that times it (shared: by worker 0, the others wait):
//   1. a random permutation of its lines is drawn; for load each line's first
//      word holds the offset of the next line in that order (a pointer chase:
//      every load depends on the previous one, so loads cannot overlap);
//   2. every line is evicted with clflush, then a store fence;
//   3. exactly round(hit_ratio x lines) lines, a random subset, are loaded
//      again, so that fraction of the timed accesses can hit in the cache.
// Timed: each thread visits every line of its region once in the permutation's
// order: load follows the chase; pstore stores 8 bytes to the line, writes that
// same line back (the run's instruction; none under eADR) and fences. ns_per_op
// is the mean latency. The hit ratio achieved is not measured (no hardware
// counters); the prefetchers are recorded as found (not controllable here).
#include <fmt/format.h>

#include <cmath>
#include <latch>

#include "errors.h"
#include "micro/bench.h"
#include "micro/harness.h"
#include "micro/kernels.h"
#include "micro/offsets.h"
#include "micro/region.h"

namespace pmemids::micro {
namespace {

// Steps 1-3 for one thread's region (run by the worker that will time it, so
// the lines it loads are in its own core's caches).
std::vector<uint32_t> prepare(char* b, uint64_t lines, uint64_t touched, uint64_t seed,
                              bool chase) {
  std::vector<uint32_t> order = block_order(Pattern::kRand, lines, lines, seed);
  if (chase) {
    for (uint64_t k = 0; k < lines; ++k) {
      const uint64_t next = static_cast<uint64_t>(order[(k + 1) % lines]) * kLine;
      std::memcpy(b + static_cast<uint64_t>(order[k]) * kLine, &next, sizeof next);
    }
  }
  flush_range(FlushInsn::kClflush, b, lines * kLine);
  store_fence();
  uint64_t sink = 0;
  for (uint32_t line : block_order(Pattern::kRand, lines, touched, ~seed)) {
    sink += HwMem::load(b + static_cast<uint64_t>(line) * kLine, 8);
  }
  asm volatile("" : : "r"(sink));
  return order;
}

Measurement run(const Point& p, const BenchEnv& env) {
  const bool load = p.name("access") == "load";
  const double hit = p.decimal("hit-ratio");
  const uint64_t total = env.scalars.region;
  const uint64_t region =
      (env.shared ? total : total / static_cast<uint64_t>(env.threads)) / kLine * kLine;
  if (region < kLine) {
    throw UsageError(fmt::format("--region {} leaves less than one line per thread", total));
  }
  Region r = Region::of(p.name("memory"), env.pool_dir, region * (env.shared ? 1 : env.threads));
  char* const base = r.data();
  const uint64_t lines = region / kLine;
  const uint64_t touched = static_cast<uint64_t>(std::llround(hit * static_cast<double>(lines)));
  const int regions = env.shared ? 1 : env.threads;
  std::vector<std::vector<uint32_t>> orders(static_cast<size_t>(regions));
  std::vector<std::vector<uint64_t>> samples;
  for (int t = 0; t < env.threads; ++t) samples.push_back(thread_samples(env, t, lines));
  std::latch prepared(1);  // shared: thread 0 prepares the one region, the others wait
  HwMem mem{env.policy.insn, env.policy.domain.flushes()};
  Measurement m = measure(
      env, {},
      [&](int t) {
        if (env.shared && t != 0) {
          prepared.wait();
          return;
        }
        orders[static_cast<size_t>(t)] =
            prepare(base + static_cast<uint64_t>(t) * region, lines, touched,
                    thread_seed(env.seed, env.repetition, t, env.shared), load);
        if (env.shared) prepared.count_down();
      },
      [&](int t, const DriveControl& ctl, ThreadTally& tally) {
        const int k = env.shared ? 0 : t;
        char* const b = base + static_cast<uint64_t>(k) * region;
        const uint32_t* const order = orders[static_cast<size_t>(k)].data();
        if (load) {
          const char* cur = b + static_cast<uint64_t>(order[0]) * kLine;
          timed_loop(lines, samples[t], ctl, tally, [&cur, b](uint64_t) -> uint64_t {
            uint64_t next;
            std::memcpy(&next, cur, sizeof next);
            cur = b + next;
            return next;
          });
        } else {
          timed_loop(lines, samples[t], ctl, tally, [&mem, b, order](uint64_t i) -> uint64_t {
            char* const line = b + static_cast<uint64_t>(order[i]) * kLine;
            mem.store(line, 8, i + 1);
            mem.flush(line, 8);
            mem.fence();
            return 0;
          });
        }
      });
  m.flushes = !load && env.policy.domain.flushes() ? m.ops : 0;
  m.fences = load ? 0 : m.ops;
  m.counted_by = "pmemids";
  m.config = r.describe();
  m.config["region_bytes"] = region;
  m.config["region_total_bytes"] = total;
  m.config["lines"] = lines;
  m.config["touched_lines"] = touched;
  m.config["llc_bytes"] = llc_bytes() > 0 ? nlohmann::json(llc_bytes()) : nlohmann::json();
  m.config["hit_ratio_achieved"] = nullptr;  // needs LLC-miss counters
  m.config["region_sharing"] = env.shared ? "shared" : "disjoint";
  return m;
}

}  // namespace

BenchSpec latency_bench() {
  const uint64_t llc = llc_bytes();
  return {
      .name = "latency",
      .summary = "Load (pointer chase) against p-store latency as the LLC hit ratio varies",
      .seeds = "seed 002 Figure 3(a) (I1); seed 001 Figure 4",
      .axes = {{.name = "access",
                .names = {"load", "pstore"},
                .def = "load,pstore",
                .quick = "load,pstore",
                .help = "Dependent loads, or store + write-back of the same line + fence"},
               {.name = "hit-ratio",
                .kind = AxisKind::kDecimal,
                .min = 0,
                .max = 1,
                .def = "0:0.1:1",
                .quick = "0,1",
                .help = "Fraction of the region's lines loaded into the cache before timing"},
               {.name = "memory",
                .names = {"pmem", "dram"},
                .def = "pmem",
                .quick = "pmem",
                .help = "A file in the pool directory, or anonymous DRAM (the seeds' control)"},
               sharing_axis(),
               threads_axis()},
      .defaults = {.region = llc > 0 ? llc : uint64_t{32} << 20, .latency_sample = 0.001},
      .quick = {.region = 8 << 20},
      .run = run,
  };
}

}  // namespace pmemids::micro
