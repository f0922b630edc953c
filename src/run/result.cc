#include "run/result.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "errors.h"
#include "stats/summary.h"
#include "util/file_checks.h"

namespace pmemids {
namespace {

constexpr std::pair<const char*, double> kPercentiles[] = {
    {"p50", 50}, {"p90", 90}, {"p99", 99}, {"p999", 99.9}, {"p9999", 99.99}};

using nlohmann::json;

enum class Cost { kPersists, kFlushedLines, kOther };

// Whether a cost counter saw every event it names in this phase. pmemids counts
// the persists it issues itself; libpmemobj's own flushes (undo log, commit,
// new objects, allocator metadata) are not counted yet, so `persists` and
// `flushed_lines` are complete only where libpmemobj flushes nothing: the
// volatile modes, and pmem-persist phases that neither allocate nor free.
// Every other counter counts calls pmemids makes and is always complete.
bool cost_observed(Cost c, Mode m, const CostCounters& k) {
  if (c == Cost::kOther) return true;
  switch (m) {
    case Mode::kDram:
    case Mode::kVolatile:
      return true;
    case Mode::kPersist:
      return k.allocs == 0 && k.frees == 0;
    case Mode::kTrans:
      return false;
  }
  return false;
}

// n / d, or null when d is 0 (nothing was measured).
json ratio(double n, double d) { return d > 0 ? json(n / d) : json(); }

json thread_json(const ThreadResult& t) {
  return {{"ops", t.ops},
          {"seconds", t.seconds},
          {"ops_per_sec", ratio(static_cast<double>(t.ops), t.seconds)},
          {"cycles", t.cycles},
          {"cpu_user_seconds", t.usage.user_seconds},
          {"cpu_system_seconds", t.usage.system_seconds},
          {"involuntary_context_switches", t.usage.involuntary_switches},
          {"cpus", t.cpus},
          {"start_cpu", t.start_cpu}};
}

// (max - min) / max of the workers' timed phases; 0 for one worker.
json thread_spread(const std::vector<ThreadResult>& threads) {
  if (threads.empty()) return json();
  double lo = threads[0].seconds, hi = threads[0].seconds;
  for (const ThreadResult& t : threads) {
    lo = std::min(lo, t.seconds);
    hi = std::max(hi, t.seconds);
  }
  return ratio(hi - lo, hi);
}

// A number, or "n/a" for null.
std::string cell(const json& v, const char* format, double scale = 1) {
  return v.is_number() ? fmt::format(fmt::runtime(format), v.get<double>() * scale) : "n/a";
}

}  // namespace

nlohmann::json metrics_json(const RepResult& r) {
  const uint64_t ops = r.tally.total();
  const auto per_op = [&](uint64_t count, Cost c = Cost::kOther) {
    return cost_observed(c, r.mode, r.costs) ? ratio(static_cast<double>(count), ops) : json();
  };
  json m = {
      {"ops", ops},
      {"operationcount", r.operationcount},
      {"seconds", r.seconds},
      {"ops_per_sec", ratio(static_cast<double>(ops), r.seconds)},
      {"wall_ops_per_sec", ratio(static_cast<double>(ops), r.seconds)},
      {"sum_of_rates_ops_per_sec", r.threads.empty() ? json() : json(r.sum_of_rates)},
      {"thread_seconds_spread", thread_spread(r.threads)},
      {"short_timed_phase", r.seconds < kShortTimedPhaseSeconds},
      {"allowed_cpus", r.allowed_cpus > 0 ? json(r.allowed_cpus) : json()},
      {"oversubscribed", r.allowed_cpus > 0 && r.workers > r.allowed_cpus},
      {"cycles", r.cycles},
      {"cycles_exhausted", r.cycles_exhausted},
      {"cpu_user_seconds", r.usage.user_seconds},
      {"cpu_system_seconds", r.usage.system_seconds},
      {"voluntary_context_switches", r.usage.voluntary_switches},
      {"involuntary_context_switches", r.usage.involuntary_switches},
      {"load_ops", r.load_ops},
      {"load_seconds", r.load_seconds},
      {"open_seconds", r.open_seconds},
      {"recovery_seconds", r.recovery_seconds},
      {"pool_bytes", r.pool_bytes},
      {"persists_per_op", per_op(r.costs.persists, Cost::kPersists)},
      {"flushed_lines_per_op", per_op(r.costs.flushed_lines, Cost::kFlushedLines)},
      {"pmemids_persists_per_op", per_op(r.costs.persists)},
      {"pmemids_flushed_lines_per_op", per_op(r.costs.flushed_lines)},
      {"tx_per_op", per_op(r.costs.tx)},
      {"tx_bytes_per_op", per_op(r.costs.tx_bytes)},
      {"allocs_per_op", per_op(r.costs.allocs)},
      {"frees_per_op", per_op(r.costs.frees)},
      {"translations_per_op", per_op(r.costs.translations)},
  };
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
  json threads = json::array();
  for (const ThreadResult& t : r.threads) threads.push_back(thread_json(t));
  m["per_thread"] = threads;
  if (!r.timeline.empty()) m["timeline_ops_per_sec"] = r.timeline;
  return m;
}

std::vector<std::string> record_warnings(const nlohmann::json& record) {
  const auto& m = record["metrics"];
  std::vector<std::string> out;
  const double secs = m["seconds"].get<double>();
  if (m["short_timed_phase"].get<bool>()) {
    out.push_back(fmt::format(
        "short timed phase: {:.3f} s (under {} s): timer, scheduler and cache effects weigh "
        "heavily; raise operationcount or pass --min-time",
        secs, kShortTimedPhaseSeconds));
  }
  const auto& spread = m["thread_seconds_spread"];
  if (spread.is_number() && spread.get<double>() > kThreadSpreadWarning) {
    double lo = secs, hi = 0;
    for (const auto& t : m["per_thread"]) {
      lo = std::min(lo, t["seconds"].get<double>());
      hi = std::max(hi, t["seconds"].get<double>());
    }
    out.push_back(fmt::format(
        "per-thread timed phases spread {:.0f}% ({:.3f}-{:.3f} s): part of the common window "
        "ran fewer workers than --threads",
        100 * spread.get<double>(), lo, hi));
  }
  if (m["cycles_exhausted"].get<bool>()) {
    out.push_back(fmt::format(
        "--duration ended after {:.3f} s and {} replay cycles: the structure was sized for that "
        "many cycles of inserts (docs/design.md); raise operationcount for more per cycle",
        secs, m["cycles"].get<uint64_t>()));
  }
  return out;
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
    const auto k = [&](const char* name) { return cell(m[name], "{:.1f}", 1e-3); };
    fmt::print(out, "{} {:>4} {:>10}   median {}, min {}, max {}, 95% CI [{}, {}], cv {}\n", head,
               "all", k("ops_per_sec_mean"), k("ops_per_sec_median"), k("ops_per_sec_min"),
               k("ops_per_sec_max"), k("ops_per_sec_ci95_low"), k("ops_per_sec_ci95_high"),
               cell(m["ops_per_sec_cv"], "{:.1f}%", 100));
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
  fmt::print(out, "{} {:>4} {:>10} {:>8.2f} {:>7} {:>8} {:>8} {:>9}\n", head, rep,
             cell(m["ops_per_sec"], "{:.1f}", 1e-3), m["load_seconds"].get<double>(),
             cell(ratio(100.0 * static_cast<double>(found), static_cast<double>(ops)), "{:.1f}"),
             cell(m["flushed_lines_per_op"], "{:.2f}"), cell(m["tx_bytes_per_op"], "{:.1f}"),
             cell(m["allocs_per_op"], "{:.2f}"));
  // Sampled latencies, beside the clock cost every sample includes.
  std::string lat;
  for (int t = 0; t < kOpTypes; ++t) {
    const std::string name(op_name(static_cast<OpType>(t)));
    const std::string p50 = "latency_" + name + "_p50_ns", p99 = "latency_" + name + "_p99_ns";
    if (!m.contains(p50)) continue;
    lat += fmt::format("{}{} {:.0f}/{:.0f}", lat.empty() ? "" : ", ", name, m[p50].get<double>(),
                       m[p99].get<double>());
  }
  if (!lat.empty()) {
    const auto& timer = rec["context"]["timer_overhead_ns"];
    fmt::print(out, "{:>14} latency p50/p99 ns: {} (each includes the timer overhead {} ns)\n", "",
               lat, cell(timer, "{:.0f}"));
  }
  std::fflush(out);
}

}  // namespace pmemids
