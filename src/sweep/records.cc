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
  return {{"file", info.file},   {"scale", info.scale}, {"config_id", info.config_id},
          {"index", info.index}, {"total", info.total}, {"record", record},
          {"records", records}};
}

}  // namespace

std::string stamp_run_output(const std::string& run_output, const SweepInfo& info) {
  std::vector<nlohmann::json> records;
  size_t start = 0;
  while (start < run_output.size()) {
    size_t nl = run_output.find('\n', start);
    if (nl == std::string::npos) nl = run_output.size();
    const std::string line = run_output.substr(start, nl - start);
    start = nl + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json rec = nlohmann::json::parse(line, nullptr, false);
    if (!rec.is_object()) {
      throw std::runtime_error(
          fmt::format("the run wrote a line that is not a JSON object: {:.80}", line));
    }
    records.push_back(std::move(rec));
  }
  if (records.empty()) throw std::runtime_error("the run exited 0 but wrote no record");
  std::string out;
  for (size_t j = 0; j < records.size(); ++j) {
    records[j]["sweep"] = sweep_json(info, j, records.size());
    out += records[j].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  return out;
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
