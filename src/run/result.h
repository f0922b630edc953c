// Result records (one JSON object per repetition, appended as one line to a
// JSON-lines file) and the short stdout table.
//
// Record: {"schema_version", "context", "config", "metrics"}. Metric names carry
// their units; per-op costs divide the timed phase's counters by its operations.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "run/runner.h"

namespace pmemids {

inline constexpr int kSchemaVersion = 1;

nlohmann::json metrics_json(const RepResult& r);

nlohmann::json make_record(const nlohmann::json& context, const nlohmann::json& config,
                           const RepResult& r);

// Appends one line, written with a single write() so a record is whole or absent.
void append_record(const std::string& path, const nlohmann::json& record);

void print_table_header(std::FILE* out);
void print_table_row(std::FILE* out, const nlohmann::json& record);

}  // namespace pmemids
