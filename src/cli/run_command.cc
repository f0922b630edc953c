// `pmemids run`: run one workload on one or more (structure, mode) pairs and
// append one record per repetition to a JSON-lines file. The options become a
// plan (cli/run_plan.h), the plan's pairs run repetition by repetition, and
// each repetition is reported as it ends (report/reporter.h).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "cli/commands.h"
#include "cli/run_plan.h"
#include "counters/counters_row.h"
#include "errors.h"
#include "host/placement.h"
#include "options/lists.h"
#include "options/run_options.h"
#include "pmem/policy.h"
#include "registry/footprint.h"
#include "registry/registry.h"
#include "report/reporter.h"
#include "run/context.h"
#include "run/locks.h"
#include "run/result.h"
#include "stats/sampling.h"
#include "util/shipped_files.h"
#include "util/stop_signals.h"
#include "workload/sources.h"
#include "workload/stream.h"

namespace pmemids {
namespace {

constexpr uint64_t kSampleSeedSalt = 0x6c6174656e637921ULL;  // "latency!"

std::string workload_name(const WorkloadSpec& spec) {
  if (spec.files.empty()) return "custom";
  return std::filesystem::path(spec.files.back()).filename().string();
}

// What the streams hold that the workload's properties did not say: scans from a
// trace (refused for structures that cannot scan) and key draws folded after
// bounded redraws (warned: the distribution is not YCSB's there).
void check_streams(const RunStreams& built,
                   const std::vector<std::pair<const DsEntry*, Mode>>& pairs) {
  uint64_t folds = 0, ops = 0;
  bool scans = false;
  for (const Stream& st : built.streams) {
    folds += st.key_folds;
    ops += st.ops.size();
    scans |= st.max_scan_len > 0;
  }
  for (const auto& [e, m] : pairs) {
    if (scans && !e->can_scan()) {
      throw UsageError(
          fmt::format("{} cannot scan but the trace has scans; structures that can: {}", e->name,
                      structure_names([](const DsEntry& x) { return x.can_scan(); })));
    }
  }
  if (folds > 0) {
    fmt::print(stderr,
               "pmemids: warning: {} of {} key choices gave up redrawing ids not inserted yet and "
               "were folded onto the inserted ids (recordcount is tiny against the inserts "
               "expected): the request distribution is not YCSB's here\n",
               folds, ops);
  }
}

// Each worker's operations (build_streams: parallel workers a stream each;
// concurrent and native workers their part of the workload, as plan_streams
// shapes it: kv slice t of n, queue roles, set and stack shares; a single
// worker one stream) and its latency samples.
struct Streams {
  RunStreams built;
  std::vector<Feed> feeds;
};

Streams make_streams(const WorkloadSpec& spec, ThreadMode tm, int threads, double rate) {
  Streams s{.built = build_streams(spec, tm == ThreadMode::kSingle ? 1 : threads,
                                   shared_instance(tm) ? StreamShare::kSlices : StreamShare::kOwn),
            .feeds = {}};
  for (size_t t = 0; t < s.built.streams.size(); ++t) {
    const Stream& st = s.built.streams[t];
    s.feeds.push_back(
        {&st, sample_positions(st.ops.size(), rate, s.built.seeds[t] ^ kSampleSeedSalt)});
  }
  return s;
}

// Each stream's role (mixed, producer, consumer), in worker order.
std::vector<std::string> stream_roles(const RunStreams& built) {
  std::vector<std::string> out;
  for (const StreamShape& sh : built.shapes) out.emplace_back(role_name(sh.role));
  return out;
}

// --min-time: at most this many regrowths of one repetition, each by the
// shortfall with this margin, by at most kMaxGrowth at a time.
constexpr int kMaxMinTimeRetries = 8;
constexpr double kMinTimeMargin = 1.25;
constexpr double kMaxGrowth = 100;

void warn_unoptimized() {
  if (!optimized_build()) {
    fmt::print(stderr,
               "pmemids: warning: this binary was built without optimisation ({}); "
               "its timings do not represent the structures\n",
               PMEMIDS_BUILD_TYPE);
  }
}

// The run's process: its policy installed, what its pools are said, and this
// thread placed as the workers are: it builds the streams and the concurrent
// instance, whose memory is then local where theirs is.
void enter_run(const RunPlan& plan, const RunOptions& o) {
  install_policy(plan.policy);
  warn_policy(plan.policy);
  // Only runs that open a pool are emulated PMEM; a dram run touches none.
  const bool pools = std::any_of(plan.pairs.begin(), plan.pairs.end(),
                                 [](const auto& p) { return mode_info(p.second).opens_pool(); });
  if (!plan.probe.real && pools) {
    fmt::print(stderr,
               "pmemids: warning: PMEM is EMULATED: pool directory '{}' is on {} ({} "
               "granularity, no DAX); flush instructions run but memory is DRAM. "
               "Results are marked \"pmem\": \"emulated\".\n",
               plan.pool_dir, plan.probe.fs, plan.probe.granularity);
  } else if (o.mem_node) {
    fmt::print(stderr,
               "pmemids: warning: the pools are on DAX PMEM, whose node is the node of the "
               "device behind '{}'; --mem-node {} places only DRAM memory\n",
               plan.pool_dir, *o.mem_node);
  }
  for (const auto& w : plan.placement.warnings) fmt::print(stderr, "pmemids: warning: {}\n", w);
  if (o.cpu_node) run_on_node(*o.cpu_node);
  if (o.mem_node) bind_memory(*o.mem_node);
}

// Every record's context: the machine, what is counted, and the workload
// files read, by absolute path and content hash (util/shipped_files.h).
nlohmann::json run_context(const RunPlan& plan) {
  nlohmann::json context = collect_context(plan.pool_dir, plan.probe);
  const CounterPlan& p = plan.counters;
  if (p.mode == CounterMode::kPerf) context["counters"] = "perf";
  if (p.mode == CounterMode::kSim) {
    context["counters"] = "simulated";
    context["sim"] = sim_context(*p.caches, p.instrument, plan.client.threads);
  }
  context["input_files"] = nlohmann::json::array();
  for (const auto& f : plan.spec.files) {
    context["input_files"].push_back({{"path", f}, {"hash", file_hash(f, "workload file")}});
  }
  return context;
}

// A repetition's result and the load averages around it.
struct Measured {
  RepResult result;
  nlohmann::json loadavg_before, loadavg_after;
};

// The plan's pairs, run: their streams (regenerated when --min-time grew
// them), the request each repetition runs, and the counters around it.
class Execution {
 public:
  Execution(const RunPlan& plan, const RunOptions& o);
  Execution(const Execution&) = delete;
  Execution& operator=(const Execution&) = delete;

