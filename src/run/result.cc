#include "run/result.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "errors.h"
#include "stats/summary.h"
#include "util/file_checks.h"

namespace pmemids {
namespace {

constexpr std::pair<const char*, double> kPercentiles[] = {
    {"p50", 50}, {"p90", 90}, {"p99", 99}, {"p999", 99.9}, {"p9999", 99.99}};

}  // namespace

nlohmann::json metrics_json(const RepResult& r) {
  const uint64_t ops = r.tally.total();
  const double per = ops == 0 ? 0.0 : 1.0 / static_cast<double>(ops);
  nlohmann::json m = {
      {"ops", ops},
      {"seconds", r.seconds},
      {"ops_per_sec", r.ops_per_sec},
      {"wall_ops_per_sec", r.seconds > 0 ? static_cast<double>(ops) / r.seconds : 0.0},
      {"load_ops", r.load_ops},
      {"load_seconds", r.load_seconds},
      {"open_seconds", r.open_seconds},
      {"recovery_seconds", r.recovery_seconds},
      {"pool_bytes", r.pool_bytes},
      {"persists_per_op", static_cast<double>(r.costs.persists) * per},
      {"flushed_lines_per_op", static_cast<double>(r.costs.flushed_lines) * per},
      {"tx_per_op", static_cast<double>(r.costs.tx) * per},
      {"tx_bytes_per_op", static_cast<double>(r.costs.tx_bytes) * per},
      {"allocs_per_op", static_cast<double>(r.costs.allocs) * per},
      {"frees_per_op", static_cast<double>(r.costs.frees) * per},
      {"translations_per_op", static_cast<double>(r.costs.translations) * per},
      {"voluntary_switches_per_op", static_cast<double>(r.costs.voluntary_switches) * per},
      {"involuntary_switches_per_op", static_cast<double>(r.costs.involuntary_switches) * per},
  };
  // Combining structures only (ds/combining.h): null where no session ran.
  const CostCounters& c = r.costs;
  const bool combined = c.combine_sessions > 0;
  const auto ratio = [&](uint64_t a, uint64_t b) {
    return combined && b > 0 ? nlohmann::json(static_cast<double>(a) / static_cast<double>(b))
                             : nlohmann::json();
  };
  m["combining_sessions_per_op"] = ratio(c.combine_sessions, ops);
  m["mean_batch_size"] = ratio(c.combined_ops, c.combine_sessions);
  m["elimination_ratio"] = ratio(c.eliminated_ops, c.combined_ops);
  m["spins_per_op"] = ratio(c.spins, ops);
  for (OpType type : op_types_of(r.op_set)) {
    const auto t = static_cast<size_t>(type);
    const std::string name(op_name(type));
    m[name + "_ops"] = r.tally.count[t];
    m[name + "_found"] = r.tally.found[t];
    m[name + "_not_found"] = r.tally.count[t] - r.tally.found[t];
    const LatencyHistogram& h = r.latency[t];
    if (h.count() == 0) continue;
    const std::string lat = "latency_" + name + "_";
    m[lat + "samples"] = h.count();
    m[lat + "mean_ns"] = h.mean();
    for (const auto& [suffix, q] : kPercentiles) m[lat + suffix + "_ns"] = h.percentile(q);
    m[lat + "max_ns"] = h.max();
  }
  nlohmann::json threads = nlohmann::json::array();
  for (const ThreadResult& t : r.threads) {
    threads.push_back(
        {{"ops", t.ops},
         {"seconds", t.seconds},
         {"ops_per_sec", t.seconds > 0 ? static_cast<double>(t.ops) / t.seconds : 0.0},
         {"cpus", t.cpus},
         {"start_cpu", t.start_cpu}});
  }
  m["per_thread"] = threads;
  if (!r.timeline.empty()) m["timeline_ops_per_sec"] = r.timeline;
  return m;
}

nlohmann::json make_aggregate(const nlohmann::json& context, nlohmann::json config,
                              std::span<const double> ops_per_sec) {
  const Summary s = summarize(ops_per_sec);
  config.erase("repetition");
  return {{"schema_version", kSchemaVersion},
          {"aggregate", true},
          {"context", context},
          {"config", config},
          {"metrics",
           {{"repetitions", s.n},
            {"ops_per_sec_mean", s.mean},
            {"ops_per_sec_median", s.median},
            {"ops_per_sec_stddev", s.stddev},
            {"ops_per_sec_cv", s.cv},
            {"ops_per_sec_min", s.min},
            {"ops_per_sec_max", s.max},
            {"ops_per_sec_ci95_low", s.ci95_low},
            {"ops_per_sec_ci95_high", s.ci95_high}}}};
}

nlohmann::json make_record(const nlohmann::json& context, const nlohmann::json& config,
                           const RepResult& r) {
  return {{"schema_version", kSchemaVersion},
          {"context", context},
          {"config", config},
          {"metrics", metrics_json(r)}};
}

void append_record(const std::string& path, const nlohmann::json& record) {
  create_parent_dirs(path, "result file");
  // Invalid UTF-8 (an ignored property's value, a file name) becomes U+FFFD:
  // a record is always valid JSON, and never lost at the end of a run.
  const std::string line =
      record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  // Non-blocking: a FIFO without a reader is refused (ENXIO) instead of waited on.
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd < 0)
    throw UsageError(fmt::format("cannot open result file '{}': {}", path, std::strerror(errno)));
  const ssize_t n = write(fd, line.data(), line.size());
  const int err = errno;
  close(fd);
  if (n != static_cast<ssize_t>(line.size())) {
    throw RuntimeError(fmt::format("cannot write result file '{}': {}", path, std::strerror(err)));
  }
}

