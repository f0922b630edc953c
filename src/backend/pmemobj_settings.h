// What libpmemobj runs with, for the records' context (defined in pool.cc,
// beside the pool creation that sets sds.at_create).
#pragma once

#include <nlohmann/json_fwd.hpp>

namespace pmemids {

// The libpmemobj settings that change what a transaction or an allocation
// costs, as this process runs with them (context.libpmemobj_ctl): the global
// ctl values read back (prefault.at_create, prefault.at_open, fallocate.at_create,
// copy_on_write.at_open), sds.at_create as pmemids sets it for every pool it
// creates, PMEMOBJ_CONF (null when unset: the per-pool values tx.cache.size,
// stats.enabled, tx.debug.* are then libpmemobj's defaults, as pmemids never
// sets them), and the transaction log buffers pmemids supplies
// (pmemobj_tx_log_append_buffer: none, libpmemobj extends its logs itself).
nlohmann::json libpmemobj_settings();

}  // namespace pmemids
