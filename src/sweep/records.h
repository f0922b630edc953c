// What a sweep writes to its output (JSON lines, docs/sweeps.md):
//   - a run's records, each given a top-level "sweep" object;
//   - {"schema_version", "skipped": true, "reason", "config", "sweep"} for a
//     configuration `run` refused here (exit 2);
//   - {"schema_version", "failed": true, "reason", "exit_code" or "signal",
//     "config", "sweep"} for one that failed (exit 1, other codes, a signal).
// "sweep": {"file", "scale", "config_id", "index" (from 0), "total",
//           "record" (j), "records" (m)}: line j of the m lines the
//           configuration wrote. All m lines go to the output in one write(),
//           so a configuration is recorded whole or not at all; record/records
//           let a reader (resume) tell a whole group from a torn one.
//           An interleaved sweep runs each repetition k of R on its own and
//           adds "repetition": k, "repetitions": R; its run records get
//           config.repetition = k and config.repeat = R, and the group of the
//           repetition that completes a configuration ends with the
//           configuration's aggregate record (make_aggregate over all R).
//           Such a repetition is a round (rounds.h): "round" (= repetition),
//           "position", "session", "order" ("fixed" or "random"),
//           "order_seed" (random order), "round_calibration_s". Every group
//           adds "loadavg_before" and "loadavg_after", around its run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sweep/expand.h"
#include "sweep/sweep_file.h"

namespace pmemids::sweep {

struct SweepInfo {
  std::string file;
  std::string scale;
  std::string config_id;
  size_t index = 0;
  size_t total = 0;
  int repetition = -1;  // interleaved: this group's repetition (its round); -1: all of them
  int repetitions = 1;
  // Rounds (rounds.h), for a repetition of an interleaved sweep:
  int position = -1;                          // its place in the round, from 0
  std::string session;                        // the invocation that ran it
  std::string order;                          // "fixed" or "random"
  std::optional<uint64_t> order_seed;         // random order: its seed
  std::optional<double> round_calibration_s;  // the round's calibration in this session
  // The 1, 5 and 15-minute load averages around the run (null: not read).
  nlohmann::json loadavg_before, loadavg_after;
};

// The run's output: JSON objects, one per line. Throws std::runtime_error when
// it holds no record or a line that is not a JSON object.
std::vector<nlohmann::json> parse_run_output(const std::string& run_output);

// `records` as lines (each ending in '\n') with "sweep" added to each (and,
// for a repetition of an interleaved sweep, its number in the run records'
// config, as above).
std::string stamp_records(std::vector<nlohmann::json> records, const SweepInfo& info);

// Both of the above.
std::string stamp_run_output(const std::string& run_output, const SweepInfo& info);

// The aggregate record of a configuration from its repetitions' measured
// records (context and config of the last).
nlohmann::json aggregate_of(const std::map<int, nlohmann::json>& repetitions);

// The configuration as a record's "config": its keys in the underscore spelling
// run records use (thread_mode), values as in the sweep file, properties by
// name; "workload" is the last file's name and "workload_files" the files, as
// in run records; a micro sweep's configurations also carry "kind": "micro" and
// "bench", as micro records do.
nlohmann::json config_json(const Configuration& c, const SweepSpec& spec);

// The throughput a run's output reports: its aggregate record's
// metrics.ops_per_sec_mean, else the mean metrics.ops_per_sec of its records
// that are not warm-ups; nullopt when none has it.
std::optional<double> run_ops_per_sec(const std::string& run_output);

// One line (ending in '\n') for a configuration that did not run to the end:
// kind is "skipped" or "failed"; `extra` is merged in (exit_code, signal).
std::string outcome_record(const std::string& kind, const std::string& reason,
                           const nlohmann::json& config, const SweepInfo& info,
                           const nlohmann::json& extra = nlohmann::json::object());

// Appends `data` to `fd` (opened O_APPEND) with a single write(). On a short or
// failed write the file is truncated back to its previous size and
// RuntimeError names `path`: the data is in the file whole or not at all.
void append_whole(int fd, const std::string& data, const std::string& path);

}  // namespace pmemids::sweep
