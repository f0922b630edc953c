#include "sweep/records.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "errors.h"
#include "run/result.h"

namespace pmemids::sweep {
namespace {

nlohmann::json sweep_json(const SweepInfo& info, size_t record, size_t records) {
  nlohmann::json s = {{"file", info.file},   {"scale", info.scale}, {"config_id", info.config_id},
                      {"index", info.index}, {"total", info.total}, {"record", record},
                      {"records", records}};
  if (info.repetition >= 0) {
    s["repetition"] = info.repetition;
    s["repetitions"] = info.repetitions;
  }
  if (info.repetition >= 0 && !info.session.empty()) {
    s["round"] = info.repetition;
    s["position"] = info.position;
    s["session"] = info.session;
    s["order"] = info.order;
    if (info.order_seed) s["order_seed"] = *info.order_seed;
    if (info.round_calibration_s) s["round_calibration_s"] = *info.round_calibration_s;
  }
  if (!info.loadavg_before.is_null()) s["loadavg_before"] = info.loadavg_before;
  if (!info.loadavg_after.is_null()) s["loadavg_after"] = info.loadavg_after;
  return s;
}

// Every non-blank line of a run's output as a JSON object; a line that is not
// one is passed to bad(line).
template <class Bad>
std::vector<nlohmann::json> json_lines(const std::string& text, Bad&& bad) {
  std::vector<nlohmann::json> records;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    const std::string line = text.substr(start, nl - start);
    start = nl + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json rec = nlohmann::json::parse(line, nullptr, false);
    if (rec.is_object()) {
      records.push_back(std::move(rec));
    } else {
      bad(line);
    }
  }
  return records;
}

}  // namespace

std::optional<double> run_ops_per_sec(const std::string& run_output) {
  double sum = 0;
  size_t n = 0;
  for (const auto& r : json_lines(run_output, [](const std::string&) {})) {
    const auto m = r.find("metrics");
    if (m == r.end() || !m->is_object()) continue;
    if (r.value("aggregate", false)) {
      if (const auto mean = m->find("ops_per_sec_mean"); mean != m->end() && mean->is_number()) {
        return mean->get<double>();
      }
    } else if (!r.value("warmup", false)) {
      if (const auto v = m->find("ops_per_sec"); v != m->end() && v->is_number()) {
        sum += v->get<double>();
        ++n;
      }
    }
  }
  if (n == 0) return std::nullopt;
  return sum / static_cast<double>(n);
}

std::vector<nlohmann::json> parse_run_output(const std::string& run_output) {
  std::vector<nlohmann::json> records = json_lines(run_output, [](const std::string& line) {
    throw std::runtime_error(
        fmt::format("the run wrote a line that is not a JSON object: {:.80}", line));
  });
  if (records.empty()) throw std::runtime_error("the run exited 0 but wrote no record");
  return records;
}

std::string stamp_records(std::vector<nlohmann::json> records, const SweepInfo& info) {
  std::string out;
  for (size_t j = 0; j < records.size(); ++j) {
    auto& config = records[j]["config"];
    if (info.repetition >= 0 && config.is_object()) {
      config["repeat"] = info.repetitions;
      if (!records[j].contains("warmup") && !records[j].contains("aggregate")) {
        config["repetition"] = info.repetition;
      }
    }
    records[j]["sweep"] = sweep_json(info, j, records.size());
    out += records[j].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  return out;
}

std::string stamp_run_output(const std::string& run_output, const SweepInfo& info) {
  return stamp_records(parse_run_output(run_output), info);
}

nlohmann::json aggregate_of(const std::map<int, nlohmann::json>& repetitions) {
  std::vector<double> ops_per_sec;
  for (const auto& [k, rec] : repetitions) {
    const auto& v = rec["metrics"]["ops_per_sec"];
    ops_per_sec.push_back(v.is_number() ? v.get<double>() : 0.0);
  }
  const nlohmann::json& last = repetitions.rbegin()->second;
  nlohmann::json config = last["config"];
  config["repeat"] = static_cast<int>(repetitions.size());
  return make_aggregate(last["context"], config, ops_per_sec);
}

nlohmann::json config_json(const Configuration& c, const SweepSpec& spec) {
  nlohmann::json config = nlohmann::json::object();
  for (const auto& [k, v] : c.options) {
    std::string key = k;
    std::replace(key.begin(), key.end(), '-', '_');
    if (k != "workload") {
      config[key] = value_json(v);
      continue;
    }
    std::vector<std::string> files;
    if (const auto* s = std::get_if<std::string>(&v)) files.push_back(*s);
    if (const auto* l = std::get_if<std::vector<std::string>>(&v)) files = *l;
    for (auto& f : files) {
      if (auto it = spec.workload_paths.find(f); it != spec.workload_paths.end()) f = it->second;
    }
    config["workload"] = std::filesystem::path(files.back()).filename().string();
    config["workload_files"] = files;
  }
  for (const auto& [k, v] : c.properties) config[k] = value_json(v);
  if (spec.command.size() == 2 && spec.command[0] == "micro") {
    config["kind"] = "micro";
    config["bench"] = spec.command[1];
  }
  return config;
}

std::string outcome_record(const std::string& kind, const std::string& reason,
                           const nlohmann::json& config, const SweepInfo& info,
                           const nlohmann::json& extra) {
  nlohmann::json rec = {{"schema_version", kSchemaVersion}, {kind, true}, {"reason", reason}};
  rec.update(extra);
  rec["config"] = config;
  rec["sweep"] = sweep_json(info, 0, 1);
  return rec.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void append_whole(int fd, const std::string& data, const std::string& path) {
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    throw RuntimeError(fmt::format("cannot append to '{}': {}", path, std::strerror(errno)));
  }
  ssize_t n = 0;
  do {
    n = write(fd, data.data(), data.size());
  } while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(data.size())) return;
  const int err = n < 0 ? errno : ENOSPC;
  if (n > 0 && ftruncate(fd, st.st_size) != 0) {
    throw RuntimeError(
        fmt::format("cannot append to '{}': {}; and cannot remove the partial record ({}); "
                    "a resumed sweep drops it",
                    path, std::strerror(err), std::strerror(errno)));
  }
  throw RuntimeError(fmt::format("cannot append to '{}': {}", path, std::strerror(err)));
}

}  // namespace pmemids::sweep
