// The options of `pmemids run`, separate from running them so that other
// commands (sweep) can validate a configuration exactly as `run` would parse it.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pmemids {

// Fraction of operations whose latency is timed unless --latency-sample says
// otherwise; docs/performance.md records what it costs.
inline constexpr double kDefaultLatencySample = 0.01;

struct RunOptions {
  std::string ds;
  std::string mode;
  std::vector<std::string> workload_files;
  std::vector<std::string> properties;
  std::string pool_dir;
  std::string pool_size;
  bool keep_pool = false;
  bool reopen = false;
  int repeat = 1;
  int warmup = 0;
  std::string out;
  double load_factor = 0.75;
  uint32_t node_keys = 0;
  uint32_t max_height = 16;
  std::string thread_mode = "single";
  int threads = 1;
  std::string lock;     // empty: the paper's default for the mode
  bool unsafe = false;  // allow a domain the structure is not crash-consistent in
  std::string pin = "none";
  std::optional<int> cpu_node;
  std::optional<int> mem_node;
  double duration = 0;         // seconds; 0: run operationcount operations
  uint32_t timeline_ms = 0;    // 0: no timeline
  double latency_sample = -1;  // fraction of operations timed; < 0: the default
  // Combining stacks (ds/combining_options.h).
  std::string wait = "adaptive";
  bool combiner_yield = false;
  std::string persist_requests = "on";
  std::string elimination = "on";
  std::string recycle = "on";
  uint32_t combining_rounds = 20;
  double pool_check_timeout = 0;  // seconds the check of a reopened pool may take; 0: scaled
  bool no_pool_check = false;     // reopen without that check (unsafe)
};

// --threads other than 1 needs --thread-mode parallel or concurrent: a
// UsageError otherwise (run and stream).
void check_thread_count(const std::string& thread_mode, int threads);

// Registers every `pmemids run` option on `sub`, writing into `o`. Parsing
// checks syntax and ranges; combinations are checked when the run starts.
void add_run_options(CLI::App* sub, RunOptions& o);

}  // namespace pmemids
