#include "registry/registry.h"

#include <fmt/core.h>

#include <set>
#include <utility>

#include "ds/catalog.h"
#include "errors.h"
#include "registry/shard.h"

namespace pmemids {

static_assert(structure_count(Catalog{}) == PMEMIDS_REGISTRY_SHARDS,
              "CMakeLists.txt generated a registry shard count that differs from "
              "ds/catalog.h's list: it reads the names between 'using Catalog = "
              "StructureList<' and '>;', so keep comments out of that list");

namespace {

template <size_t... I>
std::vector<DsEntry> catalog_entries(std::index_sequence<I...>) {
  return {catalog_entry<I>()...};
}

}  // namespace

const std::vector<DsEntry>& registry() {
  static const std::vector<DsEntry> entries = [] {
    std::vector<DsEntry> all = catalog_entries(std::make_index_sequence<PMEMIDS_REGISTRY_SHARDS>());
    all.insert(all.end(), added_indexes().begin(), added_indexes().end());
    std::set<std::string_view> names;
    for (const auto& e : all) {
      if (!names.insert(e.name).second) {
        throw UsageError(fmt::format(
            "two structures are named '{}' (one built in with PMEMIDS_EXTRA_DS?); rename one",
            e.name));
      }
    }
    return all;
  }();
  return entries;
}

const DsEntry& find_ds(std::string_view name) {
  for (const auto& e : registry()) {
    if (e.name == name) return e;
  }
  throw UsageError(fmt::format("unknown data structure '{}'; choose from: {}", name,
                               names_where(
                                   registry(), [](const DsEntry&) { return true; }, ", ")));
}

std::vector<const DsEntry*> structures_for(OpSet workload) {
  std::vector<const DsEntry*> out;
  for (const auto& e : registry()) {
    if (!e.harness && op_set_fits(workload, e.op_set)) out.push_back(&e);
  }
  return out;
}

void check_fits(const DsEntry& e, OpSet workload, Mode m) {
  if (!op_set_fits(workload, e.op_set)) {
    const std::string what =
        workload == OpSet::kOrderedKv && e.op_set == OpSet::kKv
            ? fmt::format(
                  "{} cannot scan (operation set kv) and the workload has scans "
                  "(scanproportion > 0)",
                  e.name)
            : fmt::format(
                  "{} implements operation set {} and cannot run an operationset={} "
                  "workload",
                  e.name, op_set_name(e.op_set), op_set_name(workload));
    throw UsageError(fmt::format(
        "{}; structures that can: {}", what,
        structure_names([&](const DsEntry& x) { return op_set_fits(workload, x.op_set); })));
  }
  if (!e.supports(m)) {
    throw UsageError(
        fmt::format("{} does not support mode {}; its modes: {}", e.name, mode_name(m),
                    mode_names([&](const ModeInfo& i) { return e.supports(i.mode); })));
  }
}

void check_domain(const DsEntry& e, Mode m, Domain d, bool unsafe) {
  if (!durable(m) || e.crash_safe(d) || unsafe) return;
  throw UsageError(fmt::format(
      "{} is crash-consistent only under --domain {}, not {}; pass --unsafe to run it anyway "
      "(a negative control for `pmemids crash`)",
      e.name, domain_names([&](const DomainInfo& x) { return e.crash_safe(x.domain); }),
      domain_name(d)));
}

void drop_unsafe_pairs(std::vector<std::pair<const DsEntry*, Mode>>& pairs, Domain d, bool unsafe) {
  if (unsafe) return;
  std::erase_if(pairs, [d](const std::pair<const DsEntry*, Mode>& p) {
    const auto& [e, m] = p;
    if (!durable(m) || e->crash_safe(d)) return false;
    fmt::print(stderr,
               "pmemids: note: skipping {} in {} (not crash-consistent under {}; --unsafe runs "
               "it)\n",
               e->name, mode_name(m), domain_name(d));
    return true;
  });
}

void drop_torn_pairs(std::vector<std::pair<const DsEntry*, Mode>>& pairs, bool unsafe) {
  if (unsafe) return;
  std::erase_if(pairs, [](const std::pair<const DsEntry*, Mode>& p) {
    const auto& [e, m] = p;
    if (e->failure_atomic(m)) return false;
    fmt::print(stderr,
               "pmemids: note: skipping {} in {} (not failure-atomic by design: unlogged "
               "in-place multi-word changes, docs/crash.md; name it or pass --unsafe to test "
               "it)\n",
               e->name, mode_name(m));
    return true;
  });
}

void check_thread_mode(const DsEntry& e, ThreadMode tm) {
  if (tm == ThreadMode::kNative && e.sync != Sync::kInternal) {
    throw UsageError(fmt::format(
        "--thread-mode native runs structures that synchronise themselves; {} needs a lock "
        "(use --thread-mode concurrent); structures that can: {}",
        e.name, structure_names([](const DsEntry& x) { return x.sync == Sync::kInternal; })));
  }
}

}  // namespace pmemids
