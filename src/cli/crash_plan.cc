#include "cli/crash_plan.h"

#include <fmt/format.h>

#include <algorithm>

#include "backend/backends.h"
#include "backend/pool.h"
#include "crash/crash.h"
#include "errors.h"
#include "options/lists.h"
#include "pmem/domain.h"
#include "registry/footprint.h"
#include "registry/registry.h"
#include "util/capacity.h"
#include "util/file_checks.h"

namespace pmemids {
namespace {

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
  std::vector<Mode> out;
  for (const auto& name : split_distinct(arg, "--mode")) {
    const auto m = mode_named(name);
    if (!m) {
      throw UsageError(
          fmt::format("unknown mode '{}'; crash-testable modes: {}", name, durable_mode_names()));
    }
    if (!durable(*m)) {
      throw UsageError(fmt::format("--mode {}: nothing to crash-test (it keeps nothing); use {}",
                                   name, durable_mode_names(" or ")));
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

// --ds's names: each once, none of the harness.
std::vector<std::string> named_structures(const CrashCliOptions& o) {
  if (o.all == !o.ds.empty()) throw UsageError("pass either --ds NAME[,NAME...] or --all");
  std::vector<std::string> names;
  if (o.all) return names;
  names = split_distinct(o.ds, "--ds");
  for (const auto& n : names) {
    if (find_ds(n).harness) {
      throw UsageError(
          fmt::format("{} measures the harness and keeps nothing: nothing to "
                      "crash-test",
                      n));
    }
  }
  return names;
}

// Options of the power model that the others do not take.
void check_model_options(const CrashCliOptions& o) {
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
}

// (structure, mode) pairs: --all and an omitted --mode take the durable
// modes each structure supports; a named pair it does not support is exit 2.
std::vector<std::pair<const DsEntry*, Mode>> select_pairs(const CrashCliOptions& o,
                                                          const std::vector<std::string>& names) {
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
  return pairs;
}

// The workload of each operation set: its defaults, then the files and overrides.
std::map<OpSet, WorkloadSpec> plan_workloads(
    const CrashCliOptions& o, const std::vector<std::pair<const DsEntry*, Mode>>& pairs) {
  std::map<OpSet, WorkloadSpec> specs;
  for (const auto& [e, m] : pairs) {
    const OpSet set = workload_set(*e);
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
  return specs;
}

// What the multi-thread variant (--threads > 1) runs on.
void check_threads(const CrashCliOptions& o, const CrashPlan& p) {
  for (const auto& [e, m] : p.pairs) {
    check_fits(*e, p.spec_of(*e).op_set(), m);
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
}

}  // namespace

OpSet workload_set(const DsEntry& e) {
  return e.op_set == OpSet::kOrderedKv ? OpSet::kKv : e.op_set;
}

const WorkloadSpec& CrashPlan::spec_of(const DsEntry& e) const { return specs.at(workload_set(e)); }

CrashPlan plan_crash(const CrashCliOptions& o) {
  CrashPlan p;
  const std::vector<std::string> names = named_structures(o);
  p.points = parse_points(o.points);
  check_model_options(o);
  p.pairs = select_pairs(o, names);
  p.specs = plan_workloads(o, p.pairs);
  check_threads(o, p);
  if (!o.out.empty()) check_results_output(o.out, "--out");
  p.pool_dir = resolve_pool_dir(o.pool_dir);
  check_pool_dir(p.pool_dir);
  for (const auto& [e, m] : p.pairs) {
    check_footprint(crash_footprint(*e, m, p.spec_of(*e), o.jobs), p.pool_dir);
  }
  return p;
}

void resolve_domain(CrashPlan& plan, const CrashCliOptions& o) {
  plan.probe = probe_pool_dir(plan.pool_dir);
  plan.policy = resolve_persistence(o.persistence, plan.probe.platform_eadr());
  const DomainInfo& domain = domain_info(plan.policy.domain.domain);
  if (o.store_buffer_loss == "suffix" && domain.crash_model.unflushed_lines_lost) {
    throw UsageError(fmt::format(
        "--store-buffer-loss suffix needs --domain {} (the domain is {}: under {} every "
        "store not written back and fenced is lost already)",
        domain_names([](const DomainInfo& d) { return !d.crash_model.unflushed_lines_lost; },
                     " or "),
        plan.policy.domain.label(), domain.title));
  }
  if (o.all) {
    drop_unsafe_pairs(plan.pairs, plan.policy.domain.domain, o.unsafe);
    drop_torn_pairs(plan.pairs, o.unsafe);
  }
  for (const auto& [e, m] : plan.pairs) check_domain(*e, m, plan.policy.domain.domain, o.unsafe);
}

}  // namespace pmemids
