// `pmemids run` planned: its options parsed and checked once, before anything
// runs, into a value that says what the run will do. Every refusal is a
// UsageError (exit 2) raised here, before a pool is created or opened.
//
// The plan is made in two steps: plan_run() decides what the options alone
// decide (workload, pairs, threads, placement, sizes, files, counters); a
// --counters sim parent then re-executes itself under callgrind
// (rerun_under_callgrind) and its child plans again; resolve_domain() then
// probes the pool directory and settles the persistence policy and the pairs
// crash-consistent under its domain.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "counters/crew_counters.h"
#include "counters/sim.h"
#include "host/placement.h"
#include "options/run_options.h"
#include "pmem/policy.h"
#include "run/context.h"
#include "run/runner.h"
#include "workload/properties.h"

namespace pmemids {

struct DsEntry;

// What --counters asks for, checked before anything runs: a refusal (exit 2)
// when hardware events are wanted and there is no PMU, or --counters sim has
// no valgrind or caches to simulate.
struct CounterPlan {
  CounterMode mode = CounterMode::kNone;
  PerfEventSet events{};
  SimInstrument instrument = SimInstrument::kLoad;
  std::optional<SimCaches> caches;
  std::string valgrind;
};

struct RunPlan {
  WorkloadSpec spec;  // as given (--min-time grows a copy)
  ClientSettings client;
  ThreadMode thread_mode = ThreadMode::kSingle;
  std::vector<std::pair<const DsEntry*, Mode>> pairs;  // (structure, mode), in run order
  Placement placement;
  uint64_t pool_size = 0;  // --pool-size in bytes; 0: derived from the workload
  std::string out;         // where the records go (report/records.h)
  std::string pool_dir;
  double latency_sample = 0;  // the fraction in force
  CounterPlan counters;
  // resolve_domain's:
  PmemProbe probe;
  PersistencePolicy policy;
};

// Whether the workers share one instance.
inline bool shared_instance(ThreadMode tm) {
  return tm == ThreadMode::kConcurrent || tm == ThreadMode::kNative;
}

// Everything the options decide, checked; notes on stderr (skipped pairs, the
// default thread mode).
RunPlan plan_run(const RunOptions& o);

// The parent of a --counters sim run: say what it will cost, run the same
// command under callgrind, exit with its status.
[[noreturn]] void rerun_under_callgrind(const RunOptions& o, const RunPlan& plan);

// Probes the pool directory and resolves the persistence policy; --ds all
// drops the pairs not crash-consistent under its domain (unless --unsafe), a
// named one is refused.
void resolve_domain(RunPlan& plan, const RunOptions& o);

}  // namespace pmemids
