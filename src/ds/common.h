// The contract every structure follows. What every structure shares
// (construction options, the checked root header that makes a reopened pool
// refuse a mismatched workload, leak repair) is public: pmemids/structure.h,
// included here; the exception invariant checkers throw: pmemids/errors.h.
// Traits, operation-set contracts and per-thread handles: ds/traits.h.
//
// Key-value structure contract (operation sets kv and ordered-kv, checked by
// the Structure concept in ds/traits.h):
//   X(B& backend, const DsOptions&)  create the structure in a new backend, or
//                                    attach to and recover one in a reopened pool.
//   bool read(key, char* out)        copy value_size bytes out; false if absent.
//   bool update(key, const char* v)  replace the value; false if absent.
//   bool insert(key, const char* v)  add; an existing key is updated, returns false.
//   bool remove(key)                 false if absent.
//   uint64_t check() const           walk everything, verify invariants, return
//                                    the element count; throws InvariantViolation.
//   for_each(f)                      f(key, const char* value) for every element;
//                                    in ascending key order when ordered-kv.
//   uint32_t scan(start, n, visit)   (only ordered-kv) visit(key, const char*
//                                    value) for the first n elements with key >=
//                                    start, ascending; returns how many.
//   for_each_object(visit)           visit(const void* object) for every
//                                    persistent object reachable from the root
//                                    (nodes, value blocks, arrays; not the root
//                                    record); visit returns false for an object
//                                    already reported, and the walk then does
//                                    not follow its links again (cycles and
//                                    shared subtrees a crash can leave).
// On a reopened pool the constructor runs recover(): it checks the root, rebuilds
// DRAM-side state and, in pmem-persist, frees the objects a crash leaked
// (repair_leaks). pmem-trans needs no repair: libpmemobj rolls back an
// interrupted transaction, allocations included, when the pool is opened.
// Each operation is complete and durable (per the backend's guarantee) when it
// returns. Callers serialise access to kExternal structures (all key-value
// ones); kInternal ones synchronise themselves (ds/traits.h).
//
// In the structures' durability comments, "persists" means "written back and
// fenced" under ADR. Under eADR (backend/flusher.h) the write-backs are elided
// and the very same fences remain, so every ordering a comment states still
// holds and a crash can leave the same states; with caches persistent, a store
// is also durable before its fence unless the store buffer loses it. Value
// payloads are written with write_value / seal_value, which --flush-cold still
// writes back under eADR.
#pragma once

#include <cstdint>

#include "backend/backend.h"
#include "ds/traits.h"
#include "errors.h"
#include "pmemids/structure.h"
#include "workload/stream.h"

namespace pmemids {

// The first 64-byte boundary at or after p (objects allocated with a line of
// slack, so their contents start on a line whatever the allocator's alignment;
// pools are mapped page-aligned, so the result is the same after a reopen).
inline char* align_line(char* p) {
  return reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(p) + 63) & ~uintptr_t{63});
}

}  // namespace pmemids
