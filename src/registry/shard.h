// The registry's shards. The entry of the descriptor list's I-th structure
// (ds/catalog.h), with its run and crash functions, is instantiated in a unit
// of its own: CMakeLists.txt generates one per structure of the list
// (registry_shard_<I>_<Name>.cc, which instantiates registry/shard_entry.h),
// so the registry's build spreads over the cores and one structure's
// instantiations cannot change how the compiler inlines another's timed loop
// (instructions per operation, scripts/callgrind-ops.sh). registry.cc calls
// them in the list's order.
#pragma once

#include <cstddef>

#include "registry/registry.h"

namespace pmemids {

template <size_t I>
DsEntry catalog_entry();

}  // namespace pmemids
