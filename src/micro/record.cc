#include "micro/record.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>

#include "micro/harness.h"
#include "micro/region.h"

namespace pmemids::micro {
namespace {

constexpr std::pair<const char*, double> kPercentiles[] = {
    {"p50", 50}, {"p90", 90}, {"p99", 99}, {"p999", 99.9}};

nlohmann::json per_op(const std::optional<uint64_t>& total, uint64_t ops) {
  if (!total || ops == 0) return nullptr;
  return static_cast<double>(*total) / static_cast<double>(ops);
}

std::string prefetcher_state() {
  return access("/dev/cpu/0/msr", W_OK) == 0
             ? "as the firmware set them; pmemids does not change MSRs"
             : "not controllable here (no writable /dev/cpu/*/msr); as the firmware set them";
}

}  // namespace

nlohmann::json micro_context(const std::string& pool_dir, const PmemProbe& probe,
                             const PersistencePolicy& policy) {
  nlohmann::json c = collect_context(pool_dir, probe);
  c["libpmem_flush_instruction"] = c["flush_instruction"];
  c["flush_instruction"] = policy.flush_label();
  c["domain"] = policy.domain.label();
  c["persistence"] = policy.to_json();
  c["timer_overhead_ns"] = timer_overhead_ns();
  c["nt_store_bytes"] = nt_fill_width();
  c["prefetchers"] = prefetcher_state();
  return c;
}

nlohmann::json metrics_json(const Measurement& m) {
  const double secs = m.seconds;
  double ns_sum = 0;
  int ns_n = 0;
  nlohmann::json threads = nlohmann::json::array();
  for (size_t t = 0; t < m.thread_ops.size(); ++t) {
    const double s = t < m.thread_seconds.size() ? m.thread_seconds[t] : 0;
    if (m.thread_ops[t] > 0) {
      ns_sum += 1e9 * s / static_cast<double>(m.thread_ops[t]);
      ++ns_n;
    }
    nlohmann::json thread = {
        {"ops", m.thread_ops[t]},
        {"seconds", s},
        {"ops_per_sec",
         s > 0 ? nlohmann::json(static_cast<double>(m.thread_ops[t]) / s) : nlohmann::json()},
        {"cpus", t < m.thread_cpus.size() ? m.thread_cpus[t] : std::vector<int>{}},
        {"start_cpu", t < m.start_cpu.size() ? m.start_cpu[t] : -1}};
    if (t < m.thread_usage.size()) thread.update(usage_json(m.thread_usage[t]));
    threads.push_back(thread);
  }
  nlohmann::json j = {
      {"ops", m.ops},
      {"seconds", secs},
      {"ops_per_sec",
       secs > 0 ? nlohmann::json(static_cast<double>(m.ops) / secs) : nlohmann::json()},
      {"ns_per_op", ns_n > 0 ? nlohmann::json(ns_sum / ns_n) : nlohmann::json()},
      {"bytes", m.bytes > 0 ? nlohmann::json(m.bytes) : nlohmann::json()},
      {"gib_per_sec", m.bytes > 0 && secs > 0
                          ? nlohmann::json(static_cast<double>(m.bytes) / secs / (1 << 30))
                          : nlohmann::json()},
      {"flushes_issued", m.flushes ? nlohmann::json(*m.flushes) : nlohmann::json()},
      {"fences_issued", m.fences ? nlohmann::json(*m.fences) : nlohmann::json()},
      {"flushes_per_op", per_op(m.flushes, m.ops)},
      {"fences_per_op", per_op(m.fences, m.ops)},
      {"counted_by", m.counted_by.empty() ? nlohmann::json() : nlohmann::json(m.counted_by)},
      {"latency_samples", m.latency.count()},
      {"timer_overhead_ns", timer_overhead_ns()},
      {"per_thread", threads},
  };
  const bool sampled = m.latency.count() > 0;
  j["latency_mean_ns"] = sampled ? nlohmann::json(m.latency.mean()) : nlohmann::json();
  for (const auto& [name, q] : kPercentiles) {
    j[fmt::format("latency_{}_ns", name)] =
        sampled ? nlohmann::json(m.latency.percentile(q)) : nlohmann::json();
  }
  j["latency_max_ns"] = sampled ? nlohmann::json(m.latency.max()) : nlohmann::json();
  // The workers' timed phases together (run/thread_usage.h); absent for a
  // measurement that did not run on the crew.
  if (!m.thread_usage.empty()) {
    ThreadUsage usage;
    for (const ThreadUsage& u : m.thread_usage) usage += u;
    j.update(usage_json(usage));
  }
  j.update(m.metrics);
  return j;
}

std::vector<std::string> caveats(const BenchSpec& b, const Point& p, const BenchEnv& env) {
  std::vector<std::string> out;
  if (!b.needs.media.empty() && !env.probe.real) out.emplace_back(kMediaCaveat);
  if (p.has("numa") && p.name("numa") == "remote") {
    out.emplace_back("NUMA: remote memory measured on a machine with more than one node");
  }
  if (b.needs.counters) {
    out.push_back(fmt::format("counters: {} need hardware counters, never printed here",
                              b.needs.counter_names));
  }
  const int cpus = cpus_online();
  if (env.threads > cpus) {
    out.push_back(
        fmt::format("cores: {} threads on {} CPUs (oversubscribed): scaling not measurable",
                    env.threads, cpus));
  }
  return out;
}

namespace {

// What a micro record and aggregate add to the common fields.
void add_bench_fields(nlohmann::json& rec, const BenchSpec& b,
                      const std::vector<std::string>& cav) {
  rec["kind"] = "micro";
  rec["bench"] = b.name;
  rec["expected_here"] = cav.empty() ? nlohmann::json() : nlohmann::json(cav.front());
}

}  // namespace

nlohmann::json make_record(const Reporter& reporter, const BenchSpec& b,
                           const nlohmann::json& config, const Measurement& m,
                           const std::vector<std::string>& cav) {
  nlohmann::json rec = reporter.record(config, metrics_json(m));
  add_bench_fields(rec, b, cav);
  rec["caveats"] = cav;
  return rec;
}

nlohmann::json make_aggregate(const Repetitions& reps, const BenchSpec& b,
                              const nlohmann::json& config, const std::vector<std::string>& cav) {
  nlohmann::json agg = reps.aggregate(config);
  add_bench_fields(agg, b, cav);
  return agg;
}

void MicroTable::header(std::FILE* out) const {
  fmt::print(out, "{:<9} {:<{}} {:>3} {:>4} {:>10} {:>9} {:>8} {:>8} {:>8} {:>7} {:>7}\n", "bench",
             "point", width_, "thr", "rep", "Mops/s", "ns/op", "GiB/s", "p50 ns", "p99 ns", "fl/op",
             "fe/op");
}

void MicroTable::row(std::FILE* out, const nlohmann::json& rec) const {
  const auto& c = rec["config"];
  const auto& m = rec["metrics"];
  const int threads = c.value("threads", 1);
  if (rec.contains("aggregate")) {
    fmt::print(
        out, "{:<9} {:<{}} {:>3} {:>4} {:>10}   median {}, min {}, max {}, cv {}\n",
        rec["bench"].get<std::string>(), point_, width_, threads, "all",
        cell(m["ops_per_sec_mean"], "{:.3f}", 1e-6), cell(m["ops_per_sec_median"], "{:.3f}", 1e-6),
        cell(m["ops_per_sec_min"], "{:.3f}", 1e-6), cell(m["ops_per_sec_max"], "{:.3f}", 1e-6),
        cell(m["ops_per_sec_cv"], "{:.1f}%", 100));
    std::fflush(out);
    return;
  }
  const std::string rep =
      fmt::format("{}{}", rec.contains("warmup") ? "w" : "", c["repetition"].get<int>());
  fmt::print(out, "{:<9} {:<{}} {:>3} {:>4} {:>10} {:>9} {:>8} {:>8} {:>8} {:>7} {:>7}\n",
             rec["bench"].get<std::string>(), point_, width_, threads, rep,
             cell(m["ops_per_sec"], "{:.3f}", 1e-6), cell(m["ns_per_op"], "{:.1f}"),
             cell(m["gib_per_sec"], "{:.2f}"), cell(m["latency_p50_ns"], "{:.0f}"),
             cell(m["latency_p99_ns"], "{:.0f}"), cell(m["flushes_per_op"], "{:.2f}"),
             cell(m["fences_per_op"], "{:.2f}"));
  std::fflush(out);
}

void print_table_footnote(std::FILE* out) {
  fmt::print(out,
             "ns/op: a thread's timed window / its operations (operations overlap: pipelined "
             "stores and write-backs); p50/p99 ns: sampled operations (--latency-sample), each "
             "timed alone between two clock reads (~20 ns, context.timer_overhead_ns), so p50 can "
             "exceed ns/op (docs/micro.md, \"Sampled latencies are not ns_per_op\")\n");
}

}  // namespace pmemids::micro
