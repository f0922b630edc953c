// The registry entry of structure template DS: its traits (ds/traits.h) and,
// per mode of the backend list it supports, the fully templated run and size
// functions (null elsewhere: nothing is instantiated there); `crash` is its
// row of crash functions (registry/crash_entry.h). Used for the descriptor
// list (registry/shard_entry.h) and by register_index for structures built in
// with PMEMIDS_EXTRA_DS (registry/extra_index.h).
#pragma once

#include <type_traits>

#include "registry/registry.h"
#include "run/reopen_check.h"

namespace pmemids {

template <template <class> class DS>
DsEntry make_entry(const CrashRow& crash) {
  using D = DS<DramBackend>;
  DsEntry e{
      .name = D::kName,
      .description = D::kDescription,
      .op_set = D::kOpSet,
      .sync = D::kSync,
      .modes = D::kModes,
      .domains = D::kDomains,
      .harness = D::kHarness,
      .torn_modes = torn_modes<D>(),
      .torn_value_modes = torn_value_modes<D>(),
      .knobs = knobs_of<D>(),
      .metrics = metrics_of<D>(),
      .per_mode = {},
  };
  for_each_backend([&](const auto& entry) {
    using B = typename std::remove_cvref_t<decltype(entry)>::type;
    if constexpr (D::kModes.has(B::kMode)) {
      static_assert(Structure<DS<B>>);
      e.per_mode[static_cast<size_t>(B::kMode)] = ModeFns{
          .element_bytes = &DS<B>::element_bytes,
          .structure_bytes = &DS<B>::pool_bytes,
          .run = &run_rep_checked<DS, B>,
          .crash = crash[static_cast<size_t>(B::kMode)],
      };
    }
  });
  return e;
}

}  // namespace pmemids
