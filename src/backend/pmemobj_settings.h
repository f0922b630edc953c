// What libpmemobj runs with, for the records' context (defined in pool.cc,
// beside the pool creation that sets sds.at_create).
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>

namespace pmemids {

// The allocation classes the durable backends register (ObjBackendBase::
// alloc_flags, backend/obj.h) for objects up to kClassedBytesMax bytes: data
// 64-byte aligned, a unit of whole cache lines (header included), about
// kClassBlockBytes of units per run, libpmemobj's 16-byte compact header for
// typed objects and none for bare ones (kTypeBare, backend/backend.h). Larger
// objects come from libpmemobj's default classes.
inline constexpr size_t kClassedBytesMax = 4096;
inline constexpr size_t kClassAlignment = 64;
inline constexpr size_t kClassBlockBytes = 256 << 10;

// The libpmemobj settings that change what a transaction or an allocation
// costs, as this process runs with them (context.libpmemobj_ctl): the global
// ctl values read back (prefault.at_create, prefault.at_open, fallocate.at_create,
// copy_on_write.at_open), sds.at_create as pmemids sets it for every pool it
// creates, PMEMOBJ_CONF (null when unset: the per-pool values tx.cache.size,
// stats.enabled, tx.debug.* are then libpmemobj's defaults, as pmemids never
// sets them), and the transaction log buffers pmemids supplies
// (pmemobj_tx_log_append_buffer: none, libpmemobj extends its logs itself),
// and the allocation classes above (alloc_classes).
nlohmann::json libpmemobj_settings();

}  // namespace pmemids
