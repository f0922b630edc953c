#include "run/result.h"

#include <fmt/format.h>

#include <algorithm>

#include "backend/backends.h"
#include "pmem/libpmem_hooks.h"
#include "pmem/policy.h"

namespace pmemids {
namespace {

constexpr std::pair<const char*, double> kPercentiles[] = {
    {"p50", 50}, {"p90", 90}, {"p99", 99}, {"p999", 99.9}, {"p9999", 99.99}};

using nlohmann::json;

enum class Cost { kPersists, kFlushedLines, kOther };

// Whether pmemids' own flush counters alone saw every write-back of this phase
// (used when libpmemobj's calls are not interposed): libpmemobj's own flushes
// (undo log, commit, new objects, allocator metadata) are then invisible, so
// they are complete only where libpmemobj flushes nothing (the backend list's
// lib_flushes: the volatile modes, and pmem-persist phases that neither
// allocate nor free). Every other counter counts calls pmemids makes and is
// always complete.
bool cost_observed(Cost c, Mode m, const CostCounters& k) {
  if (c == Cost::kOther) return true;
  switch (mode_info(m).lib_flushes) {
    case LibFlushes::kNever:
      return true;
    case LibFlushes::kOnAllocation:
      return k.allocs == 0 && k.frees == 0;
    case LibFlushes::kAlways:
      return false;
  }
  return false;
}

// n / d, or null when d is 0 (nothing was measured).
json ratio(double n, double d) { return d > 0 ? json(n / d) : json(); }

json structure_metric(const Metric& x, const CostCounters& c, uint64_t ops) {
  if (x.unless_zero >= 0 && c.ds[x.unless_zero] == 0) return json();
  const uint64_t per = x.per == Metric::kPerOp ? ops : c.ds[x.per];
  return ratio(static_cast<double>(c.ds[x.count]), static_cast<double>(per));
}

json thread_json(const ThreadResult& t) {
  json j = {{"ops", t.ops},
            {"seconds", t.seconds},
            {"ops_per_sec", ratio(static_cast<double>(t.ops), t.seconds)},
            {"cycles", t.cycles},
            {"cpus", t.cpus},
            {"start_cpu", t.start_cpu}};
  j.update(usage_json(t.usage));
  return j;
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

// <prefix>{samples,mean_ns,p50_ns,...,max_ns} of a histogram that has samples.
void latency_json(nlohmann::json& m, const std::string& prefix, const LatencyHistogram& h) {
  if (h.count() == 0) return;
  m[prefix + "samples"] = h.count();
  m[prefix + "mean_ns"] = h.mean();
  for (const auto& [suffix, q] : kPercentiles) m[prefix + suffix + "_ns"] = h.percentile(q);
  m[prefix + "max_ns"] = h.max();
}

}  // namespace

nlohmann::json metrics_json(const RepResult& r) {
  const uint64_t ops = r.tally.total();
  const auto per_op = [&](uint64_t count, Cost c = Cost::kOther) {
    return cost_observed(c, r.mode, r.costs) ? ratio(static_cast<double>(count), ops) : json();
  };
  // pmemids' own count plus libpmemobj's: exact when libpmemobj's calls into
  // libpmem reach pmemids' hooks (pmem/libpmem_hooks.h), else only where
  // libpmemobj flushes nothing (cost_observed).
  const bool lib = lib_hooks_bound();
  const auto with_lib = [&](uint64_t own, uint64_t libs, Cost c) {
    return lib ? ratio(static_cast<double>(own + libs), ops) : per_op(own, c);
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
      {"load_ops", r.load_ops},
      {"load_seconds", r.load_seconds},
      {"open_seconds", r.open_seconds},
      {"recovery_seconds", r.recovery_seconds},
      {"pool_bytes", r.pool_bytes},
      {"footprint_bytes", r.footprint_bytes},
      {"persists_per_op", with_lib(r.costs.persists, r.costs.lib_fences, Cost::kPersists)},
      {"flushed_lines_per_op",
       with_lib(r.costs.flushed_lines, r.costs.lib_flushed_lines, Cost::kFlushedLines)},
      {"flushes_elided_per_op",
       with_lib(r.costs.flushes_elided, r.costs.lib_flushes_elided, Cost::kFlushedLines)},
      {"fences_per_op", with_lib(r.costs.fences, r.costs.lib_fences, Cost::kPersists)},
      {"pmemids_persists_per_op", per_op(r.costs.persists)},
      {"pmemids_flushed_lines_per_op", per_op(r.costs.flushed_lines)},
      {"pmemids_fences_per_op", per_op(r.costs.fences)},
      {"tx_per_op", per_op(r.costs.tx)},
      {"tx_bytes_per_op", per_op(r.costs.tx_bytes)},
      {"tx_add_range_calls_per_op", per_op(r.costs.tx_add_range_calls)},
      {"tx_writes_per_op", per_op(r.costs.tx_writes)},
      {"allocs_per_op", per_op(r.costs.allocs)},
      {"frees_per_op", per_op(r.costs.frees)},
      {"translations_per_op", per_op(r.costs.translations)},
  };
  // libpmemobj's own write-backs alone, when observed; the what-if latencies
  // when injected.
  const auto per_op_if = [&](bool observed, uint64_t v) { return observed ? per_op(v) : json(); };
  m["lib_flushed_lines_per_op"] = per_op_if(lib, r.costs.lib_flushed_lines);
  m["lib_fences_per_op"] = per_op_if(lib, r.costs.lib_fences);
  m["lib_flushes_elided_per_op"] = per_op_if(lib, r.costs.lib_flushes_elided);
  const PersistencePolicy& policy = installed_policy();
  m["injected_write_ns_per_op"] = per_op_if(policy.write_ns > 0, r.costs.injected_write_ns);
  m["injected_read_ns_per_op"] = per_op_if(policy.read_ns > 0, r.costs.injected_read_ns);
  m.update(usage_json(r.usage));
  // Context switches of the workers' timed phases (run/thread_usage.h) per
  // operation; the structure's own metrics (its kMetrics), null where what
  // they rest on was not counted.
  m["voluntary_switches_per_op"] = per_op(r.usage.voluntary_switches);
  m["involuntary_switches_per_op"] = per_op(r.usage.involuntary_switches);
  for (const Metric& x : r.metrics) m[std::string(x.name)] = structure_metric(x, r.costs, ops);
  for (OpType type : op_types_of(r.op_set)) {
    const auto t = static_cast<size_t>(type);
    const std::string name(op_name(type));
    m[name + "_ops"] = r.tally.count[t];
    m[name + "_found"] = r.tally.found[t];
    m[name + "_not_found"] = r.tally.count[t] - r.tally.found[t];
    latency_json(m, "latency_" + name + "_", r.latency[t]);
    latency_json(m, "intended_latency_" + name + "_", r.intended_latency[t]);
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

const char* table_columns_help() {
  return R"(Table columns (stdout; stderr with --out -), one row per repetition:
  ds, mode, workload  structure, persistence mode, last workload file
  thr                 worker threads
  rep                 repetition: 0, 1, ...; w0, w1, ... for --warmup ones; 'all' for the
                      aggregate row of --repeat N > 1 (mean, then median, min, max, 95% CI, cv)
  Kops/s              thousands of operations per second in the timed phase (ops_per_sec)
  load s              seconds the untimed load of recordcount records took (load_seconds)
  lines/op            cache lines flushed per operation (flushed_lines_per_op)
  txB/op              bytes added to transactions per operation (tx_bytes_per_op)
  allocs/op           allocations per operation (allocs_per_op)
  found%              per operation type run, the percentage that found its key
                      (<op>_found / <op>_ops); for insert: the key was already there)";
}

void RunTable::header(std::FILE* out) const {
  fmt::print(out, "{:<14} {:<14} {:<18} {:>3} {:>4} {:>10} {:>8} {:>8} {:>8} {:>9}  {}\n", "ds",
             "mode", "workload", "thr", "rep", "Kops/s", "load s", "lines/op", "txB/op",
             "allocs/op", "found%");
}

namespace {

// "update 100.0 insert 0.0": the found fraction of each operation type run.
std::string found_text(const nlohmann::json& metrics) {
  std::string text;
  for (int t = 0; t < kOpTypes; ++t) {
    const std::string name(op_name(static_cast<OpType>(t)));
    if (!metrics.contains(name + "_ops")) continue;  // not an operation of the run's set
    const uint64_t ops = metrics[name + "_ops"];
    if (ops == 0) continue;
    const uint64_t found = metrics[name + "_found"];
    text += fmt::format("{}{} {:.1f}", text.empty() ? "" : " ", name,
                        100.0 * static_cast<double>(found) / static_cast<double>(ops));
  }
  return text.empty() ? "-" : text;
}

}  // namespace

void RunTable::row(std::FILE* out, const nlohmann::json& rec) const {
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
  const std::string rep =
      fmt::format("{}{}", rec.contains("warmup") ? "w" : "", c["repetition"].get<int>());
  fmt::print(out, "{} {:>4} {:>10} {:>8.2f} {:>8} {:>8} {:>9}  {}\n", head, rep,
             cell(m["ops_per_sec"], "{:.1f}", 1e-3), m["load_seconds"].get<double>(),
             cell(m["flushed_lines_per_op"], "{:.2f}"), cell(m["tx_bytes_per_op"], "{:.1f}"),
             cell(m["allocs_per_op"], "{:.2f}"), found_text(m));
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
