// The options of `pmemids run`, separate from running them so that other
// commands (sweep) can validate a configuration exactly as `run` would parse it.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "options/knob_options.h"
#include "options/persistence_options.h"
#include "options/workload_options.h"

namespace pmemids {

// Fraction of operations whose latency is timed unless --latency-sample says
// otherwise; docs/performance.md records what it costs.
inline constexpr double kDefaultLatencySample = 0.01;

struct RunOptions {
  std::string ds;
  std::string mode;
  WorkloadOptions workload;  // -P, -p, --seed
  std::string pool_dir;
  std::string pool_size;
  bool keep_pool = false;
  bool reopen = false;
  int repeat = 1;
  int warmup = 0;
  std::string out;
  KnobSettings knobs;       // the structures' knobs (options/knob_options.h)
  std::string thread_mode;  // empty: single, or concurrent for more than one thread
  int threads = 0;          // 0: threadcount, else 1
  std::string lock;         // empty: the paper's default for the mode
  bool unsafe = false;      // allow a domain the structure is not crash-consistent in
  std::string pin = "none";
  std::optional<int> cpu_node;
  std::optional<int> mem_node;
  double duration = 0;             // seconds; 0: run operationcount operations
  double min_time = 0;             // seconds; 0: run operationcount operations whatever they take
  uint32_t timeline_ms = 0;        // 0: no timeline
  double latency_sample = -1;      // fraction of operations timed; < 0: the default
  double target = -1;              // ops/s in total (--target, -target); < 0: target, else none
  double status_interval = 0;      // seconds (--status-interval); 0: status.interval with -s
  bool status = false;             // -s: status lines every status.interval (default 10) seconds
  double pool_check_timeout = 0;   // seconds the check of a reopened pool may take; 0: scaled
  bool no_pool_check = false;      // reopen without that check (unsafe)
  PersistenceOptions persistence;  // --domain, --flush, ... (options/persistence_options.h)
  std::string counters = "none";   // none | perf | sim
  std::vector<std::string> perf_events;  // --counters perf; empty: all
  std::string sim_instrument = "load";   // --counters sim: load | timed
};

// How many workers, in which thread mode, at what rate, with what status
// lines: `run`'s options win over the workload's YCSB client settings
// (threadcount, target, status.interval), as YCSB's -threads/-target win over
// its properties.
struct ClientSettings {
  int threads = 1;
  std::string threads_from;         // "--threads N", "threadcount=N" or "" (the default, 1)
  std::string thread_mode;          // single | parallel | concurrent
  bool default_concurrent = false;  // no --thread-mode and more than one thread
  double target = 0;                // ops/s in total; 0: unthrottled
  double status_interval = 0;       // seconds; 0: no status lines
};

// The status interval -s turns on when status.interval does not say.
inline constexpr double kDefaultStatusInterval = 10;

ClientSettings resolve_client(const RunOptions& o, const WorkloadSpec& spec);

// --threads other than 1 needs --thread-mode parallel or concurrent: a
// UsageError otherwise (run and stream). `from` names where the count came
// from ("threadcount=2"); empty: --threads.
void check_thread_count(const std::string& thread_mode, int threads, const std::string& from = "");

// Registers every `pmemids run` option on `sub`, writing into `o`, with one
// option per knob of `knobs` (the catalog's, registry/registry.h all_knobs:
// the registry sits above this layer). Parsing checks syntax and ranges;
// combinations are checked when the run starts.
void add_run_options(CLI::App* sub, RunOptions& o, std::span<const Knob* const> knobs);

// YCSB spells its long options with one dash (-threads 4 -target 1000); CLI11
// reads "-threads" as a cluster of short flags. Returns argv with "-threads"
// and "-target" (alone or as -name=value) spelled with two dashes; every other
// word, -P, -p and -s included, is kept as it is.
std::vector<std::string> ycsb_long_flags(int argc, const char* const* argv);

}  // namespace pmemids
