// The structures `pmemids crash` can test, each instantiated with the checking
// backends of both durable modes.
#pragma once

#include <string_view>
#include <vector>

#include "backend/backend.h"
#include "crash/crash.h"

namespace pmemids {

struct CrashEntry {
  std::string_view name;
  CrashReport (*persist)(const CrashOptions&, const CrashWorkload&);
  CrashReport (*trans)(const CrashOptions&, const CrashWorkload&);

  CrashReport run(Mode m, const CrashOptions& o, const CrashWorkload& w) const {
    return m == Mode::kTrans ? trans(o, w) : persist(o, w);
  }
};

// Every indexing structure (blackhole has nothing to crash), then those added
// by add_crash_index.
const std::vector<CrashEntry>& crash_registry();
// Adds a structure built in from outside (register_index, PMEMIDS_EXTRA_DS);
// only during static initialisation.
void add_crash_index(CrashEntry e);
// UsageError naming the accepted names when not found.
const CrashEntry& find_crash_entry(std::string_view name);

}  // namespace pmemids
