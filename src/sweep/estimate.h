// The least time a sweep can take, known before anything runs, so that a
// product that could not finish is refused up front (unless --force) with the
// estimate, instead of after hours of expansion or days of runs.
//
// A configuration is one `pmemids run` process: kRunSeconds at the least
// (process start, PMEM probe, context), plus per repetition, warm-ups included,
// kRepetitionSeconds (pool or heap set-up of the smallest workload) and its
// --duration. Both constants are the smallest whole-process times measured on
// this project's 2-core machine for the smallest configuration (docs/hostile.md
// names the command); a sweep is refused when even that exceeds half a day.
#pragma once

#include <cstdint>
#include <vector>

#include "sweep/expand.h"
#include "sweep/sweep_file.h"

namespace pmemids::sweep {

inline constexpr double kRunSeconds = 0.06;
inline constexpr double kRepetitionSeconds = 0.02;
inline constexpr double kMaxSweepSeconds = 12 * 3600.0;

struct SweepEstimate {
  uint64_t configurations = 0;
  double min_seconds = 0;
};

// Expands the sweep once, keeping nothing but the counts.
SweepEstimate estimate(const SweepSpec& spec);

// The same for configurations already expanded (a shard or an --only subset).
SweepEstimate estimate(const std::vector<Configuration>& configs);

// UsageError stating the estimate when it exceeds kMaxSweepSeconds and not `force`.
void check_estimate(const SweepSpec& spec, const SweepEstimate& e, bool force);

}  // namespace pmemids::sweep
