#include "sweep/estimate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "errors.h"
#include "sweep/driver.h"
#include "sweep/expand.h"

namespace pmemids::sweep {
namespace {

// An option's or property's value as a number (`otherwise` when the configuration has none).
double number(const Value* v, double otherwise) {
  if (v == nullptr) return otherwise;
  if (const auto* i = std::get_if<int64_t>(v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(v)) return *d;
  return std::strtod(value_text(*v).c_str(), nullptr);
}

void add(SweepEstimate& e, const Configuration& c) {
  const double reps = number(c.option("repeat"), 1) + number(c.option("warmup"), 0);
  const double bound = std::max(number(c.option("duration"), 0), number(c.option("min-time"), 0));
  e.min_seconds += kRunSeconds + reps * (kRepetitionSeconds + bound);
  // Workload files' own counts are not read here: the defaults of `run` stand in.
  const double phase =
      bound > 0 ? bound : number(c.property("operationcount"), 1000) * kExpectedOpSeconds;
  e.expected_seconds +=
      kRunSeconds + reps * (kExpectedRepetitionSeconds + kExpectedPhaseFactor * phase +
                            number(c.property("recordcount"), 1000) * kExpectedLoadSeconds);
  ++e.configurations;
}

}  // namespace

std::string format_estimate(double seconds) {
  if (seconds < 120) return fmt::format("{:.0f} s", std::ceil(seconds));
  if (seconds < 90 * 60) return fmt::format("{:.1f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

SweepEstimate estimate(const SweepSpec& spec) {
  SweepEstimate e;
  expand_each(
      spec, [&e](Configuration&& c) { add(e, c); }, /*complete=*/false);
  return e;
}

SweepEstimate estimate(const std::vector<Configuration>& configs) {
  SweepEstimate e;
  for (const Configuration& c : configs) add(e, c);
  return e;
}

void check_estimate(const SweepSpec& spec, const SweepEstimate& e, bool force) {
  if (force || e.min_seconds <= kMaxSweepSeconds) return;
  throw UsageError(fmt::format(
      "{}: {} configurations would take at least {} ({} s per run and {} s per repetition at "
      "the very least, plus --duration); accepted: a sweep that can finish within {}, or "
      "--force to run it anyway",
      spec.file, e.configurations, format_duration(e.min_seconds), kRunSeconds, kRepetitionSeconds,
      format_duration(kMaxSweepSeconds)));
}

}  // namespace pmemids::sweep
