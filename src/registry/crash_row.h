// A structure's crash functions, per mode of the backend list: run_crash with
// the checking backend of each durable mode it supports (null elsewhere, and
// for harness structures, which keep nothing). Built by crash_row<DS>
// (registry/crash_entry.h); the registry (registry/registry.h) stores one in
// each entry's ModeFns.
#pragma once

#include <array>

#include "backend/backends.h"
#include "crash/crash.h"

namespace pmemids {

using CrashFn = CrashReport (*)(const CrashOptions&, const CrashWorkload&);
using CrashRow = std::array<CrashFn, kModeCount>;  // indexed by Mode

}  // namespace pmemids
