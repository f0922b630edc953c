// register_index (include/pmemids/index.h): what PMEMIDS_REGISTER_INDEX does.
// Included first by the source CMake generates for PMEMIDS_EXTRA_DS, before
// the structures' headers; each registration runs during static
// initialisation, before main, and adds one entry to the run registry and
// one to the crash registry (a name that is already taken is refused when the
// registries are first read).
#pragma once

#include <string_view>

#include "crash/crash_entry.h"
#include "pmemids/index.h"
#include "run/entry.h"

namespace pmemids {

template <template <class> class DS>
bool register_index(std::string_view description) {
  add_index(make_entry<DS>(description));
  add_crash_index(make_crash_entry<DS>());
  return true;
}

}  // namespace pmemids
