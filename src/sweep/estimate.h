// What a sweep will take, known before anything runs: a lower bound, so that a
// product that could not finish is refused up front (unless --force) with the
// estimate, instead of after hours of expansion or days of runs; and an
// expectation to plan with (`sweep --dry-run`, `reproduce --list`).
//
// A configuration is one `pmemids run` process: kRunSeconds at the least
// (process start, PMEM probe, context), plus per repetition, warm-ups included,
// kRepetitionSeconds (pool or heap set-up of the smallest workload) and its timed
// phase, which lasts at least --duration or --min-time. Both constants are the
// smallest whole-process times measured on this project's 2-core machine for the
// smallest configuration (docs/hostile.md names the command); a sweep is refused
// when even that bound exceeds half a day.
//
// The expectation adds per repetition kExpectedRepetitionSeconds (process, pool,
// stream generation), kExpectedPhaseFactor x the phase (a --min-time repetition
// reruns with a grown operation count until its phase is long enough, and
// regenerates its streams each time) and the load, recordcount x
// kExpectedLoadSeconds; a phase with neither --min-time nor --duration is taken as
// operationcount x kExpectedOpSeconds. Calibrated on the development VM (2 cores,
// load 2-10) from two sweeps of sweeps/fig3-single-thread.toml (docs/sweeps.md,
// "How long a sweep takes"): --scale quick took 356 s (expected 242 s), the
// default scale about 450 s (expected 356 s); the expectation is meant to be
// within 2x of the real time, not a bound.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sweep/expand.h"
#include "sweep/sweep_file.h"

namespace pmemids::sweep {

inline constexpr double kRunSeconds = 0.06;
inline constexpr double kRepetitionSeconds = 0.02;
inline constexpr double kMaxSweepSeconds = 12 * 3600.0;
inline constexpr double kExpectedRepetitionSeconds = 1.0;
inline constexpr double kExpectedPhaseFactor = 2.0;
inline constexpr double kExpectedLoadSeconds = 1e-6;  // per record
inline constexpr double kExpectedOpSeconds = 1e-6;    // per operation, without --min-time

struct SweepEstimate {
  uint64_t configurations = 0;
  double min_seconds = 0;
  double expected_seconds = 0;
};

// "84 s", "5.9 min", "2.3 h": an estimate as a reader compares it with a clock.
std::string format_estimate(double seconds);

// Expands the sweep once, keeping nothing but the counts.
SweepEstimate estimate(const SweepSpec& spec);

// The same for configurations already expanded (a shard or an --only subset).
SweepEstimate estimate(const std::vector<Configuration>& configs);

// UsageError stating the estimate when it exceeds kMaxSweepSeconds and not `force`.
void check_estimate(const SweepSpec& spec, const SweepEstimate& e, bool force);

}  // namespace pmemids::sweep
