// `pmemids crash`: crash-consistency runs per (structure, durable mode), a table
// on stdout and one JSON record per (structure, mode). See crash/crash.h. The
// options become a plan (cli/crash_plan.h), each pair runs, and each is
// reported as it ends (report/reporter.h).
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>

#include "cli/commands.h"
#include "cli/crash_plan.h"
#include "crash/crash.h"
#include "errors.h"
#include "options/lists.h"
#include "options/persistence_options.h"
#include "options/validators.h"
#include "options/workload_options.h"
#include "pmem/domain.h"
#include "registry/footprint.h"
#include "registry/registry.h"
#include "report/reporter.h"
#include "run/context.h"
#include "run/result.h"
#include "util/file_checks.h"
#include "util/stop_signals.h"

namespace pmemids {
namespace {

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

// crash's table: a row per (structure, mode).
class CrashTable final : public Table {
 public:
  // `ds_width`: the longest structure name of the run's rows (at least 15).
  explicit CrashTable(size_t ds_width) : ds_width_(ds_width) {}

  void header(std::FILE* out) const override {
    fmt::print(
        out, "{:<{}} {:<13} {:<7} {:>6} {:>9} {:>9} {:>8} {:>5} {:>5} {:>7} {:>8} {:>9} {:>9} {}\n",
        "ds", ds_width_, "mode", "model", "points", "recovered", "inv_fail", "lost_ack", "half",
        "torn", "leaked", "dangling", "rec_ms_med", "rec_ms_max", "domain");
  }

  void row(std::FILE* out, const nlohmann::json& rec) const override {
    const auto& c = rec["config"];
    const auto& m = rec["metrics"];
    const auto& torn = m["torn_values"];
    fmt::print(
        out,
        "{:<{}} {:<13} {:<7} {:>6} {:>9} {:>9} {:>8} {:>5} {:>5} {:>7} {:>8} {:>9.2f} {:>9.2f} "
        "{}\n",
        c["ds"].get<std::string>(), ds_width_, c["mode"].get<std::string>(),
        c["model"].get<std::string>(), m["points"].get<uint64_t>(), m["recovered"].get<uint64_t>(),
        m["invariant_failures"].get<uint64_t>(), m["lost_acknowledged"].get<uint64_t>(),
        m["half_applied"].get<uint64_t>(),
        torn.is_null() ? std::string("-") : std::to_string(torn.get<uint64_t>()),
        m["leaked_objects"].get<uint64_t>(), m["dangling_objects"].get<uint64_t>(),
        m["recovery_ms_median"].get<double>(), m["recovery_ms_max"].get<double>(),
        c["domain"].get<std::string>());
    std::fflush(out);
  }

