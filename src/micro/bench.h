// The micro-benchmarks: one descriptor each, in one list (benches()).
//
// A descriptor holds the bench's name, what it measures and for which seed
// figures, what hardware its effects need (Needs), its swept options (axes:
// defaults, --quick grids), which scalar options it takes, and the function
// that measures one point of its grid once (one repetition).
//
// A run function gets the point and a BenchEnv (pool directory, persistence
// policy, threads and their placement, scalar options, seeds) and returns a
// Measurement: operations and the common window (start barrier to the last
// worker's end), per-thread figures, sampled latencies, bytes moved, and the
// flushes and fences issued when they are known (null otherwise).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/placement.h"
#include "micro/axes.h"
#include "pmem/policy.h"
#include "run/context.h"
#include "run/thread_usage.h"
#include "stats/histogram.h"
#include "util/capacity.h"

namespace pmemids::micro {

// What a bench's published effects need from the machine. Without it the bench
// still runs where meaningful; its records carry the reason (expected_here).
struct Needs {
  std::string media;      // Optane media effects it shows (empty: none), for docs and records
  bool counters = false;  // hardware counters (EWR, RWR, LLC misses): never printed without them
  std::string counter_names;
};

// Scalar (not swept) options; 0 means the bench does not take the option.
struct Scalars {
  uint64_t ops_per_thread = 0;
  uint64_t region = 0;        // bytes per thread (shared: in all)
  double duration = 0;        // seconds of the timed phase
  double ramp = 0;            // seconds of untimed warm-up before the start barrier
  double latency_sample = 0;  // default sampling rate (0: off)
  double min_time = 0;        // seconds a fixed-count window must last (0: off)
};

struct BenchEnv {
  std::string pool_dir;
  PersistencePolicy policy;
  PmemProbe probe;
  int threads = 1;
  Placement placement;
  std::optional<int> cpu_node;  // --cpu-node
  std::optional<int> mem_node;  // --mem-node
  bool shared = false;          // --region-sharing shared
  Scalars scalars;              // the values in force (latency_sample: the rate)
  uint64_t seed = 1;
  int repetition = 0;  // from 0; warm-ups are negative
};

struct Measurement {
  uint64_t ops = 0;
  double seconds = 0;  // the common window
  std::vector<uint64_t> thread_ops;
  std::vector<double> thread_seconds;
  std::vector<std::vector<int>> thread_cpus;
  std::vector<int> start_cpu;
  std::vector<ThreadUsage> thread_usage;  // each worker's timed phase
  LatencyHistogram latency;
  uint64_t bytes = 0;               // bytes the operations moved; 0: not a bandwidth figure
  std::optional<uint64_t> flushes;  // write-back instructions issued, when known
  std::optional<uint64_t> fences;   // store fences issued, when known
  std::string counted_by;           // who issues the counted flushes/fences
  nlohmann::json config = nlohmann::json::object();   // what the bench chose
  nlohmann::json metrics = nlohmann::json::object();  // bench-specific figures
  uint64_t sink = 0;  // what loads read: consumed so the loads cannot be dropped
};

struct BenchSpec {
  std::string_view name;
  std::string_view summary;
  std::string_view seeds;  // the seed figures it reproduces
  Needs needs;
  std::vector<Axis> axes;     // product order: the first varies slowest
  Scalars defaults;           // bench defaults (0: option not taken)
  Scalars quick;              // under --quick
  Scalars all;                // under `micro all` at default scale (0: the default)
  bool uses_libpmem = false;  // calls libpmem or libpmemobj (their environment matters)
  // Refuses a point this machine cannot run (UsageError naming the reason),
  // before anything runs; may be null.
  void (*check)(const Point& p, const BenchEnv& env) = nullptr;
  // What one repetition of the point maps and allocates (bench_footprint), so
  // that the driver refuses what this machine cannot give before anything runs.
  Footprint (*footprint)(const Point& p, const BenchEnv& env) = nullptr;
  Measurement (*run)(const Point& p, const BenchEnv& env) = nullptr;
};

const std::vector<BenchSpec>& benches();
// UsageError naming the benches when unknown.
const BenchSpec& find_bench(std::string_view name);

// A repetition's footprint (util/capacity.h; the driver names the point and its
// inputs): `region` bytes mapped from `memory` ("dram": anonymous memory;
// "pmem": a file in the pool directory), a libpmemobj pool of `pool` bytes (a
// file in the pool directory), and `vectors` bytes of the bench's own
// pre-decided data in DRAM (orders, latency samples, object handles).
Footprint bench_footprint(std::string_view memory, long double region, long double pool,
                          long double vectors);

// Bytes of the latency samples of env.threads threads of n operations each.
long double samples_bytes(const BenchEnv& env, uint64_t n);

// Axes every memory bench shares.
Axis threads_axis();
Axis sharing_axis();
Axis pattern_axis(std::string quick = "seq");

// The benches (one source each).
BenchSpec persist_bench();
BenchSpec store_bench();
BenchSpec copy_bench();
BenchSpec bandwidth_bench();
BenchSpec latency_bench();
BenchSpec rmw_bench();
BenchSpec txlog_bench();
BenchSpec alloc_bench();
BenchSpec lock_bench();

}  // namespace pmemids::micro
