// The crash functions of structure template DS, per mode: run_crash with the
// checking backend of each durable mode DS supports (null elsewhere, and for
// harness structures, which keep nothing). Used for the descriptor list
// (registry/crash_registry.cc) and by register_index for structures built in with
// PMEMIDS_EXTRA_DS (registry/extra_index.h), so the heavy crash instantiations stay
// in those units.
#pragma once

#include <array>

#include "backend/plain.h"
#include "crash/crash_impl.h"
#include "registry/registry.h"

namespace pmemids {

template <template <class> class DS, class B>
CrashFn crash_of() {
  using D = DS<DramBackend>;
  if constexpr (!D::kHarness && D::kModes.has(B::kMode)) {
    return &run_crash<DS, B>;
  } else {
    return nullptr;
  }
}

template <template <class> class DS>
std::array<CrashFn, 4> crash_row() {
  return {nullptr, nullptr, crash_of<DS, ShadowPersistBackend>(),
          crash_of<DS, ShadowTransBackend>()};
}

}  // namespace pmemids
