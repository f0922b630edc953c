// The crash registry entry of structure template DS: run_crash instantiated
// with the checking backends of both durable modes. Used by the built-in crash
// registry and by register_index (PMEMIDS_EXTRA_DS).
#pragma once

#include "crash/crash_impl.h"
#include "crash/crash_registry.h"
#include "pmemids/index.h"

namespace pmemids {

template <template <class> class DS>
CrashEntry make_crash_entry() {
  static_assert(CrashTestable<DS<ShadowPersistBackend>>);
  static_assert(CrashTestable<DS<ShadowTransBackend>>);
  return CrashEntry{DS<PersistBackend>::kName, &run_crash<DS, ShadowPersistBackend>,
                    &run_crash<DS, ShadowTransBackend>};
}

}  // namespace pmemids
