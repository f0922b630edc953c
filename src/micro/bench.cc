#include "micro/bench.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "errors.h"
#include "micro/harness.h"
#include "stats/sampling.h"

namespace pmemids::micro {

const std::vector<BenchSpec>& benches() {
  static const std::vector<BenchSpec> all = {persist_bench(),   store_bench(),   copy_bench(),
                                             bandwidth_bench(), latency_bench(), rmw_bench(),
                                             txlog_bench(),     alloc_bench(),   lock_bench()};
  return all;
}

const BenchSpec& find_bench(std::string_view name) {
  std::string names;
  for (const BenchSpec& b : benches()) {
    if (b.name == name) return b;
    names += (names.empty() ? "" : ", ") + std::string(b.name);
  }
  if (name.empty()) throw UsageError(fmt::format("micro needs a bench; accepted: {}, all", names));
  throw UsageError(fmt::format("unknown micro bench '{}'; accepted: {}, all", name, names));
}

Footprint bench_footprint(std::string_view memory, long double region, long double pool,
                          long double vectors) {
  Footprint f;
  const bool dram = memory == "dram";
  f.memory = saturated(vectors + (dram ? region : 0));
  f.pool_files = saturated((dram ? 0 : region) + pool);
  std::string parts;
  const auto add = [&](long double bytes, std::string_view what) {
    if (bytes > 0) {
      parts +=
          fmt::format("{}{} {}", parts.empty() ? "" : ", ", what, format_bytes(saturated(bytes)));
    }
  };
  add(region, dram ? "region (dram)" : "region (a file in the pool directory)");
  add(pool, "pool");
  add(vectors, "orders and samples");
  f.breakdown = parts;
  return f;
}

long double samples_bytes(const BenchEnv& env, uint64_t n) {
  return static_cast<long double>(n) * env.scalars.latency_sample * sizeof(uint64_t) * env.threads;
}

Axis threads_axis() {
  return {.name = "threads",
          .kind = AxisKind::kInteger,
          .min = 1,
          .max = 1024,
          .def = "1",
          .quick = "1",
          .help = "Worker threads"};
}

Axis sharing_axis() {
  return {.name = "region-sharing",
          .kind = AxisKind::kNames,
          .names = {"disjoint", "shared"},
          .def = "disjoint",
          .quick = "disjoint",
          .help =
              "Each thread its own region (disjoint) or every thread the same region and "
              "order (shared, pmembench's behaviour)"};
}

Axis pattern_axis(std::string quick) {
  return {.name = "pattern",
          .kind = AxisKind::kNames,
          .names = {"seq", "rand"},
          .def = "seq,rand",
          .quick = std::move(quick),
          .help = "Chunk order: sequential, or a random permutation drawn before timing"};
}

double timer_overhead_ns() {
  static const double ns = [] {
    using Clock = std::chrono::steady_clock;
    std::vector<int64_t> d(2001);
    for (auto& x : d) {
      const auto t0 = Clock::now();
      const auto t1 = Clock::now();
      x = std::chrono::nanoseconds(t1 - t0).count();
    }
    std::nth_element(d.begin(), d.begin() + 1000, d.end());
    return static_cast<double>(d[1000]);
  }();
  return ns;
}

std::vector<uint64_t> thread_samples(const BenchEnv& env, int t, uint64_t n) {
  constexpr uint64_t kSalt = 0x6c6174656e637921ULL;  // "latency!"
  return sample_positions(n, env.scalars.latency_sample,
                          (env.seed + 7919ULL * static_cast<uint64_t>(env.repetition + 1000) +
                           static_cast<uint64_t>(t)) ^
                              kSalt);
}

}  // namespace pmemids::micro
