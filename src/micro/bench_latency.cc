// micro latency: load against p-store latency as the cache hit ratio varies
// (seed 002, Figure 3(a): I1).
//
// The region (default: half the detected last-level cache, as the seed's
// artifact used 16 MiB of a 38.5 MB LLC: a whole-LLC region cannot stay cached
// beside the page tables, code and other data, so its hit ratio 1 is never
// reached; split between threads unless --region-sharing shared) is prepared
// before timing, per repetition,
// by the worker that times it (shared: by worker 0, the others wait):
//   1. a random permutation of its lines is drawn; its first kProbeShare of
//      lines are set aside to measure the hit ratio (step 4), the others are
//      the timed lines; for load each timed line's first word holds the offset
//      of the next timed line in that order (a pointer chase: every load
//      depends on the previous one, so loads cannot overlap);
//   2. every line is evicted with clflush, then a full fence;
//   3. exactly round(hit_ratio x lines) lines, a random subset, are loaded
//      again, so that fraction of the timed accesses can hit in the cache;
//   4. the hit ratio the priming achieved is measured on the set-aside lines
//      (a random sample of the region, primed like the rest): a few of them
//      calibrate (each evicted and loaded: a miss, then loaded again: a hit),
//      the others are loaded once each, timed one by one, and count as hits
//      when faster than the calibration's threshold (halfway between the
//      median hit and the median miss): hit_ratio_achieved.
// Timed: each thread visits every timed line of its region once in the
// permutation's order: load follows the chase; pstore stores 8 bytes to the
// line, writes that same line back (the run's instruction; none under eADR)
// and fences. ns_per_op is the mean latency. The prefetchers are recorded as
// found (not controllable here).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <latch>

#include "doctor/probes.h"
#include "errors.h"
#include "micro/bench.h"
#include "micro/harness.h"
#include "micro/kernels.h"
#include "micro/offsets.h"
#include "micro/region.h"

