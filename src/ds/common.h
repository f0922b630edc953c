// What every structure shares: construction options, the checked root header
// that makes a reopened pool refuse a mismatched workload, and the exception
// invariant checkers throw. Traits, operation-set contracts and per-thread
// handles: ds/traits.h.
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
// (repair_leaks below). pmem-trans needs no repair: libpmemobj rolls back an
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

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "backend/backend.h"
#include "ds/combining_options.h"
#include "ds/traits.h"
#include "errors.h"
#include "workload/stream.h"

namespace pmemids {

struct DsOptions {
  uint64_t capacity = 0;      // record ids the structure must address (arraylist)
  uint64_t expected = 0;      // expected element count (hashtable bucket count)
  uint32_t value_size = 100;  // bytes per value (YCSB fieldlength)
  double load_factor = 0.75;  // hashtable elements per bucket
  KeyCodec codec;
  uint64_t seed = 1;         // structure-internal randomness (skiplist levels)
  uint32_t max_height = 16;  // skiplist maximum level count
  uint32_t node_keys = 0;    // B-tree / B+-tree keys per node; 0 = the structure's default
  uint32_t threads = 1;      // kInternal: threads that may call at once (handles 0..threads-1)
  uint64_t keyrange = 0;     // set: keys are in [1, keyrange]
  uint64_t queueslots = 0;   // queue: ring slots
  uint32_t slotsize = 0;     // queue: bytes per slot (payloads are value_size <= slotsize)
  // Combining stacks (ds/combining.h).
  CombiningOptions combining;
};

// count * size, or UINT64_MAX when it overflows: sizes read from a pool that is
// not trusted yet, for checked pointers (B::follow) to refuse.
constexpr uint64_t bytes_of(uint64_t count, uint64_t size) {
  return size != 0 && count > UINT64_MAX / size ? UINT64_MAX : count * size;
}

// Values are stored in slots of at least 128 bytes, rounded up to cache lines.
constexpr uint32_t value_slot(uint32_t value_size) {
  return std::max<uint32_t>(128, (value_size + 63) / 64 * 64);
}

// The first 64-byte boundary at or after p (objects allocated with a line of
// slack, so their contents start on a line whatever the allocator's alignment;
// pools are mapped page-aligned, so the result is the same after a reopen).
inline char* align_line(char* p) {
  return reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(p) + 63) & ~uintptr_t{63});
}

// First words of every structure's root record. `magic` is written last when a
// structure is created, so a root with magic 0 was never completely initialised.
struct RootHeader {
  uint64_t magic;
  uint64_t value_size;
  uint64_t shape;  // structure-specific size parameter (capacity, bucket count)
  uint64_t key_order;

  static constexpr uint64_t kMagic = 0x706d656d69647331ULL;  // "pmemids1"

  static RootHeader make(const DsOptions& o, uint64_t shape) {
    return {kMagic, o.value_size, shape, static_cast<uint64_t>(o.codec.order)};
  }
  // Throws UsageError when a reopened pool does not match the workload, and
  // InvariantViolation when it holds what no workload can give (a corrupt root).
  void check_reopen(const DsOptions& o, const char* ds) const {
    if (magic != kMagic) {
      throw RuntimeError(
          fmt::format("{}: pool root was never initialised (creation crashed?)", ds));
    }
    if (value_size < 1 || value_size > (1 << 20) || key_order > 1) {
      throw InvariantViolation(fmt::format(
          "{}: the pool root holds value size {} and key order {}, which no workload gives", ds,
          value_size, key_order));
    }
    if (value_size != o.value_size) {
      throw UsageError(fmt::format("{}: pool holds {}-byte values but fieldlength is {}", ds,
                                   value_size, o.value_size));
    }
    if (key_order != static_cast<uint64_t>(o.codec.order)) {
      throw UsageError(fmt::format("{}: pool was loaded with insertorder={}, workload says {}", ds,
                                   insert_order_name(static_cast<InsertOrder>(key_order)),
                                   insert_order_name(o.codec.order)));
    }
  }
};

// Leak repair for pmem-persist: frees every allocated object `ds` cannot reach
// from its root (an allocation a crash left unpublished, or unlinked but not
// freed). The structure must be attached, with its DRAM state rebuilt.
template <class B, class DS>
void repair_leaks(B& b, const DS& ds) {
  if constexpr (B::kMode == Mode::kPersist) {
    b.free_unreachable([&](auto&& visit) { ds.for_each_object(visit); });
  }
}

}  // namespace pmemids
