// Result records (one JSON object per repetition, appended as one line to a
// JSON-lines file) and the short stdout table.
//
// Record: {"schema_version", "context", "config", "metrics"}, plus "warmup": true
// on a discarded warm-up repetition and "aggregate": true on the summary of a
// configuration's repetitions. Metric names carry their units; per-op costs
// divide the timed phase's counters by its operations; latency metrics
// (latency_<op>_{mean,p50,p90,p99,p999,p9999,max}_ns) appear for sampled op types,
// and under a target rate intended_latency_<op>_* too (from each sample's due
// time: what a client that wanted that rate waited).
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "run/runner.h"

namespace pmemids {

inline constexpr int kSchemaVersion = 1;

nlohmann::json metrics_json(const RepResult& r);

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
