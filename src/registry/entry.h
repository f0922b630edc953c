// The registry entry of structure template DS: its traits (ds/traits.h) and,
// per mode it supports, the fully templated run and size functions (null
// elsewhere: nothing is instantiated there); `crash` is its row of crash
// functions (registry/crash_entry.h). Used for the descriptor list
// (registry/registry.cc) and by register_index for structures built in with
// PMEMIDS_EXTRA_DS (registry/extra_index.h).
#pragma once

#include <array>

#include "backend/obj.h"
#include "backend/plain.h"
#include "registry/registry.h"
#include "run/reopen_check.h"

namespace pmemids {
namespace entry_detail {

template <template <class> class DS, class B>
constexpr bool fits() {
  return DS<DramBackend>::kModes.has(B::kMode);
}

template <template <class> class DS, class B>
auto run_of() -> RepResult (*)(const RunRequest&) {
  if constexpr (fits<DS, B>()) {
    static_assert(Structure<DS<B>>);
    return &run_rep_checked<DS, B>;
  } else {
    return nullptr;
  }
}
template <template <class> class DS, class B>
auto element_bytes_of() -> uint64_t (*)(uint32_t) {
  if constexpr (fits<DS, B>()) {
    return &DS<B>::element_bytes;
  } else {
    return nullptr;
  }
}
template <template <class> class DS, class B>
auto structure_bytes_of() -> uint64_t (*)(const DsOptions&) {
  if constexpr (fits<DS, B>()) {
    return &DS<B>::pool_bytes;
  } else {
    return nullptr;
  }
}

}  // namespace entry_detail

template <template <class> class DS>
DsEntry make_entry(const std::array<CrashFn, 4>& crash) {
  using namespace entry_detail;
  using D = DS<DramBackend>;
  return DsEntry{
      .name = D::kName,
      .description = D::kDescription,
      .op_set = D::kOpSet,
      .sync = D::kSync,
      .modes = D::kModes,
      .domains = D::kDomains,
      .harness = D::kHarness,
      .torn_modes = torn_modes<D>(),
      .torn_value_modes = torn_value_modes<D>(),
      .knobs = knobs_of<D>(),
      .metrics = metrics_of<D>(),
      .element_bytes = {element_bytes_of<DS, DramBackend>(),
                        element_bytes_of<DS, VolatileBackend>(),
                        element_bytes_of<DS, PersistBackend>(),
                        element_bytes_of<DS, TransBackend>()},
      .structure_bytes = {structure_bytes_of<DS, DramBackend>(),
                          structure_bytes_of<DS, VolatileBackend>(),
                          structure_bytes_of<DS, PersistBackend>(),
                          structure_bytes_of<DS, TransBackend>()},
      .run = {run_of<DS, DramBackend>(), run_of<DS, VolatileBackend>(),
              run_of<DS, PersistBackend>(), run_of<DS, TransBackend>()},
      .crash = crash,
  };
}

}  // namespace pmemids
