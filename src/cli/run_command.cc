// `pmemids run`: run one workload on one or more (structure, mode) pairs and
// append one record per repetition to a JSON-lines file.
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <random>
#include <thread>

#include "cli/commands.h"
#include "cli/lists.h"
#include "cli/run_options.h"
#include "errors.h"
#include "run/context.h"
#include "run/footprint.h"
#include "run/locks.h"
#include "run/placement.h"
#include "run/registry.h"
#include "run/result.h"
#include "util/file_checks.h"
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
  return PinPolicy::kNone;
}

// Thread-mode options that do not fit each other, refused before anything runs.
void check_thread_options(const RunOptions& o, ThreadMode tm, const std::vector<Mode>& modes) {
  check_thread_count(o.thread_mode, o.threads);
  if (!o.lock.empty()) {
    if (tm != ThreadMode::kConcurrent) {
      throw UsageError(fmt::format("--lock {} applies to --thread-mode concurrent only", o.lock));
    }
    for (Mode m : modes) find_lock(o.lock, m);
  }
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

// Indices of the operations whose latency is timed: each independently with
// probability `rate` (geometric gaps), from a seed derived from the workload's.
std::vector<uint64_t> sample_positions(uint64_t n, double rate, uint64_t seed) {
  std::vector<uint64_t> out;
  if (rate <= 0 || n == 0) return out;
  if (rate >= 1) {
    out.resize(n);
    std::iota(out.begin(), out.end(), uint64_t{0});
    return out;
  }
  out.reserve(static_cast<size_t>(static_cast<double>(n) * rate * 1.1) + 16);
  std::mt19937_64 rng(seed);
  std::geometric_distribution<uint64_t> gap(rate);
  for (uint64_t i = gap(rng); i < n; i += 1 + gap(rng)) out.push_back(i);
  return out;
}

void run(const RunOptions& o) {
  PropertySet props;
  for (const auto& f : o.workload_files) props.load_file(f);
  for (const auto& kv : o.properties) props.set_override(kv);
  const WorkloadSpec spec = props.build();

  const auto pairs = select_pairs(o, spec.op_set());
  std::vector<Mode> modes;
  for (const auto& [e, m] : pairs) modes.push_back(m);
  const ThreadMode tm = parse_thread_mode(o.thread_mode);
  check_thread_options(o, tm, modes);
  for (const auto& [e, m] : pairs) {
    check_thread_mode(*e, tm);
    check_domain(*e, m, Domain::kAdr, o.unsafe);
  }
  const Placement placement = plan_placement({.pin = parse_pin(o.pin),
                                              .cpu_node = o.cpu_node,
                                              .mem_node = o.mem_node,
                                              .threads = o.threads});
  const uint64_t pool_size = o.pool_size.empty() ? 0 : parse_size(o.pool_size);
  const std::string out = o.out.empty() ? default_out() : o.out;
  check_output_path(out, "--out");
  const std::string pool_dir = resolve_pool_dir(o.pool_dir);
  check_pool_dir(pool_dir);
  const double rate = o.latency_sample < 0 ? kDefaultLatencySample : o.latency_sample;
  // kv: one stream (concurrent: sliced) or one per parallel worker; queue, set
  // and stack, and native mode: one per worker, as plan_streams splits them.
  const bool shared = tm == ThreadMode::kConcurrent || tm == ThreadMode::kNative;
  const bool per_worker = tm == ThreadMode::kParallel || tm == ThreadMode::kNative ||
                          (shared && spec.operationset != OpSet::kKv);
  const std::vector<StreamShape> shapes = plan_streams(spec, per_worker ? o.threads : 1, shared);
  const RunShape shape{.pool_size = pool_size,
                       .load_factor = o.load_factor,
                       .node_keys = o.node_keys,
                       .max_height = o.max_height,
                       .instances = tm == ThreadMode::kParallel ? o.threads : 1,
                       .streams = static_cast<int>(shapes.size()),
                       .workers = o.threads,
                       .latency_sample = rate,
                       .reopen = o.reopen};
  for (const auto& [e, m] : pairs) check_footprint(run_footprint(*e, m, spec, shape), pool_dir);
  install_stop_signals();

  if (!optimized_build()) {
    fmt::print(stderr,
               "pmemids: warning: this binary was built without optimisation ({}); "
               "its timings do not represent the structures\n",
               PMEMIDS_BUILD_TYPE);
  }
  const PmemProbe probe = probe_pool_dir(pool_dir);
  if (!probe.real) {
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

  if (spec.tracefile.empty()) {
    fmt::print(stderr, "pmemids: generating {} stream(s) of {} operations in all (seed {})\n",
               shapes.size(), shared ? spec.operationcount : spec.operationcount * shapes.size(),
               spec.seed);
  } else {
    fmt::print(stderr, "pmemids: reading {} x (trace {})\n", shapes.size(), spec.tracefile);
  }
  const RunStreams built = build_streams(spec, shapes);
  const std::vector<uint64_t>& stream_seeds = built.seeds;
  std::vector<std::string> stream_roles;
  for (const StreamShape& sh : shapes) stream_roles.emplace_back(role_name(sh.role));
  check_streams(built, pairs);
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
                 .spec = &spec,
                 .thread_mode = tm,
                 .threads = o.threads,
                 .placement = placement,
                 .timing = {.duration = o.duration, .timeline_ms = o.timeline_ms}};
  for (size_t t = 0; t < shapes.size(); ++t) {
    const Stream& st = built.streams[t];
    req.feeds.push_back(
        {&st, sample_positions(st.ops.size(), rate, stream_seeds[t] ^ kSampleSeedSalt)});
  }
  const nlohmann::json context = collect_context(pool_dir, probe);
  throw_if_stopped();
  const bool oversubscribed =
      o.threads > static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  print_table_header(stdout);
  for (const auto& [e, m] : pairs) {
    {
      req.lock = o.lock.empty() ? default_lock(m) : find_lock(o.lock, m);
      std::vector<double> measured;
      for (int rep = -o.warmup; rep < o.repeat; ++rep) {
        throw_if_stopped();
        req.keep_pool = o.keep_pool && rep == o.repeat - 1;  // the last repetition's pool
        // Once: later repetitions reopen what the first one checked and ran on.
        req.check_reopened = !o.no_pool_check && rep == -o.warmup;
        const RepResult r = e->run[static_cast<int>(m)](req);
        nlohmann::json config = spec.to_json();
        config.update({{"ds", e->name},
                       {"mode", mode_name(m)},
                       {"thread_mode", o.thread_mode},
                       {"threads", o.threads},
                       {"lock", tm == ThreadMode::kConcurrent ? nlohmann::json(lock_name(req.lock))
                                                              : nlohmann::json()},
                       {"pin", o.pin},
                       {"cpu_node", o.cpu_node ? nlohmann::json(*o.cpu_node) : nlohmann::json()},
                       {"mem_node", o.mem_node ? nlohmann::json(*o.mem_node) : nlohmann::json()},
                       {"duration", o.duration > 0 ? nlohmann::json(o.duration) : nlohmann::json()},
                       {"timeline_ms", o.timeline_ms},
                       {"latency_sample", rate},
                       {"stream_seeds", stream_seeds},
                       {"stream_roles", stream_roles},
                       {"unsafe", o.unsafe},
                       {"workload", workload_name(spec)},
                       {"pool_dir", pool_dir},
                       {"pool_size", r.pool_bytes},
                       {"keep_pool", o.keep_pool},
                       {"reopen", o.reopen},
                       {"load_factor", o.load_factor},
                       {"node_keys", o.node_keys},
                       {"max_height", o.max_height},
                       {"oversubscribed", oversubscribed},
                       {"wait", o.wait},
                       {"combiner_yield", o.combiner_yield},
                       {"persist_requests", o.persist_requests},
                       {"elimination", o.elimination},
                       {"recycle", o.recycle},
                       {"combining_rounds", o.combining_rounds},
                       {"repeat", o.repeat},
                       {"warmup", o.warmup},
                       {"repetition", rep < 0 ? rep + o.warmup : rep}});
        nlohmann::json record = make_record(context, config, r);
        if (rep < 0) {
          record["warmup"] = true;
        } else {
          measured.push_back(r.ops_per_sec);
        }
        append_record(out, record);
        print_table_row(stdout, record);
        if (rep == o.repeat - 1 && o.repeat > 1) {
          const nlohmann::json agg = make_aggregate(context, config, measured);
          append_record(out, agg);
          print_table_row(stdout, agg);
        }
      }
    }
  }
  fmt::print(stderr, "pmemids: results appended to {}\n", out);
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* sub = app.add_subcommand("run", "Run a YCSB workload on structures and modes");
  add_run_options(sub, *o);
  sub->callback([o] { run(*o); });
}

}  // namespace pmemids
