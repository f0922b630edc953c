// Result records and where they go, for every command that records (run, micro,
// crash; sweep restamps run's).
//
// A record is one JSON object: {"schema_version", "context", "config",
// "metrics"} plus what the command adds (run: "warmup": true on a discarded
// warm-up repetition; micro: "kind", "bench", "expected_here", "caveats";
// crash: "failures", "failure_kinds"). The aggregate record of a
// configuration's measured repetitions carries "aggregate": true and
// statistics of their ops_per_sec. docs/metrics.md defines every field.
//
// Records are appended to a JSON-lines file, one line each, written with a
// single write() so that a record is whole or absent; the path "-"
// (kStdoutPath) is standard output, and the human-readable table then goes to
// standard error (table_stream).
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

namespace pmemids {

inline constexpr int kSchemaVersion = 1;
inline constexpr const char* kStdoutPath = "-";

// {"schema_version", "context", "config", "metrics"}.
nlohmann::json make_record(const nlohmann::json& context, const nlohmann::json& config,
                           nlohmann::json metrics);

// The aggregate record of a configuration's measured repetitions: mean, median,
// stddev, coefficient of variation, min, max and 95% confidence interval of
// ops_per_sec (null where undefined, e.g. stddev of one repetition). `config` is
// the last repetition's, without "repetition".
nlohmann::json make_aggregate(const nlohmann::json& context, nlohmann::json config,
                              std::span<const double> ops_per_sec);

// Appends one line; a file is created with its missing parent directories, a
// FIFO without a reader is refused rather than waited on.
void append_record(const std::string& path, const nlohmann::json& record);

// Where the human-readable table goes: stdout, unless the records do.
inline std::FILE* table_stream(const std::string& out) {
  return out == kStdoutPath ? stderr : stdout;
}
// "appended to <path>" or "written to stdout", for the closing message.
std::string records_destination(const std::string& out);

// A table cell: the number `v` times `scale` in `format`, or "n/a" for null.
std::string cell(const nlohmann::json& v, const char* format, double scale = 1);

}  // namespace pmemids
