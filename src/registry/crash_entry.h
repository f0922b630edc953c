// The crash functions of structure template DS, per mode of the backend list:
// run_crash with the checking backend of each durable mode DS supports (null
// elsewhere, and for harness structures, which keep nothing). Used for the
// descriptor list (registry/shard_entry.h) and by register_index for
// structures built in with PMEMIDS_EXTRA_DS (registry/extra_index.h), so the
// heavy crash instantiations stay in those units.
#pragma once

#include <type_traits>

#include "crash/crash_impl.h"
#include "registry/crash_row.h"

namespace pmemids {

template <template <class> class DS>
CrashRow crash_row() {
  using D = DS<DramBackend>;
  CrashRow row{};
  for_each_backend([&](const auto& entry) {
    using C = typename std::remove_cvref_t<decltype(entry)>::checking;
    if constexpr (!std::is_void_v<C>) {
      if constexpr (!D::kHarness && D::kModes.has(C::kMode)) {
        row[static_cast<size_t>(C::kMode)] = &run_crash<DS, C>;
      }
    }
  });
  return row;
}

}  // namespace pmemids
