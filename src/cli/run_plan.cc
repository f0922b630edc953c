#include "cli/run_plan.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <cctype>
#include <chrono>
#include <cstdlib>

#include "backend/backends.h"
#include "backend/pool.h"
#include "counters/pmu.h"
#include "errors.h"
#include "options/lists.h"
#include "registry/footprint.h"
#include "registry/registry.h"
#include "run/locks.h"
#include "util/capacity.h"
#include "util/file_checks.h"
#include "workload/sources.h"

namespace pmemids {
namespace {

constexpr uint64_t kMaxPoolSize = INT64_MAX;  // a file size is an off_t

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

std::vector<Mode> modes_of(const std::vector<std::pair<const DsEntry*, Mode>>& pairs) {
  std::vector<Mode> modes;
  for (const auto& [e, m] : pairs) modes.push_back(m);
  return modes;
}

PinPolicy parse_pin(const std::string& s) {
  if (s == "compact") return PinPolicy::kCompact;
  if (s == "scatter") return PinPolicy::kScatter;
  if (s == "cores") return PinPolicy::kCores;
  return PinPolicy::kNone;
}

// Thread-mode options that do not fit each other, refused before anything runs.
void check_thread_options(const RunOptions& o, const RunPlan& p) {
  check_thread_count(p.client.thread_mode, p.client.threads, p.client.threads_from);
  if (!o.lock.empty()) {
    if (p.thread_mode != ThreadMode::kConcurrent) {
      throw UsageError(fmt::format("--lock {} applies to --thread-mode concurrent only", o.lock));
    }
    for (Mode m : modes_of(p.pairs)) find_lock(o.lock, m);
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

// --min-time with what fixes the operations or the timed phase, or with a pool
// kept by an attempt it would rerun.
void check_min_time(const RunOptions& o, const WorkloadSpec& spec) {
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
}

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

// What the footprint of a pair is estimated for.
RunShape shape_of(const RunPlan& p, const RunOptions& o) {
  // Parallel instances hold a whole workload's stream each; the shared modes'
  // streams hold one workload between them.
  const int instances = p.thread_mode == ThreadMode::kParallel ? p.client.threads : 1;
  return {.pool_size = p.pool_size,
          .knobs = knob_values(o.knobs),
          .instances = instances,
          .streams = instances,
          .workers = p.client.threads,
          .latency_sample = p.latency_sample,
          .reopen = o.reopen};
}

}  // namespace

RunPlan plan_run(const RunOptions& o) {
  RunPlan p;
  p.spec = build_workload(o.workload, {}, /*client_settings=*/true);
  note_ignored(p.spec);
  p.client = resolve_client(o, p.spec);
  p.pairs = select_pairs(o, p.spec.op_set());
  p.thread_mode = parse_thread_mode(p.client.thread_mode);
  check_thread_options(o, p);
  check_target(p.client, p.spec, p.thread_mode, o.duration);
  for (const auto& [e, m] : p.pairs) check_thread_mode(*e, p.thread_mode);
  check_min_time(o, p.spec);
  if (p.client.default_concurrent) {
    fmt::print(stderr,
               "pmemids: note: {} and no --thread-mode: the {} threads share one instance "
               "(--thread-mode concurrent), as YCSB's threads share one database; "
               "--thread-mode parallel gives each thread an instance of its own\n",
               p.client.threads_from, p.client.threads);
  }
  p.placement = plan_placement({.pin = parse_pin(o.pin),
                                .cpu_node = o.cpu_node,
                                .mem_node = o.mem_node,
                                .threads = p.client.threads});
  p.pool_size = o.pool_size.empty() ? 0 : parse_size(o.pool_size);
  check_pool_size(o.pool_size, p.pool_size, modes_of(p.pairs));
  p.out = o.out.empty() ? default_out() : o.out;
  check_results_output(p.out, "--out");
  p.pool_dir = resolve_pool_dir(o.pool_dir);
  check_pool_dir(p.pool_dir);
  p.latency_sample = o.latency_sample < 0 ? kDefaultLatencySample : o.latency_sample;
  const RunShape shape = shape_of(p, o);
  for (const auto& [e, m] : p.pairs)
    check_footprint(run_footprint(*e, m, p.spec, shape), p.pool_dir);
  p.counters = plan_counters(o);
  return p;
}

void rerun_under_callgrind(const RunOptions& o, const RunPlan& plan) {
  const CounterPlan& p = plan.counters;
  const WorkloadSpec& spec = plan.spec;
  const size_t pairs = plan.pairs.size();
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
      (plan.client.thread_mode == "parallel" ? static_cast<uint64_t>(plan.client.threads) : 1);
  const double secs =
      sim_seconds_estimate(spec.recordcount * reps, spec.operationcount * reps, p.instrument);
  fmt::print(stderr,
             "pmemids: {}--counters sim runs under callgrind, simulating LL {}; estimated "
             "{:.0f} s for {} load and {} timed operations{}\n",
             secs > 120 ? "warning: " : "", p.caches->ll.text(), secs, spec.recordcount * reps,
             spec.operationcount * reps,
             secs > 120 ? " (lower recordcount/operationcount for a run in minutes)" : "");
  const int status = run_under_callgrind(plan.pool_dir, *p.caches, p.valgrind);
  std::fflush(nullptr);
  std::exit(status);
}

void resolve_domain(RunPlan& plan, const RunOptions& o) {
  plan.probe = probe_pool_dir(plan.pool_dir);
  plan.policy = resolve_persistence(o.persistence, plan.probe.platform_eadr());
  const Domain domain = plan.policy.domain.domain;
  if (o.ds == "all") drop_unsafe_pairs(plan.pairs, domain, o.unsafe);
  if (plan.pairs.empty()) {
    throw UsageError(fmt::format(
        "--ds all: no structure implementing operation set {} is crash-consistent under {} in "
        "the modes asked for; --unsafe runs them anyway",
        op_set_name(plan.spec.op_set()), domain_name(domain)));
  }
  for (const auto& [e, m] : plan.pairs) check_domain(*e, m, domain, o.unsafe);
}

}  // namespace pmemids
