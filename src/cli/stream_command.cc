// `pmemids stream`: the operation stream(s) `pmemids run` would execute with the
// same workload and thread arguments, as a trace (workload/trace.h) that
// tracefile= runs again, or a summary of its operation mix and key popularity.
//
// Streams come from build_streams(), as run's do; lines are in worker order:
// parallel worker t's stream as thread t, concurrent (and native) worker t's
// part of the workload (plan_streams: kv slice, queue role, share; see
// workload/stream.h) as thread t, single as thread 0. Nothing is written
// before the streams are built, so a refused configuration leaves --out alone.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <unordered_map>

#include "cli/commands.h"
#include "errors.h"
#include "options/run_options.h"
#include "options/validators.h"
#include "options/workload_options.h"
#include "util/file_checks.h"
#include "workload/properties.h"
#include "workload/sources.h"
#include "workload/trace.h"

namespace pmemids {
namespace {

struct StreamOptions {
  WorkloadOptions workload;  // -P, -p, --seed, as run reads them
  std::string thread_mode = "single";
  int threads = 1;
  std::string out;
  std::optional<uint64_t> head;
  bool summary = false;
};

// One worker's operations.
struct WorkerOps {
  int thread;
  std::span<const Op> ops;
  const Stream* stream;
};

std::vector<WorkerOps> workers(const RunStreams& built) {
  std::vector<WorkerOps> out;
  for (size_t t = 0; t < built.streams.size(); ++t) {
    out.push_back({static_cast<int>(t), built.streams[t].ops, &built.streams[t]});
  }
  return out;
}

double pct(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

// Operation mix, and how requests on keys (every operation but inserts and
// reads aimed at never-inserted keys) spread over the ids that exist by the
// end (records_max of each stream, summed; concurrent slices address one
// instance: their keys are counted together, the ids are the highest bound).
void print_summary(std::FILE* out, const std::vector<WorkerOps>& ws, const RunStreams& built) {
  uint64_t by_type[kOpTypes] = {}, total = 0, requests = 0, ids = 0, load = 0;
  const bool shared = built.share == StreamShare::kSlices;
  std::vector<std::unordered_map<uint64_t, uint64_t>> hits(shared ? 1 : built.streams.size());
  for (const WorkerOps& w : ws) {
    auto& h = hits[shared ? 0 : static_cast<size_t>(w.stream - built.streams.data())];
    for (const Op& op : w.ops) {
      ++by_type[static_cast<int>(op.type)];
      ++total;
      if (op.type == OpType::kInsert || w.stream->codec.decode(op.key) >= kMissBase) continue;
      ++requests;
      ++h[op.key];
    }
  }
  std::vector<uint64_t> counts;  // requests per (stream, key), descending
  for (const auto& h : hits) {
    for (const auto& [k, c] : h) counts.push_back(c);
  }
  std::sort(counts.rbegin(), counts.rend());
  for (const Stream& st : built.streams) {
    ids = shared ? std::max(ids, st.records_max) : ids + st.records_max;
    load += st.load_keys.size();
  }
  std::string mix;
  for (int t = 0; t < kOpTypes; ++t) {
    if (by_type[t] == 0) continue;
    mix += fmt::format("{}{} {} ({:.2f}%)", mix.empty() ? "" : ", ",
                       op_name(static_cast<OpType>(t)), by_type[t], pct(by_type[t], total));
  }
  fmt::print(out, "operations: {}: {}\n", total, mix.empty() ? "none" : mix);
  fmt::print(out, "keys: {} loaded, {} ids by the end, {} distinct keys requested\n", load, ids,
             counts.size());
  const auto top = [&](uint64_t n) {
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n && i < counts.size(); ++i) sum += counts[i];
    return sum;
  };
  const uint64_t half = ids / 2;  // the coldest half, counting ids never requested as 0
  const uint64_t cold = requests - top(ids - half);
  fmt::print(out,
             "requests: {} on keys; hottest key {:.2f}%, top 1% of ids ({}) {:.2f}%, top 10% ({}) "
             "{:.2f}%, coldest half ({}) {:.2f}%\n",
             requests, pct(top(1), requests), ids / 100, pct(top(ids / 100), requests), ids / 10,
             pct(top(ids / 10), requests), half, pct(cold, requests));
}

void stream(const StreamOptions& o) {
  if (!o.out.empty()) check_output_path(o.out, "--out");
  const WorkloadSpec spec = build_workload(o.workload);
  check_thread_count(o.thread_mode, o.threads);
  const RunStreams built = build_streams(spec, o.thread_mode == "single" ? 1 : o.threads,
                                         o.thread_mode == "concurrent" || o.thread_mode == "native"
                                             ? StreamShare::kSlices
                                             : StreamShare::kOwn);
  const std::vector<WorkerOps> ws = workers(built);

  if (o.summary) print_summary(stdout, ws, built);
  if (o.summary && o.out.empty()) return;
  std::FILE* out = stdout;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(nullptr, &std::fclose);
  if (!o.out.empty()) {
    file.reset(std::fopen(o.out.c_str(), "w"));
    if (!file) {
      throw UsageError(
          fmt::format("--out '{}' cannot be written: {}", o.out, std::strerror(errno)));
    }
    out = file.get();
  }
  fmt::print(
      out, "# pmemids stream: {}; seed {}; thread-mode {}; threads {}; generator {}\n",
      spec.files.empty() ? "no workload file" : fmt::format("{}", fmt::join(spec.files, ", ")),
      spec.seed, o.thread_mode, o.threads, spec.request_generator());
  write_trace_header(out);
  uint64_t left = o.head.value_or(UINT64_MAX);
  for (const WorkerOps& w : ws) {
    for (const Op& op : w.ops) {
      if (left == 0) break;
      write_trace_line(out, w.thread, op);
      --left;
    }
  }
  if (std::fflush(out) != 0 || std::ferror(out) != 0) {
    throw RuntimeError(fmt::format("cannot write the stream to {}: {}",
                                   o.out.empty() ? "stdout" : o.out, std::strerror(errno)));
  }
}

}  // namespace

void add_stream_command(CLI::App& app) {
  auto o = std::make_shared<StreamOptions>();
  CLI::App* sub = app.add_subcommand(
      "stream", "Write the operation stream(s) `run` would execute, as a trace (or summarise it)");
  add_workload_options(sub, o->workload);
  sub->add_option("--thread-mode", o->thread_mode,
                  "single | parallel (a stream per worker) | concurrent, native (each worker "
                  "its part of the workload, as `run` splits it)")
      ->check(CLI::IsMember({"single", "parallel", "concurrent", "native"}));
  sub->add_option("--threads", o->threads, "Workers (parallel, concurrent, native)")
      ->check(CLI::Range(1, 1024));
  sub->add_option("--out", o->out, "Trace file to write (default: stdout)")->check(non_empty());
  sub->add_option("--head", o->head, "Only the first N operations")->check(count_value());
  sub->add_flag("--summary", o->summary,
                "Print the operation mix and key popularity (hottest key, top 1% and 10% of ids, "
                "coldest half) instead of the trace (with --out: as well)");
  sub->callback([o] { stream(*o); });
}

}  // namespace pmemids