void print_table_header(std::FILE* out) {
  fmt::print(out, "{:<14} {:<14} {:<18} {:>3} {:>4} {:>10} {:>8} {:>7} {:>8} {:>8} {:>9}\n", "ds",
             "mode", "workload", "thr", "rep", "Kops/s", "load s", "found%", "lines/op", "txB/op",
             "allocs/op");
}

void print_table_row(std::FILE* out, const nlohmann::json& rec) {
  const auto& c = rec["config"];
  const auto& m = rec["metrics"];
  const auto head = fmt::format("{:<14} {:<14} {:<18} {:>3}", c["ds"].get<std::string>(),
                                c["mode"].get<std::string>(), c["workload"].get<std::string>(),
                                c["threads"].get<int>());
  if (rec.contains("aggregate")) {
    const auto k = [&](const char* name) {
      return m[name].is_number() ? fmt::format("{:.1f}", m[name].get<double>() / 1e3) : "-";
    };
    fmt::print(out, "{} {:>4} {:>10}   median {}, min {}, max {}, 95% CI [{}, {}], cv {}\n", head,
               "all", k("ops_per_sec_mean"), k("ops_per_sec_median"), k("ops_per_sec_min"),
               k("ops_per_sec_max"), k("ops_per_sec_ci95_low"), k("ops_per_sec_ci95_high"),
               m["ops_per_sec_cv"].is_number()
                   ? fmt::format("{:.1f}%", 100 * m["ops_per_sec_cv"].get<double>())
                   : "-");
    std::fflush(out);
    return;
  }
  uint64_t found = 0;
  for (int t = 0; t < kOpTypes; ++t) {
    const std::string key = std::string(op_name(static_cast<OpType>(t))) + "_found";
    if (m.contains(key)) found += m[key].get<uint64_t>();
  }
  const uint64_t ops = m["ops"];
  const std::string rep =
      fmt::format("{}{}", rec.contains("warmup") ? "w" : "", c["repetition"].get<int>());
  fmt::print(out, "{} {:>4} {:>10.1f} {:>8.2f} {:>7.1f} {:>8.2f} {:>8.1f} {:>9.2f}\n", head, rep,
             m["ops_per_sec"].get<double>() / 1e3, m["load_seconds"].get<double>(),
             ops == 0 ? 0.0 : 100.0 * static_cast<double>(found) / static_cast<double>(ops),
             m["flushed_lines_per_op"].get<double>(), m["tx_bytes_per_op"].get<double>(),
             m["allocs_per_op"].get<double>());
  std::fflush(out);
}

}  // namespace pmemids
