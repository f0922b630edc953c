// `pmemids crash`: crash-consistency runs per (structure, durable mode), a table
// on stdout and one JSON record per (structure, mode). See crash/crash.h.
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>

#include "cli/commands.h"
#include "errors.h"
#include "options/lists.h"
#include "options/persistence_options.h"
#include "options/validators.h"
#include "options/workload_options.h"
#include "registry/footprint.h"
#include "registry/registry.h"
#include "run/context.h"
#include "run/result.h"
#include "util/file_checks.h"
#include "util/stop_signals.h"
#include "workload/properties.h"
#include "workload/stream.h"

namespace pmemids {
namespace {

struct CrashCliOptions {
  std::string ds;
  bool all = false;
  std::string mode;            // empty: every durable mode each structure supports
  std::string points = "100";  // a positive count, or "all"
  std::string model = "power";
  std::string survive = "none";
  double survive_probability = 0.5;
  uint32_t grain = 64;
  uint32_t jobs = 1;
  std::string pool_dir;
  std::string out;
  bool fail_on_violation = false;
  WorkloadOptions workload;  // -P, -p, --seed (also the seed of points and surviving lines)
  PersistenceOptions persistence;
  std::string store_buffer_loss = "none";
  uint32_t threads = 1;
  uint32_t recovery_points = 0;
  bool unsafe = false;
};

// Small, write-heavy default workloads per operation set: every kind of
// change, so a run of a few hundred points finishes in seconds per
// (structure, mode). Files and -p overrides apply on top.
std::vector<const char*> default_properties(OpSet s) {
  switch (s) {
    case OpSet::kKv:
    case OpSet::kOrderedKv:
      return {"recordcount=100",
              "operationcount=300",
              "readproportion=0",
              "updateproportion=0.3",
              "insertproportion=0.4",
              "deleteproportion=0.3",
              "requestdistribution=uniform-inserted"};
    case OpSet::kSet:
      return {"operationset=set",   "keyrange=64",          "operationcount=300",
              "readproportion=0.2", "insertproportion=0.4", "deleteproportion=0.4"};
    case OpSet::kQueue:
      return {"operationset=queue", "recordcount=16", "operationcount=300", "pushproportion=0.5",
              "popproportion=0.5",  "queueslots=64",  "slotsize=128",       "fieldlength=64"};
    case OpSet::kStack:
      return {"operationset=stack", "recordcount=16", "operationcount=300", "pushproportion=0.5",
              "popproportion=0.5"};
  }
  return {};
}

std::vector<Mode> select_modes(const std::string& arg) {
  if (arg.empty()) return durable_modes();
  const auto durable_ones = [](const char* sep) {
    return mode_names([](const ModeInfo& i) { return i.durable; }, sep);
  };
  std::vector<Mode> out;
  for (const auto& name : split_distinct(arg, "--mode")) {
    const auto m = mode_named(name);
    if (!m) {
      throw UsageError(
          fmt::format("unknown mode '{}'; crash-testable modes: {}", name, durable_ones(", ")));
    }
    if (!durable(*m)) {
      throw UsageError(fmt::format("--mode {}: nothing to crash-test (it keeps nothing); use {}",
                                   name, durable_ones(" or ")));
    }
    out.push_back(*m);
  }
  return out;
}

// --points: a positive count, or "all" (kAllPoints: every point of the run).
uint32_t parse_points(const std::string& arg) {
  if (arg == "all") return kAllPoints;
  size_t used = 0;
  int64_t n = 0;
  try {
    n = std::stoll(arg, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != arg.size() || used == 0 || n <= 0) {
    throw UsageError(fmt::format(
        "--points {}: must be a positive number of crash points, or 'all' (every point)", arg));
  }
  return static_cast<uint32_t>(std::min<int64_t>(n, kAllPoints - 1));
}

// The run's private directory under the pool directory, removed afterwards.
class WorkDir {
 public:
  explicit WorkDir(const std::string& parent)
      : path_(fmt::format("{}/pmemids-crash.{}", parent, getpid())) {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    if (mkdir(path_.c_str(), 0700) != 0) {
      throw RuntimeError(fmt::format("cannot create '{}': {}", path_, std::strerror(errno)));
    }
  }
  ~WorkDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// `ds_width`: the longest structure name of the run's rows (at least 15).
void print_header(std::FILE* out, size_t ds_width) {
  fmt::print(out,
             "{:<{}} {:<13} {:<7} {:>6} {:>9} {:>9} {:>8} {:>5} {:>5} {:>7} {:>8} {:>9} {:>9} {}\n",
             "ds", ds_width, "mode", "model", "points", "recovered", "inv_fail", "lost_ack", "half",
             "torn", "leaked", "dangling", "rec_ms_med", "rec_ms_max", "domain");
}

void print_row(std::FILE* out, size_t ds_width, const nlohmann::json& rec) {
  const auto& c = rec["config"];
  const auto& m = rec["metrics"];
  const auto& torn = m["torn_values"];
  fmt::print(
      out,
      "{:<{}} {:<13} {:<7} {:>6} {:>9} {:>9} {:>8} {:>5} {:>5} {:>7} {:>8} {:>9.2f} {:>9.2f} {}\n",
      c["ds"].get<std::string>(), ds_width, c["mode"].get<std::string>(),
      c["model"].get<std::string>(), m["points"].get<uint64_t>(), m["recovered"].get<uint64_t>(),
      m["invariant_failures"].get<uint64_t>(), m["lost_acknowledged"].get<uint64_t>(),
      m["half_applied"].get<uint64_t>(),
      torn.is_null() ? std::string("-") : std::to_string(torn.get<uint64_t>()),
      m["leaked_objects"].get<uint64_t>(), m["dangling_objects"].get<uint64_t>(),
      m["recovery_ms_median"].get<double>(), m["recovery_ms_max"].get<double>(),
      c["domain"].get<std::string>());
  std::fflush(out);
}

// The run's last line: which violations are the design's (modes not failure-atomic by
// design, run as negative controls) and which are not, and the exit status to expect.
void print_summary(std::FILE* out, size_t pairs, const std::vector<std::string>& designed,
                   const std::vector<std::string>& unexpected, bool fail_on_violation) {
  const size_t bad = designed.size() + unexpected.size();
  if (bad == 0) {
    fmt::print(out, "summary: no violations in {} (structure, mode) pair(s); exit 0\n", pairs);
    return;
  }
  std::string what;
  if (!designed.empty()) {
    what += fmt::format(
        "{} the design's ({}: not failure-atomic by design, expected, "
        "docs/crash.md)",
        designed.size(), fmt::join(designed, ", "));
  }
  if (!unexpected.empty()) {
    what += fmt::format("{}{} NOT expected ({}: failure-atomic by design, a bug to report)",
                        what.empty() ? "" : "; ", unexpected.size(), fmt::join(unexpected, ", "));
  }
  fmt::print(out, "summary: violations in {} of {} (structure, mode) pair(s): {}; {}\n", bad, pairs,
             what,
             fail_on_violation ? "exit 3 (--fail-on-violation)"
                               : "exit 0 (--fail-on-violation makes it 3)");
}

void crash(const CrashCliOptions& o) {
  if (o.all == !o.ds.empty()) throw UsageError("pass either --ds NAME[,NAME...] or --all");
  std::vector<std::string> names;
  if (!o.all) {
    names = split_distinct(o.ds, "--ds");
    for (const auto& n : names) {
      if (find_ds(n).harness) {
        throw UsageError(
            fmt::format("{} measures the harness and keeps nothing: nothing to "
                        "crash-test",
                        n));
      }
    }
  }
  const uint32_t points = parse_points(o.points);
  if (o.survive != "none" && o.model != "power") {
    throw UsageError(fmt::format(
        "--survive {}: the process model loses nothing from the caches; surviving lines apply "
        "to --model power only",
        o.survive));
  }
  if (o.grain != kCacheLine && (o.survive != "random" || o.model != "power")) {
    throw UsageError(fmt::format(
        "--grain {}: the survival grain applies to --model power --survive random only", o.grain));
  }
  // (structure, mode) pairs: --all and an omitted --mode take the durable
  // modes each structure supports; a named pair it does not support is exit 2.
  const std::vector<Mode> modes = select_modes(o.mode);
  std::vector<std::pair<const DsEntry*, Mode>> pairs;
  for (const auto& e : registry()) {
    if (e.harness) continue;
    if (!o.all && std::find(names.begin(), names.end(), e.name) == names.end()) continue;
    bool any = false;
    for (Mode m : modes) {
      if (e.in(m).crash != nullptr) {
        pairs.emplace_back(&e, m);
        any = true;
      } else if (!o.all && !o.mode.empty()) {
        throw UsageError(fmt::format("{} does not support mode {}: nothing to crash-test there",
                                     e.name, mode_name(m)));
      }
    }
    if (!any && !o.all) {
      throw UsageError(fmt::format(
          "{} keeps nothing across a crash (it supports no durable mode): nothing to crash-test; "
          "structures that can be: {}",
          e.name, structure_names([](const DsEntry& x) { return x.crash_testable(); })));
    }
  }

  // The workload of each operation set: its defaults, then the files and overrides.
  std::map<OpSet, WorkloadSpec> specs;
  for (const auto& [e, m] : pairs) {
    const OpSet set = e->op_set == OpSet::kOrderedKv ? OpSet::kKv : e->op_set;
    if (specs.count(set) != 0) continue;
    const WorkloadSpec spec = build_workload(o.workload, default_properties(set));
    note_ignored(spec);
    if (!spec.tracefile.empty()) {
      throw UsageError(fmt::format(
          "tracefile={}: crash generates its operations from the workload's seed; traces run "
          "with pmemids run",
          spec.tracefile));
    }
    if (spec.recordcount + spec.operationcount > 200000) {
      throw UsageError(
          "crash runs check every point against a replayed model: keep recordcount + "
          "operationcount <= 200000");
    }
    specs.emplace(set, spec);
  }
  for (const auto& [e, m] : pairs) {
    const WorkloadSpec& spec = specs.at(e->op_set == OpSet::kOrderedKv ? OpSet::kKv : e->op_set);
    check_fits(*e, spec.op_set(), m);
    if (o.threads > 1 && e->sync != Sync::kInternal) {
      throw UsageError(fmt::format(
          "--threads {}: the multi-thread variant runs structures that synchronise themselves; "
          "{} does not (structures that do: {})",
          o.threads, e->name,
          structure_names([](const DsEntry& x) { return x.sync == Sync::kInternal; })));
    }
  }
  if (o.threads > 1 && o.model != "power") {
    throw UsageError("--threads > 1 needs --model power (the process model kills one process)");
  }
  if (!o.out.empty()) check_results_output(o.out, "--out");

  const std::string pool_dir = resolve_pool_dir(o.pool_dir);
  check_pool_dir(pool_dir);
  for (const auto& [e, m] : pairs) {
    const WorkloadSpec& spec = specs.at(e->op_set == OpSet::kOrderedKv ? OpSet::kKv : e->op_set);
    check_footprint(crash_footprint(*e, m, spec, o.jobs), pool_dir);
  }
  install_stop_signals();
  const PmemProbe probe = probe_pool_dir(pool_dir);
  const PersistencePolicy policy = resolve_persistence(o.persistence, probe.platform_eadr());
  if (o.store_buffer_loss == "suffix" && policy.domain.flushes()) {
    throw UsageError(fmt::format(
        "--store-buffer-loss suffix needs --domain eadr (the domain is {}: under ADR every "
        "store not written back and fenced is lost already)",
        policy.domain.label()));
  }
  // --all leaves out designs not crash-consistent under the resolved domain and
  // modes not failure-atomic by design (with --unsafe, they are negative controls).
  if (o.all) {
    drop_unsafe_pairs(pairs, policy.domain.domain, o.unsafe);
    drop_torn_pairs(pairs, o.unsafe);
  }
  for (const auto& [e, m] : pairs) check_domain(*e, m, policy.domain.domain, o.unsafe);
  install_policy(policy);
  warn_policy(policy);
  std::map<OpSet, CrashWorkload> workloads;
  for (const auto& [set, spec] : specs) workloads.emplace(set, crash_workload(spec, o.threads));
  throw_if_stopped();

  WorkDir work(pool_dir);
  CrashOptions copt;
  copt.work_dir = work.path();
  copt.points = points;
  copt.grain = o.grain;
  copt.model = o.model == "process" ? CrashModel::kProcess : CrashModel::kPower;
  copt.survive = o.survive == "random" ? o.survive_probability : 0.0;
  copt.seed = specs.empty() ? 1 : specs.begin()->second.seed;  // --seed or -p seed, as every set's
  copt.jobs = o.jobs;
  copt.recovery_points = o.recovery_points;
  copt.policy = policy;
  copt.store_buffer_loss = o.store_buffer_loss == "suffix";

  const nlohmann::json context = collect_context(pool_dir, probe);
  std::FILE* const table = o.out.empty() ? stdout : table_stream(o.out);
  size_t ds_width = 15;
  for (const auto& pair : pairs) ds_width = std::max(ds_width, pair.first->name.size());
  print_header(table, ds_width);
  bool violation = false;
  std::vector<std::string> designed, unexpected;  // "ds mode" of the pairs with violations
  for (const auto& [e, m] : pairs) {
    {
      throw_if_stopped();
      const OpSet set = e->op_set == OpSet::kOrderedKv ? OpSet::kKv : e->op_set;
      const WorkloadSpec& spec = specs.at(set);
      const CrashReport r = e->in(m).crash(copt, workloads.at(set));
      const bool trans = m == Mode::kTrans;
      violation = violation || r.violation(trans);
      nlohmann::json config = spec.to_json();
      config.update({{"command", "crash"},
                     {"ds", e->name},
                     {"mode", mode_name(m)},
                     {"model", o.model},
                     {"survive", o.survive},
                     {"survive_probability", copt.survive},
                     {"grain", o.grain},
                     {"points_requested",
                      points == kAllPoints ? nlohmann::json("all") : nlohmann::json(points)},
                     {"workload_seed", spec.seed},
                     {"jobs", o.jobs},
                     {"threads", o.threads},
                     {"recovery_points", o.recovery_points},
                     {"unsafe", o.unsafe},
                     {"failure_atomic", e->failure_atomic(m)},
                     {"overwrite_atomic", e->overwrite_atomic(m)},
                     {"pool_dir", pool_dir},
                     {"pmempool_check", copt.pmempool_check},
                     {"store_buffer_loss", o.store_buffer_loss}});
      config.update(policy.to_json());
      config["flush"] = o.persistence.flush;
      const nlohmann::json metrics = {
          {"points", r.points},
          {"recovered", r.recovered},
          {"invariant_failures", r.invariant_failures},
          {"lost_acknowledged", r.lost_acknowledged},
          {"half_applied", r.half_applied},
          // Where overwrites are atomic by design a torn one is half_applied.
          {"torn_values",
           e->overwrite_atomic(m) ? nlohmann::json(nullptr) : nlohmann::json(r.torn_values)},
          {"leaked_objects", r.leaked_objects},
          {"dangling_objects", r.dangling_objects},
          {"recovery_ms_median", r.recovery_ms_median()},
          {"recovery_ms_max", r.recovery_ms_max()},
          {"points_available", r.points_available},
          {"leaks_after_repair", r.leaks_after_repair},
          {"pmempool_failures", r.pmempool_failures},
          {"recovery_crashes", r.recovery_crashes},
          {"violation", r.violation(trans)},
      };
      const nlohmann::json record = {{"schema_version", kSchemaVersion},
                                     {"context", context},
                                     {"config", config},
                                     {"metrics", metrics},
                                     {"failures", r.failures},
                                     {"failure_kinds", r.failure_kinds}};
      if (!o.out.empty()) append_record(o.out, record);
      print_row(table, ds_width, record);
      for (const auto& f : r.failures)
        fmt::print(stderr, "  {} {}: {}\n", e->name, mode_name(m), f);
      if (r.violation(trans)) {
        (e->failure_atomic(m) ? unexpected : designed)
            .push_back(fmt::format("{} {}", e->name, mode_name(m)));
      }
      if (r.violation(trans) && !e->failure_atomic(m)) {
        fmt::print(stderr,
                   "  {} {}: not failure-atomic by design in any domain (multi-word in-place "
                   "changes, docs/crash.md): these violations are the design's, expected\n",
                   e->name, mode_name(m));
      }
      if (r.torn_values != 0) {
        fmt::print(stderr,
                   "  {} {}: {} in-flight update(s) left a torn value: the design overwrites "
                   "values in place under one persist (torn_value_modes, docs/crash.md), "
                   "expected when lines reach PMEM early\n",
                   e->name, mode_name(m), r.torn_values);
      }
    }
  }
  print_summary(table, pairs.size(), designed, unexpected, o.fail_on_violation);
  if (!o.out.empty()) fmt::print(stderr, "pmemids: results {}\n", records_destination(o.out));
  if (violation && o.fail_on_violation) {
    throw Error(3, "crash consistency violations found (--fail-on-violation)");
  }
}

}  // namespace

void add_crash_command(CLI::App& app) {
  auto o = std::make_shared<CrashCliOptions>();
  CLI::App* sub = app.add_subcommand(
      "crash", "Crash-consistency test: crash structures at persist points, recover, check");
  sub->add_option("--ds", o->ds, "Structure(s): name or comma-separated names")
      ->check(non_empty())
      ->default_str("none: give --ds or --all");
  sub->add_flag("--all", o->all,
                "Every (structure, durable mode) that claims crash consistency under the domain "
                "(not the torn_modes of `list --json`), or every one with --unsafe (with every "
                "durable mode unless --mode)");
  sub->add_option("--mode", o->mode, "pmem-persist, pmem-trans, or both comma-separated")
      ->check(non_empty())
      ->default_str("the durable modes each structure supports");
  sub->add_option("--points", o->points,
                  "Crash points per (structure, mode), drawn with the seed; 'all': every point "
                  "of the run")
      ->type_name("N|all")
      ->capture_default_str();
  sub->add_option("--model", o->model,
                  "power: lose what the domain does not keep (adr: what was not written back "
                  "and fenced; eadr: nothing, or see --store-buffer-loss); process: SIGKILL a "
                  "child, nothing lost from the caches")
      ->check(CLI::IsMember({"power", "process"}))
      ->capture_default_str();
  sub->add_option("--survive", o->survive,
                  "power: none (every unpersisted line is lost) or random (each survives "
                  "with --survive-probability)")
      ->check(CLI::IsMember({"none", "random"}))
      ->capture_default_str();
  sub->add_option("--survive-probability", o->survive_probability,
                  "Probability an unpersisted line survives with --survive random")
      ->check(finite_range(0.0, 1.0))
      ->capture_default_str();
  sub->add_option("--grain", o->grain,
                  "With --survive random (ADR): bytes that survive or are lost together, 64 (a "
                  "cache line) or 8 (a word: a line written in several stores can be cut)")
      ->check(CLI::IsMember({8, 64}))
      ->capture_default_str();
  sub->add_option("--jobs", o->jobs,
                  "Crash images checked at once while the run goes on (more is faster on idle "
                  "cores but the recovery times then include contention)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  sub->add_option("--pool-dir", o->pool_dir, "Pool directory; must exist")
      ->check(non_empty())
      ->type_name("DIR")
      ->default_str("$PMEMIDS_POOL_DIR, else /dev/shm/pmemids");
  sub->add_option("--out", o->out,
                  "JSON-lines file to append one record per (structure, mode) to; '-': "
                  "records to stdout, the table to stderr")
      ->check(non_empty())
      ->type_name("FILE")
      ->default_str("none: the table only");
  sub->add_option("--threads", o->threads,
                  "Workers of the multi-thread variant (internal structures): they run one at a "
                  "time, switching at random sync points, so a crash stops the world (1: "
                  "single-threaded, points exhaustive for small runs)")
      ->check(CLI::Range(1, 16))
      ->capture_default_str();
  sub->add_option("--recovery-points", o->recovery_points,
                  "Also crash inside each recovery at its first N crash points and recover again")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  sub->add_flag("--unsafe", o->unsafe,
                "Test a structure under a domain it is not crash-consistent in, and with --all "
                "also the modes not failure-atomic by design (negative controls: violations are "
                "expected)");
  sub->add_flag("--fail-on-violation", o->fail_on_violation,
                "Exit 3 when any crash point failed (for CI)");
  add_persistence_options(sub, o->persistence);
  sub->add_option("--store-buffer-loss", o->store_buffer_loss,
                  "Power model under --domain eadr: none (every store executed before the "
                  "crash survives) or suffix (a suffix of the stores issued since the last "
                  "fence is lost, as from an x86 store buffer)")
      ->check(CLI::IsMember({"none", "suffix"}))
      ->capture_default_str();
  add_workload_options(sub, o->workload,
                       "Property override key=value (default per operation set: kv "
                       "recordcount=100, operationcount=300, 30% updates, 40% inserts, 30% "
                       "deletes; set, queue and stack a small mix of their own); seed also "
                       "chooses the crash points and surviving lines");
  sub->callback([o] { crash(*o); });
}

}  // namespace pmemids
