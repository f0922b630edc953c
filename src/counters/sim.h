// `--counters sim`: the run re-executes itself under valgrind's callgrind with
// cache (and branch) simulation, and reports what callgrind counted in the
// timed phase as sim_ metrics (counters/callgrind_out.h).
//
// The parent (`pmemids run ... --counters sim`, after checking its options)
// makes a private dump directory in the pool directory, runs
//   valgrind -q --tool=callgrind --cache-sim=yes --branch-sim=yes
//            --instr-atstart=no --collect-atstart=no --fair-sched=try
//            --I1=... --D1=... --LL=... --callgrind-out-file=<dir>/callgrind.out
//            <this binary, read from /proc/self/exe> <the same arguments>
// with PMEMIDS_SIM_DIR=<dir> in the environment, waits for it (SIGINT and
// SIGTERM are passed on; the child dies with the parent), removes the
// directory and exits with the child's status. The child is the run: it writes
// the records and the table.
//
// In the child, instrumentation is off until the first repetition's set-up
// begins (--sim-instrument load, the default: creating and loading the pool
// warm the simulated caches as they warm the real ones) or until its timed
// phase begins (--sim-instrument timed: faster, but callgrind then starts from
// empty caches and counts every first touch in the timed phase as a miss; one
// repetition of one structure and mode per process, since instrumentation,
// once on, stays on: callgrind 3.19 collects nothing after it is switched off
// and on again). Event collection is off everywhere except in each worker
// between the start barrier and the end of its timed phase (callgrind's
// collection state is per thread). After the workers have joined, the
// coordinator dumps; the dump holds exactly the timed phase's events of all
// workers since the repetition's set-up began (CALLGRIND_ZERO_STATS).
//
// callgrind runs one thread at a time and simulates one cache hierarchy for
// all of them: in parallel and concurrent modes the counts are those of the
// workers interleaved on one simulated core, not of one core per worker.
#pragma once

#include <valgrind/callgrind.h>

#include <nlohmann/json.hpp>
#include <string>

#include "counters/cache_geometry.h"
#include "counters/callgrind_out.h"

namespace pmemids {

enum class SimInstrument : uint8_t { kLoad, kTimed };

inline constexpr const char* kSimDirEnv = "PMEMIDS_SIM_DIR";
inline constexpr const char* kSimToolEnv = "PMEMIDS_SIM_TOOL";

// Whether this process is the child under callgrind. A UsageError when
// PMEMIDS_SIM_DIR is set but the process is not running under valgrind.
bool in_sim_child();

// This machine's caches for the simulation; a UsageError when sysfs lists none.
SimCaches machine_sim_caches();

// Refuses (UsageError) when valgrind is not on PATH; returns its version line.
std::string require_valgrind();

// The parent's part: run this process's command line again under callgrind
// and return the exit status to exit with (re-raises a signal that killed the
// child). `pool_dir` holds the dump directory while the child runs.
int run_under_callgrind(const std::string& pool_dir, const SimCaches& caches,
                        const std::string& valgrind_version);

// The context block's "sim" object: tool, simulated and machine caches, the
// instrumentation choice, what the model leaves out.
nlohmann::json sim_context(const SimCaches& caches, SimInstrument instrument, int threads);

// Rough duration of a simulated run, in seconds, for the warning before it.
double sim_seconds_estimate(uint64_t load_ops, uint64_t timed_ops, SimInstrument instrument);

// The child's hooks. Client requests are no-ops (a few instructions) outside
// valgrind; callers invoke them only in a sim child.
namespace sim {

// Coordinator, before a repetition's set-up (pool creation and load).
inline void setup_begins(SimInstrument instrument) {
  if (instrument == SimInstrument::kLoad) CALLGRIND_START_INSTRUMENTATION;
  CALLGRIND_ZERO_STATS;
}

// Each worker, right after the start barrier and right after its timed phase.
inline void worker_begins() {
  CALLGRIND_START_INSTRUMENTATION;  // no-op when already on
  CALLGRIND_TOGGLE_COLLECT;
}
inline void worker_ends() { CALLGRIND_TOGGLE_COLLECT; }

// Coordinator, after the workers joined: dumps and returns the dump's totals
// (the dump file is removed).
CallgrindTotals collect(const std::string& label);

}  // namespace sim
}  // namespace pmemids
