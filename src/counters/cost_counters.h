// Per-thread persistence cost counters.
//
// Every backend bumps these on the calling thread with plain (non-atomic)
// increments of a thread_local block, so counting costs one add per event.
// The runner snapshots a thread's block before and after its timed phase;
// the difference is that phase's cost. Blocks are 64-byte aligned so two
// threads never share a cache line.
//
// Two sources of write-backs are counted apart: pmemids' own (the backends'
// flush layer, backend/flusher.h) and libpmemobj's (its calls into libpmem,
// interposed by pmem/libpmem_hooks.cc). A line written back with non-temporal
// stores counts as flushed; a line whose write-back the persistence domain made
// unnecessary (eADR) counts as elided instead.
#pragma once

#include <cstdint>

#include "pmemids/metric.h"

namespace pmemids {

struct alignas(64) CostCounters {
  uint64_t persists = 0;            // ranges pmemids made durable (write, store, seal, ...)
  uint64_t flushed_lines = 0;       // 64-byte lines pmemids wrote back (flush or non-temporal)
  uint64_t flushes_elided = 0;      // lines pmemids did not write back: the domain is eADR
  uint64_t fences = 0;              // store fences pmemids issued
  uint64_t tx = 0;                  // transactions begun (outermost only)
  uint64_t tx_bytes = 0;            // bytes passed to pmemobj_tx_add_range*
  uint64_t tx_add_range_calls = 0;  // calls to pmemobj_tx_add_range* (one range logged each)
  uint64_t tx_writes = 0;           // changes inside transactions (write, write_value, move,
                                    // store, tx_snapshot): what field-by-field logging would log
  uint64_t allocs = 0;              // objects allocated
  uint64_t frees = 0;               // objects freed
  uint64_t translations = 0;        // PMEMoid -> address translations (pmemobj_direct)
  uint64_t lib_flushed_lines = 0;   // lines libpmemobj wrote back through libpmem
  uint64_t lib_flushes_elided = 0;  // lines of libpmemobj's write-backs elided (eADR)
  uint64_t lib_fences = 0;          // fences libpmemobj issued through libpmem
  uint64_t injected_write_ns = 0;   // what-if write latency busy-waited at fences
  uint64_t injected_read_ns = 0;    // what-if read latency busy-waited per node visited
  // What the running structure counts about itself, slot by slot (its
  // kMetrics say what each slot is: pmemids/metric.h).
  uint64_t ds[kStructureCounts] = {};

  CostCounters& operator-=(const CostCounters& o);
  CostCounters& operator+=(const CostCounters& o);  // summing workers
};

inline thread_local CostCounters tl_costs;

constexpr uint64_t kCacheLine = 64;

// Number of cache lines touched by [addr, addr + len).
inline uint64_t lines_covered(const void* addr, uint64_t len) {
  if (len == 0) return 0;
  const auto a = reinterpret_cast<uintptr_t>(addr);
  return ((a + len - 1) / kCacheLine) - (a / kCacheLine) + 1;
}

}  // namespace pmemids
