// The crash functions of every structure of the descriptor list (ds/catalog.h),
// in its order: per mode, run_crash<DS, checking backend> for the durable modes
// the structure supports (null elsewhere, and for harness structures, which
// keep nothing). The registry (registry/registry.h) puts them into its entries;
// this file only keeps the heavy crash instantiations in their own unit.
#pragma once

#include <array>
#include <vector>

#include "crash/crash.h"

namespace pmemids {

const std::vector<std::array<CrashReport (*)(const CrashOptions&, const CrashWorkload&), 4>>&
crash_table();

}  // namespace pmemids