  // The pair's --warmup + --repeat repetitions, then their aggregate.
  void run_pair(const DsEntry& e, Mode m, const Reporter& reporter);

 private:
  Measured measure(const DsEntry& e, Mode m, int shown);
  void warn_load(const nlohmann::json& loadavg);
  bool grow(const DsEntry& e, Mode m, int shown, double seconds, int retry);
  nlohmann::json metrics(const DsEntry& e, Mode m, int rep, const RepResult& r) const;
  nlohmann::json config(const DsEntry& e, Mode m, int shown, const RepResult& r) const;

  const RunPlan& plan_;
  const RunOptions& o_;
  WorkloadSpec current_;  // operationcount grows under --min-time
  Streams streams_;
  CrewCounters counters_;
  RunRequest req_;
  const double cpus_ = static_cast<double>(sysconf(_SC_NPROCESSORS_ONLN));
  bool warned_load_ = false;
};

Execution::Execution(const RunPlan& plan, const RunOptions& o)
    : plan_(plan),
      o_(o),
      current_(plan.spec),
      counters_(plan.counters.mode, plan.counters.events, plan.client.threads) {
  const WorkloadSpec& spec = plan.spec;
  const int stream_count = plan.thread_mode == ThreadMode::kSingle ? 1 : plan.client.threads;
  const uint64_t load_keys = spec.op_set() == OpSet::kSet ? spec.keyrange / 2 : spec.recordcount;
  if (spec.tracefile.empty() && shared_instance(plan.thread_mode)) {
    fmt::print(stderr,
               "pmemids: generating {} load keys and {} operations in {} worker streams "
               "(seed {})\n",
               load_keys, spec.operationcount, stream_count, spec.seed);
  } else if (spec.tracefile.empty()) {
    fmt::print(stderr, "pmemids: generating {} x ({} load keys, {} operations) (seed {})\n",
               stream_count, load_keys, spec.operationcount, spec.seed);
  } else {
    fmt::print(stderr, "pmemids: reading {} x (trace {})\n",
               plan.thread_mode == ThreadMode::kParallel ? plan.client.threads : 1, spec.tracefile);
  }
  streams_ = make_streams(current_, plan.thread_mode, plan.client.threads, plan.latency_sample);
  check_streams(streams_.built, plan.pairs);
  req_ = {.pool_dir = plan.pool_dir,
          .pool_size = plan.pool_size,
          .reopen = o.reopen,
          .pool_check_timeout_s = o.pool_check_timeout,
          .knobs = knob_values(o.knobs),
          .spec = &current_,
          .thread_mode = plan.thread_mode,
          .threads = plan.client.threads,
          .placement = plan.placement,
          .timing = {.duration = o.duration,
                     .timeline_ms = o.timeline_ms,
                     .status_interval = plan.client.status_interval,
                     .target = plan.client.target,
                     .counters = plan.counters.mode == CounterMode::kNone ? nullptr : &counters_},
          .feeds = streams_.feeds};
}

void Execution::run_pair(const DsEntry& e, Mode m, const Reporter& reporter) {
  if (current_.operationcount != plan_.spec.operationcount) {  // grown for the previous pair
    current_ = plan_.spec;
    streams_ =
        make_streams(current_, plan_.thread_mode, plan_.client.threads, plan_.latency_sample);
    req_.feeds = streams_.feeds;
  }
  req_.lock = o_.lock.empty() ? default_lock(m) : find_lock(o_.lock, m);
  Repetitions reps(reporter);
  for (int rep = -o_.warmup; rep < o_.repeat; ++rep) {
    throw_if_stopped();
    const int shown = rep < 0 ? rep + o_.warmup : rep;
    req_.keep_pool = o_.keep_pool && rep == o_.repeat - 1;  // the last repetition's pool
    // Once: later repetitions reopen what the first one checked and ran on.
    req_.check_reopened = !o_.no_pool_check && rep == -o_.warmup;
    const Measured r = measure(e, m, shown);
    const nlohmann::json config = this->config(e, m, shown, r.result);
    const nlohmann::json context = {{"loadavg_before", r.loadavg_before},
                                    {"loadavg_after", r.loadavg_after}};
    nlohmann::json record = reporter.record(config, metrics(e, m, rep, r.result), context);
    reps.add(record, rep, r.result.ops_per_sec);
    for (const auto& w : record_warnings(record)) {
      fmt::print(stderr, "pmemids: warning: {} {} rep {}: {}\n", e.name, mode_name(m), shown, w);
    }
    if (plan_.counters.mode != CounterMode::kNone) print_counters_row(stdout, record);
    if (rep == o_.repeat - 1 && o_.repeat > 1) reporter.emit(reps.aggregate(config, context));
  }
}

// One repetition, rerun with more operations while --min-time asks for it.
Measured Execution::measure(const DsEntry& e, Mode m, int shown) {
  Measured out;
  for (int retry = 0;; ++retry) {
    out.loadavg_before = load_average();
    warn_load(out.loadavg_before);
    if (plan_.counters.mode == CounterMode::kSim) sim::setup_begins(plan_.counters.instrument);
    out.result = e.in(m).run(req_);
    out.loadavg_after = load_average();
    if (!grow(e, m, shown, out.result.seconds, retry)) return out;
  }
}

void Execution::warn_load(const nlohmann::json& loadavg) {
  if (!warned_load_ && loadavg.is_array() && loadavg[0].get<double>() > cpus_) {
    fmt::print(stderr,
               "pmemids: warning: load average {:.2f} exceeds the {} CPUs: other work "
               "competes for them (recorded as loadavg_before/loadavg_after)\n",
               loadavg[0].get<double>(), cpus_);
    warned_load_ = true;
  }
}

// --min-time: whether a repetition whose timed phase lasted `seconds` runs
// again, with operationcount grown (its streams regenerated here).
bool Execution::grow(const DsEntry& e, Mode m, int shown, double seconds, int retry) {
  // Under --counters sim the simulated counts per operation are the
  // measure, and a callgrind repetition is slow: no regrowth.
  if (o_.min_time <= 0 || seconds >= o_.min_time || retry == kMaxMinTimeRetries ||
      plan_.counters.mode == CounterMode::kSim) {
    return false;
  }
  const double factor =
      std::min(kMaxGrowth, o_.min_time / std::max(seconds, 1e-6) * kMinTimeMargin);
  const auto grown = static_cast<uint64_t>(std::ceil(
      static_cast<double>(std::max<uint64_t>(current_.operationcount, 1)) * std::max(factor, 1.1)));
  WorkloadSpec next = current_;
  next.operationcount = grown;
  try {
    streams_ = make_streams(next, plan_.thread_mode, plan_.client.threads, plan_.latency_sample);
  } catch (const UsageError& err) {
    fmt::print(stderr, "pmemids: warning: --min-time: cannot grow operationcount to {}: {}\n",
               grown, err.what());
    return false;
  }
  fmt::print(stderr,
             "pmemids: {} {} rep {}: timed phase {:.3f} s < --min-time {}: rerun with "
             "operationcount {}\n",
             e.name, mode_name(m), shown, seconds, o_.min_time, grown);
  current_ = next;
  req_.feeds = streams_.feeds;
  return true;
}

// The repetition's metrics, with what --counters counted.
nlohmann::json Execution::metrics(const DsEntry& e, Mode m, int rep, const RepResult& r) const {
  nlohmann::json metrics = metrics_json(r);
  if (plan_.counters.mode == CounterMode::kPerf) {
    add_perf_metrics(metrics, counters_.total(), r.tally.total());
  }
  if (plan_.counters.mode == CounterMode::kSim) {
    add_sim_metrics(metrics, sim::collect(fmt::format("{}-{}-{}", e.name, mode_name(m), rep)),
                    r.tally.total());
  }
  return metrics;
}

// Every knob of the repetition: the workload's properties, then run's, then
// the structure's own (only those it reads).
nlohmann::json Execution::config(const DsEntry& e, Mode m, int shown, const RepResult& r) const {
  const ClientSettings& client = plan_.client;
  const auto null_unless = [](bool set, const auto& v) {
    return set ? nlohmann::json(v) : nlohmann::json();
  };
  nlohmann::json config = plan_.spec.to_json();
  config.update(
      {{"ds", e.name},
       {"mode", mode_name(m)},
       {"thread_mode", client.thread_mode},
       {"threads", client.threads},
       {"target", null_unless(client.target > 0, client.target)},
       {"status_interval", null_unless(client.status_interval > 0, client.status_interval)},
       {"lock", null_unless(plan_.thread_mode == ThreadMode::kConcurrent, lock_name(req_.lock))},
       {"pin", o_.pin},
       {"cpu_node", null_unless(o_.cpu_node.has_value(), o_.cpu_node.value_or(0))},
       {"mem_node", null_unless(o_.mem_node.has_value(), o_.mem_node.value_or(0))},
       {"duration", null_unless(o_.duration > 0, o_.duration)},
       {"min_time", null_unless(o_.min_time > 0, o_.min_time)},
       {"timeline_ms", o_.timeline_ms},
       {"latency_sample", plan_.latency_sample},
       {"stream_seeds", streams_.built.seeds},
       {"stream_roles", stream_roles(streams_.built)},
       {"unsafe", o_.unsafe},
       {"workload", workload_name(plan_.spec)},
       {"pool_dir", plan_.pool_dir},
       {"pool_size", r.pool_bytes},
       {"keep_pool", o_.keep_pool},
       {"reopen", o_.reopen},
       {"repeat", o_.repeat},
       {"warmup", o_.warmup},
       {"repetition", shown}});
  config.update(knobs_config(e.knobs, req_.knobs));
  config.update(plan_.policy.to_json());
  config["flush"] = o_.persistence.flush;
  config["counters"] = null_unless(plan_.counters.mode != CounterMode::kNone, o_.counters);
  return config;
}

void run(const RunOptions& o) {
  RunPlan plan = plan_run(o);
  if (plan.counters.mode == CounterMode::kSim && !in_sim_child()) rerun_under_callgrind(o, plan);
  install_stop_signals();
  warn_unoptimized();
  resolve_domain(plan, o);
  enter_run(plan, o);

  Execution execution(plan, o);
  const RunTable table{};
  const Reporter reporter(plan.out, table_stream(plan.out), table, run_context(plan));
  throw_if_stopped();
  reporter.header();
  for (const auto& [e, m] : plan.pairs) execution.run_pair(*e, m, reporter);
  fmt::print(stderr, "pmemids: results {}\n", records_destination(plan.out));
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* sub = app.add_subcommand("run", "Run a YCSB workload on structures and modes");
  add_run_options(sub, *o, all_knobs());
  sub->footer(table_columns_help());
  sub->callback([o] { run(*o); });
}

}  // namespace pmemids
