// The metrics of a run's repetition and the short table of run's records
// (report/records.h: the records themselves, one per repetition plus "warmup":
// true on a discarded warm-up and the aggregate of a configuration's
// repetitions). Metric names carry their units; per-op costs
// divide the timed phase's counters by its operations; latency metrics
// (latency_<op>_{mean,p50,p90,p99,p999,p9999,max}_ns) appear for sampled op types,
// and under a target rate intended_latency_<op>_* too (from each sample's due
// time: what a client that wanted that rate waited). docs/metrics.md defines
// every field.
//
// What was not observed is null, never 0: a per-op figure of a phase without
// operations, a rate without time, and a cost counter in a mode where it does
// not see every event it names (cost_observed() in result.cc, the one place
// that rule lives). The stdout table prints null as "n/a".
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/reporter.h"
#include "run/runner.h"

namespace pmemids {

// A timed phase shorter than this is flagged (short_timed_phase) and warned about.
inline constexpr double kShortTimedPhaseSeconds = 0.2;
// Per-thread timed phases whose (max - min) / max exceeds this are warned about.
inline constexpr double kThreadSpreadWarning = 0.2;

nlohmann::json metrics_json(const RepResult& r);

// What a reader of `record` (a run record) should be told on stderr: a short
// timed phase, workers whose timed phases spread widely, a replay budget that
// ended a --duration run early. One line each, without prefix.
std::vector<std::string> record_warnings(const nlohmann::json& record);

// What each column of the table means (`pmemids run --help`).
const char* table_columns_help();

// run's table: a row per repetition (and its sampled latencies beneath), a
// row per aggregate.
class RunTable final : public Table {
 public:
  void header(std::FILE* out) const override;
  void row(std::FILE* out, const nlohmann::json& record) const override;
};

}  // namespace pmemids
