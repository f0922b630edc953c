// The registry entry of structure template DS: its traits and, per mode, the
// fully templated run function. Used by the built-in registry and by
// register_index for structures built in with PMEMIDS_EXTRA_DS; every
// instantiation is checked against the IndexOn concept (include/pmemids/index.h).
#pragma once

#include <string_view>

#include "backend/obj.h"
#include "backend/plain.h"
#include "pmemids/index.h"
#include "run/registry.h"
#include "run/reopen_check.h"

namespace pmemids {

template <template <class> class DS>
DsEntry make_entry(std::string_view description) {
  static_assert(IndexOn<DS<DramBackend>, DramBackend>);
  static_assert(IndexOn<DS<VolatileBackend>, VolatileBackend>);
  static_assert(IndexOn<DS<PersistBackend>, PersistBackend>);
  static_assert(IndexOn<DS<TransBackend>, TransBackend>);
  return DsEntry{
      .name = DS<DramBackend>::kName,
      .description = description,
      .can_scan = DS<DramBackend>::kCanScan,
      .element_bytes = {&DS<DramBackend>::element_bytes, &DS<VolatileBackend>::element_bytes,
                        &DS<PersistBackend>::element_bytes, &DS<TransBackend>::element_bytes},
      .structure_bytes = {&DS<DramBackend>::pool_bytes, &DS<VolatileBackend>::pool_bytes,
                          &DS<PersistBackend>::pool_bytes, &DS<TransBackend>::pool_bytes},
      .run = {&run_rep_checked<DS, DramBackend>, &run_rep_checked<DS, VolatileBackend>,
              &run_rep_checked<DS, PersistBackend>, &run_rep_checked<DS, TransBackend>},
  };
}

}  // namespace pmemids
