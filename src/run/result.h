// Result records (one JSON object per repetition, appended as one line to a
// JSON-lines file) and the short stdout table.
//
// Record: {"schema_version", "context", "config", "metrics"}, plus "warmup": true
// on a discarded warm-up repetition and "aggregate": true on the summary of a
// configuration's repetitions. Metric names carry their units; per-op costs
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
#include <span>
#include <string>
#include <vector>

#include "run/runner.h"

namespace pmemids {

inline constexpr int kSchemaVersion = 1;

// A timed phase shorter than this is flagged (short_timed_phase) and warned about.
inline constexpr double kShortTimedPhaseSeconds = 0.2;
// Per-thread timed phases whose (max - min) / max exceeds this are warned about.
inline constexpr double kThreadSpreadWarning = 0.2;

nlohmann::json metrics_json(const RepResult& r);

// What a reader of `record` (a run record) should be told on stderr: a short
// timed phase, workers whose timed phases spread widely, a replay budget that
// ended a --duration run early. One line each, without prefix.
std::vector<std::string> record_warnings(const nlohmann::json& record);

nlohmann::json make_record(const nlohmann::json& context, const nlohmann::json& config,
                           const RepResult& r);

// The aggregate record of a configuration's measured repetitions: mean, median,
// stddev, coefficient of variation, min, max and 95% confidence interval of
// ops_per_sec (null where undefined, e.g. stddev of one repetition).
nlohmann::json make_aggregate(const nlohmann::json& context, nlohmann::json config,
                              std::span<const double> ops_per_sec);

// Appends one line, written with a single write() so a record is whole or absent.
// The path "-" (kStdoutPath) is standard output.
inline constexpr const char* kStdoutPath = "-";
void append_record(const std::string& path, const nlohmann::json& record);

// Where the human-readable table goes: stdout, unless the records do.
inline std::FILE* table_stream(const std::string& out) {
  return out == kStdoutPath ? stderr : stdout;
}
// "appended to <path>" or "written to stdout", for the closing message.
std::string records_destination(const std::string& out);

// What each column of the table means (`pmemids run --help`).
const char* table_columns_help();
void print_table_header(std::FILE* out);
void print_table_row(std::FILE* out, const nlohmann::json& record);

}  // namespace pmemids
