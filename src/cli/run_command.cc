// `pmemids run`: run one workload on one or more (structure, mode) pairs and
// append one record per repetition to a JSON-lines file.
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "cli/commands.h"
#include "counters/counters_row.h"
#include "counters/crew_counters.h"
#include "counters/pmu.h"
#include "errors.h"
#include "host/placement.h"
#include "options/config_keys.h"
#include "options/lists.h"
#include "options/run_options.h"
#include "pmem/policy.h"
#include "registry/footprint.h"
#include "registry/registry.h"
#include "run/context.h"
#include "run/locks.h"
#include "run/result.h"
#include "stats/sampling.h"
#include "util/file_checks.h"
#include "util/shipped_files.h"
#include "util/stop_signals.h"
#include "workload/properties.h"
#include "workload/sources.h"
#include "workload/stream.h"

namespace pmemids {
namespace {

constexpr uint64_t kSampleSeedSalt = 0x6c6174656e637921ULL;  // "latency!"
constexpr uint64_t kMaxPoolSize = INT64_MAX;                 // a file size is an off_t

// `all`: every structure of the workload's operation set (harness structures
// excepted).
std::vector<const DsEntry*> select_structures(const std::string& arg, OpSet workload) {
  if (arg == "all") return structures_for(workload);
  std::vector<const DsEntry*> out;
  for (const auto& name : split_distinct(arg, "--ds")) out.push_back(&find_ds(name));
  return out;
}

std::vector<Mode> select_modes(const std::string& arg) {
  if (arg == "all") return {std::begin(kAllModes), std::end(kAllModes)};
  std::vector<Mode> out;
  for (const auto& name : split_distinct(arg, "--mode")) out.push_back(find_mode(name));
  return out;
}

uint64_t parse_size(const std::string& s) {
  size_t pos = 0;
  uint64_t v = 0;
  try {
    if (!s.empty() && std::isdigit(static_cast<unsigned char>(s[0])) != 0) v = std::stoull(s, &pos);
  } catch (const std::exception&) {
    pos = 0;
  }
  const std::string suffix = s.substr(pos);
  uint64_t mult = 0;
  if (suffix.empty()) mult = 1;
  if (suffix == "K" || suffix == "KiB") mult = uint64_t{1} << 10;
  if (suffix == "M" || suffix == "MiB") mult = uint64_t{1} << 20;
  if (suffix == "G" || suffix == "GiB") mult = uint64_t{1} << 30;
  if (pos == 0 || mult == 0 || v == 0) {
    throw UsageError(
        fmt::format("--pool-size '{}': expected a positive size such as 512M or 4G", s));
  }
  if (v > kMaxPoolSize / mult) {
    throw UsageError(fmt::format("--pool-size '{}': larger than any file can be ({} bytes at most)",
                                 s, kMaxPoolSize));
  }
  return v * mult;
}

std::string workload_name(const WorkloadSpec& spec) {
  if (spec.files.empty()) return "custom";
  return std::filesystem::path(spec.files.back()).filename().string();
}

std::string default_out() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  return fmt::format("results/{:%Y%m%dT%H%M%SZ}.jsonl", fmt::gmtime(now));
}

ThreadMode parse_thread_mode(const std::string& s) {
  if (s == "parallel") return ThreadMode::kParallel;
  if (s == "concurrent") return ThreadMode::kConcurrent;
  if (s == "native") return ThreadMode::kNative;
  return ThreadMode::kSingle;
}

// The (structure, mode) pairs to run. A pair the structure does not support
// is an error when both were named, and skipped (with a note) when either
// came from `all`.
std::vector<std::pair<const DsEntry*, Mode>> select_pairs(const RunOptions& o, OpSet workload) {
  const auto structures = select_structures(o.ds, workload);
  if (structures.empty()) {
    throw UsageError(
        fmt::format("--ds all: no structure implements operation set {}", op_set_name(workload)));
  }
  const auto modes = select_modes(o.mode);
  const bool named = o.ds != "all" && o.mode != "all";
  std::vector<std::pair<const DsEntry*, Mode>> out;
  for (const DsEntry* e : structures) {
    for (Mode m : modes) {
      if (!named && !e->supports(m)) {
        fmt::print(stderr, "pmemids: note: skipping {} in {} (modes it supports only)\n", e->name,
                   mode_name(m));
        continue;
      }
      check_fits(*e, workload, m);
      out.emplace_back(e, m);
    }
  }
  return out;
}

PinPolicy parse_pin(const std::string& s) {
  if (s == "compact") return PinPolicy::kCompact;
  if (s == "scatter") return PinPolicy::kScatter;
  if (s == "cores") return PinPolicy::kCores;
  return PinPolicy::kNone;
}

// Thread-mode options that do not fit each other, refused before anything runs.
void check_thread_options(const RunOptions& o, const ClientSettings& c, ThreadMode tm,
                          const std::vector<Mode>& modes) {
  check_thread_count(c.thread_mode, c.threads, c.threads_from);
  if (!o.lock.empty()) {
    if (tm != ThreadMode::kConcurrent) {
      throw UsageError(fmt::format("--lock {} applies to --thread-mode concurrent only", o.lock));
    }
    for (Mode m : modes) find_lock(o.lock, m);
  }
}

// --pool-size below the smallest pool a mode of the run creates (libpmemobj's
// PMEMOBJ_MIN_POOL, memkind's MEMKIND_PMEM_MIN_SIZE for pmem-volatile) is
// refused rather than silently raised to it.
void check_pool_size(const std::string& text, uint64_t bytes, const std::vector<Mode>& modes) {
  for (Mode m : modes) {
    const uint64_t least = mode_info(m).min_pool_bytes;
    if (bytes != 0 && bytes < least) {
      throw UsageError(fmt::format(
          "--pool-size {} ({} bytes) is below the smallest pool {} creates ({} bytes); accepted: "
          "--pool-size {}M or more, or leave it out (derived from the workload)",
          text, bytes, mode_name(m), least, least >> 20));
    }
  }
}

// The longest a throttled timed phase may be planned to last: longer, and a
// run is refused (--duration bounds it instead).
constexpr double kMaxPacedSeconds = 86400;

// A target (--target, target=) so low that the operations cannot be done
// within kMaxPacedSeconds is refused, unless --duration ends the phase.
void check_target(const ClientSettings& c, const WorkloadSpec& spec, ThreadMode tm,
                  double duration) {
  if (c.target <= 0 || duration > 0) return;
  // Parallel workers each run the whole operationcount; the others share it.
  const double ops =
      static_cast<double>(spec.operationcount) * (tm == ThreadMode::kParallel ? c.threads : 1);
  const double seconds = ops / c.target;
  if (seconds <= kMaxPacedSeconds) return;
  throw UsageError(fmt::format(
      "--target {} ops/s paces {} operations over {:.3g} s; accepted: a target that finishes "
      "them within {} s (at least {:.3g} ops/s), or --duration to bound the timed phase",
      c.target, ops, seconds, kMaxPacedSeconds, ops / kMaxPacedSeconds));
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

// Whether the workers share one instance.
bool shared_instance(ThreadMode tm) {
  return tm == ThreadMode::kConcurrent || tm == ThreadMode::kNative;
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

// What --counters asks for, checked before anything runs: a refusal (exit 2)
// when hardware events are wanted and there is no PMU, or --counters sim has
// no valgrind or caches to simulate.
struct CounterPlan {
  CounterMode mode = CounterMode::kNone;
  PerfEventSet events{};
  SimInstrument instrument = SimInstrument::kLoad;
  std::optional<SimCaches> caches;
  std::string valgrind;
};

CounterPlan plan_counters(const RunOptions& o) {
  CounterPlan p;
  p.mode = parse_counter_mode(o.counters);
  if (p.mode != CounterMode::kPerf && !o.perf_events.empty()) {
    throw UsageError("--perf-events applies to --counters perf only");
  }
  if (p.mode != CounterMode::kSim && o.sim_instrument != "load") {
    throw UsageError("--sim-instrument applies to --counters sim only");
  }
  if (p.mode == CounterMode::kPerf) {
    p.events =
        parse_perf_events(o.perf_events.empty() ? std::vector<std::string>{"all"} : o.perf_events);
    if (wants_hardware(p.events)) {
      const PmuStatus pmu = assess_pmu(observe_pmu(system_pmu_probe()));
      if (pmu.state != PmuState::kAvailable) throw UsageError(pmu_refusal(pmu));
    }
  }
  if (p.mode == CounterMode::kSim) {
    p.instrument = o.sim_instrument == "timed" ? SimInstrument::kTimed : SimInstrument::kLoad;
    if (!in_sim_child()) p.valgrind = require_valgrind();
    p.caches = machine_sim_caches();
  }
  return p;
}

// The parent of a --counters sim run: say what it will cost, run the same
// command under callgrind, exit with its status.
[[noreturn]] void rerun_under_callgrind(const RunOptions& o, const ClientSettings& client,
                                        const CounterPlan& p, const WorkloadSpec& spec,
                                        size_t pairs, const std::string& pool_dir) {
  if (p.instrument == SimInstrument::kTimed && (o.repeat + o.warmup) * pairs > 1) {
    throw UsageError(fmt::format(
        "--sim-instrument timed simulates the caches of one repetition from empty: run one "
        "structure and mode with --repeat 1 and no --warmup per command (a sweep gives "
        "repetitions as runs with different seeds), or use --sim-instrument load; asked for {} "
        "repetitions of {} structure/mode pairs",
        o.repeat + o.warmup, pairs));
  }
  const uint64_t reps =
      static_cast<uint64_t>(o.repeat + o.warmup) * pairs *
      (client.thread_mode == "parallel" ? static_cast<uint64_t>(client.threads) : 1);
  const double secs =
      sim_seconds_estimate(spec.recordcount * reps, spec.operationcount * reps, p.instrument);
  fmt::print(stderr,
             "pmemids: {}--counters sim runs under callgrind, simulating LL {}; estimated "
             "{:.0f} s for {} load and {} timed operations{}\n",
             secs > 120 ? "warning: " : "", p.caches->ll.text(), secs, spec.recordcount * reps,
             spec.operationcount * reps,
             secs > 120 ? " (lower recordcount/operationcount for a run in minutes)" : "");
  const int status = run_under_callgrind(pool_dir, *p.caches, p.valgrind);
  std::fflush(nullptr);
  std::exit(status);
}

// Context fields of a counted run: "counters" and, simulated, the model.
void add_counters_context(nlohmann::json& context, const CounterPlan& p, int threads) {
  if (p.mode == CounterMode::kPerf) context["counters"] = "perf";
  if (p.mode == CounterMode::kSim) {
    context["counters"] = "simulated";
    context["sim"] = sim_context(*p.caches, p.instrument, threads);
  }
}

void run(const RunOptions& o) {
  const WorkloadSpec spec = build_workload(o.workload, {}, /*client_settings=*/true);
  note_ignored(spec);
  const ClientSettings client = resolve_client(o, spec);

  auto pairs = select_pairs(o, spec.op_set());
  std::vector<Mode> modes;
  for (const auto& [e, m] : pairs) modes.push_back(m);
  const ThreadMode tm = parse_thread_mode(client.thread_mode);
  check_thread_options(o, client, tm, modes);
  check_target(client, spec, tm, o.duration);
  for (const auto& [e, m] : pairs) check_thread_mode(*e, tm);
  if (o.min_time > 0 && !spec.tracefile.empty()) {
    throw UsageError(fmt::format(
        "--min-time {} and tracefile={}: --min-time grows operationcount, a trace fixes the "
        "operations; use one or the other",
        o.min_time, spec.tracefile));
  }
  if (o.min_time > 0 && o.duration > 0) {
    throw UsageError(fmt::format(
        "--min-time {} and --duration {}: --duration fixes the timed phase; use one or the other",
        o.min_time, o.duration));
  }
  if (o.min_time > 0 && o.keep_pool) {
    throw UsageError(
        "--min-time and --keep-pool: a repetition --min-time reruns would find the pool its "
        "first attempt kept; use one or the other");
  }
  if (client.default_concurrent) {
    fmt::print(stderr,
               "pmemids: note: {} and no --thread-mode: the {} threads share one instance "
               "(--thread-mode concurrent), as YCSB's threads share one database; "
               "--thread-mode parallel gives each thread an instance of its own\n",
               client.threads_from, client.threads);
  }
  const Placement placement = plan_placement({.pin = parse_pin(o.pin),
                                              .cpu_node = o.cpu_node,
                                              .mem_node = o.mem_node,
                                              .threads = client.threads});
  const uint64_t pool_size = o.pool_size.empty() ? 0 : parse_size(o.pool_size);
  check_pool_size(o.pool_size, pool_size, modes);
  const std::string out = o.out.empty() ? default_out() : o.out;
  check_results_output(out, "--out");
  const std::string pool_dir = resolve_pool_dir(o.pool_dir);
  check_pool_dir(pool_dir);
  const double rate = o.latency_sample < 0 ? kDefaultLatencySample : o.latency_sample;
  // Parallel instances hold a whole workload's stream each; the shared modes'
  // streams hold one workload between them.
  const int instances = tm == ThreadMode::kParallel ? client.threads : 1;
  const RunShape shape{.pool_size = pool_size,
                       .load_factor = o.load_factor,
                       .node_keys = o.node_keys,
                       .max_height = o.max_height,
                       .instances = instances,
                       .streams = instances,
                       .workers = client.threads,
                       .latency_sample = rate,
                       .reopen = o.reopen};
  for (const auto& [e, m] : pairs) check_footprint(run_footprint(*e, m, spec, shape), pool_dir);
  const CounterPlan counting = plan_counters(o);
  if (counting.mode == CounterMode::kSim && !in_sim_child()) {
    rerun_under_callgrind(o, client, counting, spec, pairs.size(), pool_dir);
  }
  install_stop_signals();

  if (!optimized_build()) {
    fmt::print(stderr,
               "pmemids: warning: this binary was built without optimisation ({}); "
               "its timings do not represent the structures\n",
               PMEMIDS_BUILD_TYPE);
  }
  const PmemProbe probe = probe_pool_dir(pool_dir);
  const PersistencePolicy policy = resolve_persistence(o.persistence, probe.platform_eadr());
  if (o.ds == "all") drop_unsafe_pairs(pairs, policy.domain.domain, o.unsafe);
  if (pairs.empty()) {
    throw UsageError(fmt::format(
        "--ds all: no structure implementing operation set {} is crash-consistent under {} in "
        "the modes asked for; --unsafe runs them anyway",
        op_set_name(spec.op_set()), domain_name(policy.domain.domain)));
  }
  for (const auto& [e, m] : pairs) check_domain(*e, m, policy.domain.domain, o.unsafe);
  install_policy(policy);
  warn_policy(policy);
  // Only runs that open a pool are emulated PMEM; a dram run touches none.
  const bool pools = std::any_of(pairs.begin(), pairs.end(),
                                 [](const auto& p) { return mode_info(p.second).opens_pool(); });
  if (!probe.real && pools) {
    fmt::print(stderr,
               "pmemids: warning: PMEM is EMULATED: pool directory '{}' is on {} ({} "
               "granularity, no DAX); flush instructions run but memory is DRAM. "
               "Results are marked \"pmem\": \"emulated\".\n",
               pool_dir, probe.fs, probe.granularity);
  } else if (o.mem_node) {
    fmt::print(stderr,
               "pmemids: warning: the pools are on DAX PMEM, whose node is the node of the "
               "device behind '{}'; --mem-node {} places only DRAM memory\n",
               pool_dir, *o.mem_node);
  }
  for (const auto& w : placement.warnings) fmt::print(stderr, "pmemids: warning: {}\n", w);
  // Streams and the concurrent instance are built by this thread: place it as
  // the workers are placed, so their memory is local where theirs is.
  if (o.cpu_node) run_on_node(*o.cpu_node);
  if (o.mem_node) bind_memory(*o.mem_node);

  const int stream_count = tm == ThreadMode::kSingle ? 1 : client.threads;
  const uint64_t load_keys = spec.op_set() == OpSet::kSet ? spec.keyrange / 2 : spec.recordcount;
  if (spec.tracefile.empty() && shared_instance(tm)) {
    fmt::print(stderr,
               "pmemids: generating {} load keys and {} operations in {} worker streams "
               "(seed {})\n",
               load_keys, spec.operationcount, stream_count, spec.seed);
  } else if (spec.tracefile.empty()) {
    fmt::print(stderr, "pmemids: generating {} x ({} load keys, {} operations) (seed {})\n",
               stream_count, load_keys, spec.operationcount, spec.seed);
  } else {
    fmt::print(stderr, "pmemids: reading {} x (trace {})\n", instances, spec.tracefile);
  }
  WorkloadSpec current = spec;  // operationcount grows under --min-time
  Streams streams = make_streams(current, tm, client.threads, rate);
  check_streams(streams.built, pairs);
  CrewCounters counters(counting.mode, counting.events, client.threads);
  RunRequest req{.pool_dir = pool_dir,
                 .pool_size = pool_size,
                 .reopen = o.reopen,
                 .pool_check_timeout_s = o.pool_check_timeout,
                 .load_factor = o.load_factor,
                 .max_height = o.max_height,
                 .node_keys = o.node_keys,
                 .combining = {.wait = *find_wait_policy(o.wait),
                               .combiner_yield = o.combiner_yield,
                               .persist_requests = o.persist_requests == "on",
                               .elimination = o.elimination == "on",
                               .recycle = o.recycle == "on",
                               .rounds = o.combining_rounds},
                 .spec = &current,
                 .thread_mode = tm,
                 .threads = client.threads,
                 .placement = placement,
                 .timing = {.duration = o.duration,
                            .timeline_ms = o.timeline_ms,
                            .status_interval = client.status_interval,
                            .target = client.target,
                            .counters = counting.mode == CounterMode::kNone ? nullptr : &counters},
                 .feeds = streams.feeds};
  nlohmann::json context = collect_context(pool_dir, probe);
  add_counters_context(context, counting, client.threads);
  // The workload files read, by absolute path and content hash (util/shipped_files.h).
  context["input_files"] = nlohmann::json::array();
  for (const auto& f : spec.files) {
    context["input_files"].push_back({{"path", f}, {"hash", file_hash(f, "workload file")}});
  }
  const auto cpus = static_cast<double>(sysconf(_SC_NPROCESSORS_ONLN));
  bool warned_load = false;
  throw_if_stopped();

  std::FILE* const table = table_stream(out);
  print_table_header(table);
  for (const auto& [e, m] : pairs) {
    {
      if (current.operationcount != spec.operationcount) {  // grown for the previous pair
        current = spec;
        streams = make_streams(current, tm, client.threads, rate);
        req.feeds = streams.feeds;
      }
      req.lock = o.lock.empty() ? default_lock(m) : find_lock(o.lock, m);
      std::vector<double> measured;
      for (int rep = -o.warmup; rep < o.repeat; ++rep) {
        throw_if_stopped();
        const int shown = rep < 0 ? rep + o.warmup : rep;
        req.keep_pool = o.keep_pool && rep == o.repeat - 1;  // the last repetition's pool
        // Once: later repetitions reopen what the first one checked and ran on.
        req.check_reopened = !o.no_pool_check && rep == -o.warmup;
        RepResult r;
        nlohmann::json loadavg_before, loadavg_after;
        for (int retry = 0;; ++retry) {
          loadavg_before = load_average();
          if (!warned_load && loadavg_before.is_array() && loadavg_before[0].get<double>() > cpus) {
            fmt::print(stderr,
                       "pmemids: warning: load average {:.2f} exceeds the {} CPUs: other work "
                       "competes for them (recorded as loadavg_before/loadavg_after)\n",
                       loadavg_before[0].get<double>(), cpus);
            warned_load = true;
          }
          if (counting.mode == CounterMode::kSim) sim::setup_begins(counting.instrument);
          r = e->in(m).run(req);
          loadavg_after = load_average();
          // Under --counters sim the simulated counts per operation are the
          // measure, and a callgrind repetition is slow: no regrowth.
          if (o.min_time <= 0 || r.seconds >= o.min_time || retry == kMaxMinTimeRetries ||
              counting.mode == CounterMode::kSim) {
            break;
          }
          const double factor =
              std::min(kMaxGrowth, o.min_time / std::max(r.seconds, 1e-6) * kMinTimeMargin);
          const auto grown = static_cast<uint64_t>(
              std::ceil(static_cast<double>(std::max<uint64_t>(current.operationcount, 1)) *
                        std::max(factor, 1.1)));
          WorkloadSpec next = current;
          next.operationcount = grown;
          try {
            streams = make_streams(next, tm, client.threads, rate);
          } catch (const UsageError& err) {
            fmt::print(stderr,
                       "pmemids: warning: --min-time: cannot grow operationcount to {}: {}\n",
                       grown, err.what());
            break;
          }
          fmt::print(stderr,
                     "pmemids: {} {} rep {}: timed phase {:.3f} s < --min-time {}: rerun with "
                     "operationcount {}\n",
                     e->name, mode_name(m), shown, r.seconds, o.min_time, grown);
          current = next;
          req.feeds = streams.feeds;
        }
        nlohmann::json config = spec.to_json();
        config.update(
            {{"ds", e->name},
             {"mode", mode_name(m)},
             {"thread_mode", client.thread_mode},
             {"threads", client.threads},
             {"target", client.target > 0 ? nlohmann::json(client.target) : nlohmann::json()},
             {"status_interval", client.status_interval > 0 ? nlohmann::json(client.status_interval)
                                                            : nlohmann::json()},
             {"lock", tm == ThreadMode::kConcurrent ? nlohmann::json(lock_name(req.lock))
                                                    : nlohmann::json()},
             {"pin", o.pin},
             {"cpu_node", o.cpu_node ? nlohmann::json(*o.cpu_node) : nlohmann::json()},
             {"mem_node", o.mem_node ? nlohmann::json(*o.mem_node) : nlohmann::json()},
             {"duration", o.duration > 0 ? nlohmann::json(o.duration) : nlohmann::json()},
             {"min_time", o.min_time > 0 ? nlohmann::json(o.min_time) : nlohmann::json()},
             {"timeline_ms", o.timeline_ms},
             {"latency_sample", rate},
             {"stream_seeds", streams.built.seeds},
             {"stream_roles", stream_roles(streams.built)},
             {"unsafe", o.unsafe},
             {"workload", workload_name(spec)},
             {"pool_dir", pool_dir},
             {"pool_size", r.pool_bytes},
             {"keep_pool", o.keep_pool},
             {"reopen", o.reopen},
             {"load_factor", o.load_factor},
             {"node_keys", o.node_keys},
             {"max_height", o.max_height},
             {"wait", o.wait},
             {"combiner_yield", o.combiner_yield},
             {"persist_requests", o.persist_requests},
             {"elimination", o.elimination},
             {"recycle", o.recycle},
             {"combining_rounds", o.combining_rounds},
             {"repeat", o.repeat},
             {"warmup", o.warmup},
             {"repetition", shown}});
        keep_keys_of(spec.operationset, config);
        config.update(policy.to_json());
        config["flush"] = o.persistence.flush;
        nlohmann::json rep_context = context;
        rep_context["loadavg_before"] = loadavg_before;
        rep_context["loadavg_after"] = loadavg_after;
        config["counters"] =
            counting.mode == CounterMode::kNone ? nlohmann::json() : nlohmann::json(o.counters);
        nlohmann::json record = make_record(rep_context, config, r);
        if (counting.mode == CounterMode::kPerf) {
          add_perf_metrics(record["metrics"], counters.total(), r.tally.total());
        }
        if (counting.mode == CounterMode::kSim) {
          add_sim_metrics(record["metrics"],
                          sim::collect(fmt::format("{}-{}-{}", e->name, mode_name(m), rep)),
                          r.tally.total());
        }
        if (rep < 0) {
          record["warmup"] = true;
        } else {
          measured.push_back(r.ops_per_sec);
        }
        append_record(out, record);
        print_table_row(table, record);
        for (const auto& w : record_warnings(record)) {
          fmt::print(stderr, "pmemids: warning: {} {} rep {}: {}\n", e->name, mode_name(m), shown,
                     w);
        }
        if (counting.mode != CounterMode::kNone) print_counters_row(stdout, record);
        if (rep == o.repeat - 1 && o.repeat > 1) {
          const nlohmann::json agg = make_aggregate(rep_context, config, measured);
          append_record(out, agg);
          print_table_row(table, agg);
        }
      }
    }
  }
  fmt::print(stderr, "pmemids: results {}\n", records_destination(out));
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* sub = app.add_subcommand("run", "Run a YCSB workload on structures and modes");
  add_run_options(sub, *o);
  sub->footer(table_columns_help());
  sub->callback([o] { run(*o); });
}

}  // namespace pmemids