namespace pmemids::micro {
namespace {

// One in kProbeShare lines (at least kMinProbes) measure the achieved hit
// ratio; kCalibration of them calibrate the hit/miss threshold.
constexpr uint64_t kProbeShare = 64, kMinProbes = 256, kCalibration = 64;

struct Prepared {
  std::vector<uint32_t> order;  // the timed lines, in visiting order
  double hit_ratio = 0;         // of the probed lines
  double hit_ns = 0, miss_ns = 0;
};

uint64_t probe_count(uint64_t lines) {
  return std::min(lines / 2, std::max(kMinProbes, lines / kProbeShare));
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// The time of one load of `line`, clock reads included (as the calibration's).
double timed_load(const char* line, uint64_t& sink) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  sink += HwMem::load(line, 8);
  const auto t1 = Clock::now();
  return static_cast<double>(std::chrono::nanoseconds(t1 - t0).count());
}

// Steps 1-4 for one thread's region (run by the worker that will time it, so
// the lines it loads are in its own core's caches).
Prepared prepare(char* b, uint64_t lines, uint64_t touched, uint64_t seed, bool chase) {
  std::vector<uint32_t> order = block_order(Pattern::kRand, lines, lines, seed);
  const uint64_t probes = probe_count(lines);
  std::vector<uint32_t> sample(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(probes));
  order.erase(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(probes));
  const auto at = [b](uint32_t line) { return b + static_cast<uint64_t>(line) * kLine; };
  if (chase) {
    for (uint64_t k = 0; k < order.size(); ++k) {
      const uint64_t next = static_cast<uint64_t>(order[(k + 1) % order.size()]) * kLine;
      std::memcpy(at(order[k]), &next, sizeof next);
    }
  }
  flush_range(FlushInsn::kClflush, b, lines * kLine);
  full_fence();
  uint64_t sink = 0;
  for (uint32_t line : block_order(Pattern::kRand, lines, touched, ~seed)) {
    sink += HwMem::load(at(line), 8);
  }
  Prepared out;
  const uint64_t calib = std::min<uint64_t>(kCalibration, sample.size() / 4);
  std::vector<double> hits, misses;
  for (uint64_t k = 0; k < calib; ++k) {
    flush_range(FlushInsn::kClflush, at(sample[k]), kLine);
    full_fence();
    misses.push_back(timed_load(at(sample[k]), sink));
    hits.push_back(timed_load(at(sample[k]), sink));
  }
  out.hit_ns = median(hits);
  out.miss_ns = median(misses);
  const double threshold = (out.hit_ns + out.miss_ns) / 2;
  uint64_t hit = 0;
  for (uint64_t k = calib; k < sample.size(); ++k)
    hit += timed_load(at(sample[k]), sink) < threshold;
  out.hit_ratio = static_cast<double>(hit) / static_cast<double>(sample.size() - calib);
  asm volatile("" : : "r"(sink));
  out.order = std::move(order);
  return out;
}

// Bytes of each thread's region (shared: the one region): whole lines.
uint64_t thread_region(const BenchEnv& env) {
  const uint64_t total = env.scalars.region;
  const uint64_t region =
      (env.shared ? total : total / static_cast<uint64_t>(env.threads)) / kLine * kLine;
  if (region < kLine) {
    throw UsageError(fmt::format("--region {} leaves less than one line per thread", total));
  }
  return region;
}

// The regions, each region's visiting order (and the order of its loaded
// lines while it is prepared), the samples.
Footprint footprint(const Point& p, const BenchEnv& env) {
  const uint64_t region = thread_region(env);
  const long double regions = env.shared ? 1 : env.threads;
  const uint64_t lines = region / kLine;
  return bench_footprint(p.name("memory"), regions * region, 0,
                         2 * regions * lines * sizeof(uint32_t) + samples_bytes(env, lines));
}

Measurement run(const Point& p, const BenchEnv& env) {
  const bool load = p.name("access") == "load";
  const double hit = p.decimal("hit-ratio");
  const uint64_t total = env.scalars.region;
  const uint64_t region = thread_region(env);
  Region r = Region::of(p.name("memory"), env.pool_dir, region * (env.shared ? 1 : env.threads));
  char* const base = r.data();
  const uint64_t lines = region / kLine;
  if (lines < 8) {
    throw UsageError(fmt::format("--region {}: fewer than 8 lines per thread", total));
  }
  const uint64_t touched = static_cast<uint64_t>(std::llround(hit * static_cast<double>(lines)));
  const uint64_t timed = lines - probe_count(lines);
  const int regions = env.shared ? 1 : env.threads;
  std::vector<Prepared> prepared_regions(static_cast<size_t>(regions));
  std::vector<std::vector<uint64_t>> samples;
  for (int t = 0; t < env.threads; ++t) samples.push_back(thread_samples(env, t, timed));
  std::latch prepared(1);  // shared: thread 0 prepares the one region, the others wait
  HwMem mem{env.policy.insn, env.policy.domain.flushes()};
  Measurement m = measure(
      env, {},
      [&](int t) {
        if (env.shared && t != 0) {
          prepared.wait();
          return;
        }
        prepared_regions[static_cast<size_t>(t)] =
            prepare(base + static_cast<uint64_t>(t) * region, lines, touched,
                    thread_seed(env.seed, env.repetition, t, env.shared), load);
        if (env.shared) prepared.count_down();
      },
      [&](int t, const DriveControl& ctl, ThreadTally& tally) {
        const int k = env.shared ? 0 : t;
        char* const b = base + static_cast<uint64_t>(k) * region;
        const uint32_t* const order = prepared_regions[static_cast<size_t>(k)].order.data();
        if (load) {
          const char* cur = b + static_cast<uint64_t>(order[0]) * kLine;
          timed_loop(timed, samples[t], ctl, tally, [&cur, b](uint64_t) -> uint64_t {
            uint64_t next;
            std::memcpy(&next, cur, sizeof next);
            cur = b + next;
            return next;
          });
        } else {
          timed_loop(timed, samples[t], ctl, tally, [&mem, b, order](uint64_t i) -> uint64_t {
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
  m.config["timed_lines"] = timed;
  m.config["touched_lines"] = touched;
  m.config["region_sharing"] = env.shared ? "shared" : "disjoint";
  // The hit ratio the priming achieved (step 4), over the prepared regions.
  double ratio = 0, hit_ns = 0, miss_ns = 0;
  for (const Prepared& region_probe : prepared_regions) {
    ratio += region_probe.hit_ratio / regions;
    hit_ns += region_probe.hit_ns / regions;
    miss_ns += region_probe.miss_ns / regions;
  }
  m.metrics["hit_ratio_achieved"] = ratio;
  m.metrics["probe_hit_ns"] = hit_ns;
  m.metrics["probe_miss_ns"] = miss_ns;
  return m;
}

}  // namespace

BenchSpec latency_bench() {
  const uint64_t llc = doctor::llc_bytes();
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
      .defaults = {.region = llc > 0 ? llc / 2 : uint64_t{16} << 20, .latency_sample = 0.001},
      .quick = {.region = 8 << 20},
      .footprint = footprint,
      .run = run,
  };
}

}  // namespace pmemids::micro
