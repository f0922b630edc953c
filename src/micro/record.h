// Micro records and the stdout table.
//
// Record (one JSON line per repetition, reported as run's are: report/reporter.h):
//   {"schema_version", "kind": "micro", "bench", "context", "config", "metrics",
//    "expected_here", "caveats"[, "warmup": true]}
//   context   run's context (collect_context) plus domain, flush_instruction
//             (pmemids' own flushes: the policy's), libpmem_flush_instruction,
//             persistence (the whole policy), timer_overhead_ns, llc_bytes,
//             nt_store_bytes, prefetchers
//   config    kind, bench, every axis value of the point, every scalar option,
//             persistence options, seeds, repetition, and what the bench chose
//   metrics   ops, seconds (the common window), ops_per_sec = ops / seconds,
//             ns_per_op (the mean over threads of a thread's time per
//             operation), bytes and gib_per_sec where bytes move, sampled
//             latency_{samples,mean,p50,p90,p99,p999,max}(_ns), flushes_issued,
//             fences_issued and their per-op values (null when not known),
//             counted_by, per_thread, timer_overhead_ns, and bench extras
//   expected_here  null, or why this machine cannot show the effect the seeds
//             report (the first caveat: media, NUMA, counters, cores)
// Aggregates (--repeat > 1) are make_aggregate's (report/records.h) plus kind,
// bench and expected_here.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "micro/bench.h"
#include "report/reporter.h"

namespace pmemids::micro {

inline constexpr const char* kMediaCaveat = "media property: not expected on emulated PMEM";

nlohmann::json micro_context(const std::string& pool_dir, const PmemProbe& probe,
                             const PersistencePolicy& policy);

nlohmann::json metrics_json(const Measurement& m);

// Why this machine cannot show the bench's published effect at this point; the
// first is the record's expected_here.
std::vector<std::string> caveats(const BenchSpec& b, const Point& p, const BenchEnv& env);

nlohmann::json make_record(const Reporter& reporter, const BenchSpec& b,
                           const nlohmann::json& config, const Measurement& m,
                           const std::vector<std::string>& caveats);

// The aggregate of a point's repetitions, with the record's kind, bench and expected_here.
nlohmann::json make_aggregate(const Repetitions& reps, const BenchSpec& b,
                              const nlohmann::json& config,
                              const std::vector<std::string>& caveats);

// The table: a row per repetition and per aggregate, for the point set last.
class MicroTable final : public Table {
 public:
  // `point_width`: the widest point text of the run, so every row's columns line up.
  explicit MicroTable(size_t point_width) : width_(point_width) {}
  // The point the next rows are of, as the table shows it.
  void point(std::string text) { point_ = std::move(text); }
  void header(std::FILE* out) const override;
  void row(std::FILE* out, const nlohmann::json& record) const override;

 private:
  size_t width_;
  std::string point_;
};
// What ns/op and the sampled p50/p99 mean, after the table.
void print_table_footnote(std::FILE* out);

}  // namespace pmemids::micro
