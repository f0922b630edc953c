// The registry: the descriptor list (ds/catalog.h) as a table, the one place
// where a run's type is chosen. Each entry holds a structure's traits and, per
// mode it supports, pointers to the fully templated run and crash functions;
// nothing below them is type-erased. Modes are the backend list's
// (backend/backends.h). `run`, `crash`, `list` and sweep
// validation read this table; no command compares structure names.
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backend/backends.h"
#include "ds/traits.h"
#include "pmem/domain.h"
#include "registry/crash_row.h"
#include "run/runner.h"
#include "util/names.h"

namespace pmemids {

// A structure's functions in one mode, all null where it does not support it.
struct ModeFns {
  uint64_t (*element_bytes)(uint32_t) = nullptr;
  // The structure's own estimate of its bytes (elements, arrays, allocator
  // overhead) for these options: what the default pool size is derived from.
  uint64_t (*structure_bytes)(const DsOptions&) = nullptr;
  RepResult (*run)(const RunRequest&) = nullptr;
  // Durable modes: run_crash with the mode's checking backend (null for
  // harness structures, which keep nothing).
  CrashFn crash = nullptr;
};

struct DsEntry {
  std::string_view name;
  std::string_view description;
  OpSet op_set;
  Sync sync;
  ModeSet modes;
  DomainSet domains;
  bool harness;
  ModeSet torn_modes;                  // durable modes not failure-atomic by design (ds/traits.h)
  ModeSet torn_value_modes;            // durable modes whose overwrites can tear (ds/traits.h)
  std::span<const Knob* const> knobs;  // the knobs it reads (ds/traits.h)
  std::span<const Metric> metrics;     // what it counts about itself (ds/traits.h)
  std::array<ModeFns, kModeCount> per_mode;  // indexed by Mode (the backend list's order)

  const ModeFns& in(Mode m) const { return per_mode[static_cast<size_t>(m)]; }
  // Whether some mode has a crash test (the structure keeps something).
  bool crash_testable() const {
    for (const ModeFns& f : per_mode) {
      if (f.crash != nullptr) return true;
    }
    return false;
  }
  bool can_scan() const { return op_set == OpSet::kOrderedKv; }
  bool supports(Mode m) const { return modes.has(m); }
  bool crash_safe(Domain d) const { return domains.has(d); }
  bool failure_atomic(Mode m) const { return !torn_modes.has(m); }
  bool overwrite_atomic(Mode m) const { return !torn_value_modes.has(m); }
};

// The built-in structures, then those added by add_index, in that order.
// UsageError when two have the same name.
const std::vector<DsEntry>& registry();
// Adds a structure built in from outside (register_index, PMEMIDS_EXTRA_DS);
// only before registry() is first called, i.e. during static initialisation.
void add_index(DsEntry e);
// Those add_index added, in order (registry/added_index.cc).
const std::vector<DsEntry>& added_indexes();
// UsageError naming the accepted names when not found.
const DsEntry& find_ds(std::string_view name);

// Every knob some entry reads, once each (by name), in the order of first
// appearance: what `run` accepts as options (registry/knobs.cc, which links
// without the registry's instantiations). UsageError when two descriptors
// share a name.
const std::vector<const Knob*>& all_knobs();

// Names of the (non-harness) entries `keep` accepts, comma-separated, for
// messages; "none" when there are none.
template <class Keep>
std::string structure_names(Keep&& keep) {
  std::string names = names_where(
      registry(), [&](const DsEntry& e) { return !e.harness && keep(e); }, ", ");
  return names.empty() ? "none" : names;
}

// What `--ds all` means for a workload of operation set `workload`: every
// non-harness structure whose operation set fits it.
std::vector<const DsEntry*> structures_for(OpSet workload);

// UsageError unless `e` can run a workload of operation set `workload` in mode
// `m`, under domain `d` (checked for durable modes; `unsafe` lets an
// eADR-only design run under ADR as a negative control), in thread mode `tm`
// (native needs internal synchronisation). Messages name the structures that
// would fit.
void check_fits(const DsEntry& e, OpSet workload, Mode m);
void check_domain(const DsEntry& e, Mode m, Domain d, bool unsafe);
void check_thread_mode(const DsEntry& e, ThreadMode tm);

// For pairs chosen by `all` (run --ds all, crash --all) rather than named:
// drops the durable pairs whose structure is not crash-consistent under the
// resolved domain `d`, with a note on stderr naming each, unless `unsafe`
// (then they run as negative controls, as named ones do).
void drop_unsafe_pairs(std::vector<std::pair<const DsEntry*, Mode>>& pairs, Domain d, bool unsafe);

// For pairs chosen by `crash --all`: also drops the (structure, mode) pairs not
// failure-atomic by design (DsEntry::torn_modes: the pmem-persist trees, whose
// in-place multi-word changes are unlogged in every domain), with a note on
// stderr naming each, unless `unsafe`. `--all` then tests exactly the claims
// the structures make, so a violation it reports is a bug; the torn pairs stay
// testable by name or with --unsafe.
void drop_torn_pairs(std::vector<std::pair<const DsEntry*, Mode>>& pairs, bool unsafe);

}  // namespace pmemids
