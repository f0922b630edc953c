// `pmemids run`: run one workload on one or more (structure, mode) pairs and
// append one record per repetition to a JSON-lines file.
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "cli/commands.h"
#include "cli/run_options.h"
#include "errors.h"
#include "run/context.h"
#include "run/registry.h"
#include "run/result.h"
#include "workload/properties.h"
#include "workload/stream.h"

namespace pmemids {
namespace {

constexpr const char* kDefaultPoolDir = "/dev/shm/pmemids";

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t comma; (comma = s.find(',', start)) != std::string::npos; start = comma + 1) {
    parts.push_back(s.substr(start, comma - start));
  }
  parts.push_back(s.substr(start));
  return parts;
}

std::vector<const DsEntry*> select_structures(const std::string& arg) {
  std::vector<const DsEntry*> out;
  if (arg == "all") {
    for (const auto& e : registry()) {
      if (e.name != "blackhole") out.push_back(&e);
    }
    return out;
  }
  for (const auto& name : split(arg)) out.push_back(&find_ds(name));
  return out;
}

std::vector<Mode> select_modes(const std::string& arg) {
  if (arg == "all") return {std::begin(kAllModes), std::end(kAllModes)};
  std::vector<Mode> out;
  for (const auto& name : split(arg)) out.push_back(find_mode(name));
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
  if (pos == 0 || mult == 0 || v == 0 || v > (UINT64_MAX / mult)) {
    throw UsageError(
        fmt::format("--pool-size '{}': expected a positive size such as 512M or 4G", s));
  }
  return v * mult;
}

std::string resolve_pool_dir(const RunOptions& o) {
  if (!o.pool_dir.empty()) return o.pool_dir;
  if (const char* env = std::getenv("PMEMIDS_POOL_DIR"); env != nullptr && *env != '\0') return env;
  mkdir(kDefaultPoolDir, 0700);  // the embedded default is ours to create
  return kDefaultPoolDir;
}

std::string workload_name(const WorkloadSpec& spec) {
  if (spec.files.empty()) return "custom";
  return std::filesystem::path(spec.files.back()).filename().string();
}

std::string default_out() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  return fmt::format("results/{:%Y%m%dT%H%M%SZ}.jsonl", fmt::gmtime(now));
}

void run(const RunOptions& o) {
  if (o.thread_mode != "single" || o.threads != 1 || !o.lock.empty() || o.pin != "none" ||
      o.cpu_node || o.mem_node || o.duration > 0 || o.timeline_ms > 0 || o.warmup > 0) {
    throw UsageError(
        "thread modes, NUMA, pinning, --duration, --timeline-ms and --warmup are being "
        "implemented");
  }
  PropertySet props;
  for (const auto& f : o.workload_files) props.load_file(f);
  for (const auto& kv : o.properties) props.set_override(kv);
  const WorkloadSpec spec = props.build();

  const auto structures = select_structures(o.ds);
  const auto modes = select_modes(o.mode);
  if (spec.scanproportion > 0) {
    for (const DsEntry* e : structures) {
      if (!e->can_scan) {
        throw UsageError(
            fmt::format("{} cannot scan but the workload has scanproportion={}; "
                        "structures that can: {}",
                        e->name, spec.scanproportion, scanning_structures()));
      }
    }
  }
  const uint64_t pool_size = o.pool_size.empty() ? 0 : parse_size(o.pool_size);
  const std::string pool_dir = resolve_pool_dir(o);
  check_pool_dir(pool_dir);

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
  }

  fmt::print(stderr, "pmemids: generating {} load keys and {} operations (seed {})\n",
             spec.recordcount, spec.operationcount, spec.seed);
  const Stream stream = generate(spec, spec.seed);
  const nlohmann::json context = collect_context(pool_dir, probe);
  const std::string out = o.out.empty() ? default_out() : o.out;

  RunRequest req{.pool_dir = pool_dir,
                 .pool_size = pool_size,
                 .reopen = o.reopen,
                 .load_factor = o.load_factor,
                 .max_height = o.max_height,
                 .node_keys = o.node_keys,
                 .spec = &spec,
                 .stream = &stream};
  print_table_header(stdout);
  for (const DsEntry* e : structures) {
    for (Mode m : modes) {
      for (int rep = 0; rep < o.repeat; ++rep) {
        req.keep_pool = o.keep_pool && rep == o.repeat - 1;  // the last repetition's pool
        const RepResult r = e->run[static_cast<int>(m)](req);
        nlohmann::json config = spec.to_json();
        config.update({{"ds", e->name},
                       {"mode", mode_name(m)},
                       {"thread_mode", "single"},
                       {"threads", 1},
                       {"workload", workload_name(spec)},
                       {"pool_dir", pool_dir},
                       {"pool_size", r.pool_bytes},
                       {"keep_pool", o.keep_pool},
                       {"reopen", o.reopen},
                       {"load_factor", o.load_factor},
                       {"node_keys", o.node_keys},
                       {"max_height", o.max_height},
                       {"repeat", o.repeat},
                       {"repetition", rep}});
        const nlohmann::json record = make_record(context, config, r);
        append_record(out, record);
        print_table_row(stdout, record);
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
