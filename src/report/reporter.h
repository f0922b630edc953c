// The one way run, micro and crash report: a Reporter holds the invocation's
// context, builds each record from a config and metrics (report/records.h),
// appends it to the command's JSON-lines destination and prints its row of the
// command's table; Repetitions adds one configuration's repetitions to it and
// gives their aggregate record.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "report/records.h"

namespace pmemids {

// A command's human-readable table: a header, and one row per record.
class Table {
 public:
  virtual ~Table() = default;
  virtual void header(std::FILE* out) const = 0;
  virtual void row(std::FILE* out, const nlohmann::json& record) const = 0;
};

class Reporter {
 public:
  // `out`: the JSON-lines file records are appended to (kStdoutPath: standard
  // output; empty: none, the table only). `file`: where the table goes.
  // `context`: every record's context.
  Reporter(std::string out, std::FILE* file, const Table& table, nlohmann::json context)
      : out_(std::move(out)), file_(file), table_(table), context_(std::move(context)) {}

  // A record of this reporter's context, with `context_extra`'s fields added
  // (run's per-repetition load averages).
  nlohmann::json record(const nlohmann::json& config, nlohmann::json metrics,
                        const nlohmann::json& context_extra = nlohmann::json::object()) const;
  // The aggregate record (make_aggregate) of `ops_per_sec`, in the same context.
  nlohmann::json aggregate(const nlohmann::json& config, std::span<const double> ops_per_sec,
                           const nlohmann::json& context_extra = nlohmann::json::object()) const;

  void header() const { table_.header(file_); }
  // Appends `record` to the destination, if there is one, then prints its row.
  void emit(const nlohmann::json& record) const;

 private:
  nlohmann::json context_with(const nlohmann::json& extra) const;

  std::string out_;
  std::FILE* file_;
  const Table& table_;
  nlohmann::json context_;
};

// One configuration's repetitions, numbered from -warmup: each record is
// emitted as it comes, a warm-up's marked "warmup": true, and the ops/s of the
// measured ones kept for their aggregate.
class Repetitions {
 public:
  explicit Repetitions(const Reporter& reporter) : reporter_(reporter) {}

  // Marks `record` a warm-up when `repetition` is negative, and emits it.
  // `ops_per_sec`: what the aggregate counts of a measured repetition (none:
  // nothing was measured).
  void add(nlohmann::json& record, int repetition, std::optional<double> ops_per_sec);
  // The aggregate of the measured repetitions; `config` is the last one's.
  nlohmann::json aggregate(const nlohmann::json& config,
                           const nlohmann::json& context_extra = nlohmann::json::object()) const {
    return reporter_.aggregate(config, measured_, context_extra);
  }

 private:
  const Reporter& reporter_;
  std::vector<double> measured_;
};

}  // namespace pmemids