 private:
  size_t ds_width_;
};

// Where the table goes: stdout, unless the records do.
std::FILE* table_file(const CrashCliOptions& o) {
  return o.out.empty() ? stdout : table_stream(o.out);
}

size_t ds_width(const std::vector<std::pair<const DsEntry*, Mode>>& pairs) {
  size_t width = 15;
  for (const auto& pair : pairs) width = std::max(width, pair.first->name.size());
  return width;
}

// The checker's options: the plan's, in the run's private directory.
CrashOptions crash_options(const CrashPlan& plan, const CrashCliOptions& o,
                           const std::string& work_dir) {
  CrashOptions copt;
  copt.work_dir = work_dir;
  copt.points = plan.points;
  copt.grain = o.grain;
  copt.model = o.model == "process" ? CrashModel::kProcess : CrashModel::kPower;
  copt.survive = o.survive == "random" ? o.survive_probability : 0.0;
  // --seed or -p seed, as every set's.
  copt.seed = plan.specs.empty() ? 1 : plan.specs.begin()->second.seed;
  copt.jobs = o.jobs;
  copt.recovery_points = o.recovery_points;
  copt.policy = plan.policy;
  copt.store_buffer_loss = o.store_buffer_loss == "suffix";
  return copt;
}

nlohmann::json crash_config(const CrashCliOptions& o, const CrashOptions& copt,
                            const CrashPlan& plan, const DsEntry& e, Mode m) {
  const WorkloadSpec& spec = plan.spec_of(e);
  nlohmann::json config = spec.to_json();
  config.update({{"command", "crash"},
                 {"ds", e.name},
                 {"mode", mode_name(m)},
                 {"model", o.model},
                 {"survive", o.survive},
                 {"survive_probability", copt.survive},
                 {"grain", o.grain},
                 {"points_requested",
                  plan.points == kAllPoints ? nlohmann::json("all") : nlohmann::json(plan.points)},
                 {"workload_seed", spec.seed},
                 {"jobs", o.jobs},
                 {"threads", o.threads},
                 {"recovery_points", o.recovery_points},
                 {"unsafe", o.unsafe},
                 {"failure_atomic", e.failure_atomic(m)},
                 {"overwrite_atomic", e.overwrite_atomic(m)},
                 {"pool_dir", plan.pool_dir},
                 {"pmempool_check", copt.pmempool_check},
                 {"store_buffer_loss", o.store_buffer_loss}});
  config.update(plan.policy.to_json());
  config["flush"] = o.persistence.flush;
  return config;
}

nlohmann::json crash_metrics(const CrashReport& r, const DsEntry& e, Mode m) {
  return {
      {"points", r.points},
      {"recovered", r.recovered},
      {"invariant_failures", r.invariant_failures},
      {"lost_acknowledged", r.lost_acknowledged},
      {"half_applied", r.half_applied},
      // Where overwrites are atomic by design a torn one is half_applied.
      {"torn_values",
       e.overwrite_atomic(m) ? nlohmann::json(nullptr) : nlohmann::json(r.torn_values)},
      {"leaked_objects", r.leaked_objects},
      {"dangling_objects", r.dangling_objects},
      {"recovery_ms_median", r.recovery_ms_median()},
      {"recovery_ms_max", r.recovery_ms_max()},
      {"points_available", r.points_available},
      {"leaks_after_repair", r.leaks_after_repair},
      {"pmempool_failures", r.pmempool_failures},
      {"recovery_crashes", r.recovery_crashes},
      {"violation", r.violation(!mode_info(m).repairs_leaks)},
  };
}

// The pairs with violations ("ds mode"): the design's (modes not failure-atomic
// by design, run as negative controls) and the others.
struct Violations {
  std::vector<std::string> designed, unexpected;
  bool any() const { return !designed.empty() || !unexpected.empty(); }
};

// What a pair's run found, on stderr: its failures, and why violations or torn
// values are the design's.
void explain(const CrashReport& r, const DsEntry& e, Mode m, Violations& v) {
  for (const auto& f : r.failures) fmt::print(stderr, "  {} {}: {}\n", e.name, mode_name(m), f);
  const bool violation = r.violation(!mode_info(m).repairs_leaks);
  if (violation) {
    (e.failure_atomic(m) ? v.unexpected : v.designed)
        .push_back(fmt::format("{} {}", e.name, mode_name(m)));
  }
  if (violation && !e.failure_atomic(m)) {
    fmt::print(stderr,
               "  {} {}: not failure-atomic by design in any domain (multi-word in-place "
               "changes, docs/crash.md): these violations are the design's, expected\n",
               e.name, mode_name(m));
  }
  if (r.torn_values != 0) {
    fmt::print(stderr,
               "  {} {}: {} in-flight update(s) left a torn value: the design overwrites "
               "values in place under one persist (torn_value_modes, docs/crash.md), "
               "expected when lines reach PMEM early\n",
               e.name, mode_name(m), r.torn_values);
  }
}

// The run's last line: which violations are the design's and which are not,
// and the exit status to expect.
void print_summary(std::FILE* out, size_t pairs, const Violations& v, bool fail_on_violation) {
  const size_t bad = v.designed.size() + v.unexpected.size();
  if (bad == 0) {
    fmt::print(out, "summary: no violations in {} (structure, mode) pair(s); exit 0\n", pairs);
    return;
  }
  std::string what;
  if (!v.designed.empty()) {
    what += fmt::format(
        "{} the design's ({}: not failure-atomic by design, expected, "
        "docs/crash.md)",
        v.designed.size(), fmt::join(v.designed, ", "));
  }
  if (!v.unexpected.empty()) {
    what +=
        fmt::format("{}{} NOT expected ({}: failure-atomic by design, a bug to report)",
                    what.empty() ? "" : "; ", v.unexpected.size(), fmt::join(v.unexpected, ", "));
  }
  fmt::print(out, "summary: violations in {} of {} (structure, mode) pair(s): {}; {}\n", bad, pairs,
             what,
             fail_on_violation ? "exit 3 (--fail-on-violation)"
                               : "exit 0 (--fail-on-violation makes it 3)");
}

void crash(const CrashCliOptions& o) {
  CrashPlan plan = plan_crash(o);
  install_stop_signals();
  resolve_domain(plan, o);
  install_policy(plan.policy);
  warn_policy(plan.policy);
  std::map<OpSet, CrashWorkload> workloads;
  for (const auto& [set, spec] : plan.specs)
    workloads.emplace(set, crash_workload(spec, o.threads));
  throw_if_stopped();

  WorkDir work(plan.pool_dir);
  const CrashOptions copt = crash_options(plan, o, work.path());
  const CrashTable table(ds_width(plan.pairs));
  const Reporter reporter(o.out, table_file(o), table, collect_context(plan.pool_dir, plan.probe));
  reporter.header();
  Violations violations;
  for (const auto& [e, m] : plan.pairs) {
    throw_if_stopped();
    const CrashReport r = e->in(m).crash(copt, workloads.at(workload_set(*e)));
    nlohmann::json record =
        reporter.record(crash_config(o, copt, plan, *e, m), crash_metrics(r, *e, m));
    record["failures"] = r.failures;
    record["failure_kinds"] = r.failure_kinds;
    reporter.emit(record);
    explain(r, *e, m, violations);
  }
  print_summary(table_file(o), plan.pairs.size(), violations, o.fail_on_violation);
  if (!o.out.empty()) fmt::print(stderr, "pmemids: results {}\n", records_destination(o.out));
  if (violations.any() && o.fail_on_violation) {
    throw Error(3, "crash consistency violations found (--fail-on-violation)");
  }
}

// Domains whose power model keeps every store executed before the crash
// (unless --store-buffer-loss drops a suffix of them).
bool keeps_unflushed_lines(const DomainInfo& d) { return !d.crash_model.unflushed_lines_lost; }

// "adr: what was not written back and fenced; eadr: nothing, or see
// --store-buffer-loss": what a power failure loses in each domain.
std::string power_losses() {
  std::string out;
  for (const DomainInfo& d : kDomainTable) {
    out += fmt::format("{}{}: {}", out.empty() ? "" : "; ", d.name,
                       keeps_unflushed_lines(d) ? "nothing, or see --store-buffer-loss"
                                                : "what was not written back and fenced");
  }
  return out;
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
  sub->add_option("--mode", o->mode,
                  fmt::format("{}, or several comma-separated", durable_mode_names(" or ")))
      ->check(non_empty())
      ->default_str("the durable modes each structure supports");
  sub->add_option("--points", o->points,
                  "Crash points per (structure, mode), drawn with the seed; 'all': every point "
                  "of the run")
      ->type_name("N|all")
      ->capture_default_str();
  sub->add_option("--model", o->model,
                  fmt::format("power: lose what the domain does not keep ({}); process: SIGKILL "
                              "a child, nothing lost from the caches",
                              power_losses()))
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
                  fmt::format("Power model under --domain {}: none (every store executed "
                              "before the crash survives) or suffix (a suffix of the stores "
                              "issued since the last fence is lost, as from an x86 store buffer)",
                              domain_names(keeps_unflushed_lines, " or ")))
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
