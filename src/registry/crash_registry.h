// The crash functions of every structure of the descriptor list (ds/catalog.h),
// in its order: per mode of the backend list, run_crash<DS, checking backend>
// for the durable modes the structure supports (null elsewhere, and for
// harness structures, which keep nothing). The registry (registry/registry.h)
// puts them into its entries; this file only keeps the heavy crash
// instantiations in their own unit.
#pragma once

#include <array>
#include <vector>

#include "backend/backends.h"
#include "crash/crash.h"

namespace pmemids {

using CrashFn = CrashReport (*)(const CrashOptions&, const CrashWorkload&);
using CrashRow = std::array<CrashFn, kModeCount>;  // indexed by Mode

const std::vector<CrashRow>& crash_table();

}  // namespace pmemids
