// What a run needs, estimated before anything is allocated, and the refusal
// when this machine cannot give it.
//
// Memory: the operation streams (keys, operations, value payloads, sampled
// positions), the structures built in DRAM (dram, and pmem-volatile's jemalloc
// heap, which memkind backs with a file in the pool directory) and the scan
// buffers. Pool space: the pool files of pmem-persist and pmem-trans (their full
// size is allocated when they are created). Pools on a memory file system
// (tmpfs: emulated PMEM) count against memory too. Structure sizes are each
// structure's own estimate (DsEntry::structure_bytes), the pool size the one a
// run would create (default_pool_bytes, or --pool-size).
//
// check_footprint (util/capacity.h) refuses what this machine cannot give.
#pragma once

#include <cstdint>
#include <string>

#include "backend/backend.h"
#include "registry/registry.h"
#include "util/capacity.h"
#include "workload/properties.h"

namespace pmemids {

struct RunShape {
  uint64_t pool_size = 0;  // --pool-size, 0: derived
  KnobValues knobs;        // the structures' knobs (pmemids/knob.h); none: their defaults
  int instances = 1;       // structures (parallel: one per thread)
  int streams = 1;         // operation streams (parallel: one per thread)
  int workers = 1;         // scan buffers
  double latency_sample = 0;
  bool reopen = false;  // the pools exist already
};

Footprint run_footprint(const DsEntry& e, Mode m, const WorkloadSpec& spec, const RunShape& shape);

// `crash`: one stream, one structure and its pool, plus `jobs` crash images.
Footprint crash_footprint(const DsEntry& e, Mode m, const WorkloadSpec& spec, uint32_t jobs);

}  // namespace pmemids
