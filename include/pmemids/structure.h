// What every structure is built with and shares (ds/common.h has the
// structures' contract): the construction options, sizes, the checked root
// header that makes a reopened pool refuse a mismatched workload, and leak
// repair.
#pragma once

#include <algorithm>
#include <cstdint>

#include "pmemids/backend.h"
#include "pmemids/combining_options.h"
#include "pmemids/errors.h"
#include "pmemids/key_codec.h"
#include "pmemids/knob.h"

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
  // The values of knobs (pmemids/knob.h) that have no member above.
  KnobValues knobs;
};

inline double Knob::of(const DsOptions& o) const {
  return get != nullptr ? get(o) : o.knobs.find(name).value_or(def);
}
inline void Knob::assign(DsOptions& o, double v) const {
  if (set != nullptr) {
    set(o, v);
  } else {
    o.knobs.set(*this, v);
  }
}

// count * size, or UINT64_MAX when it overflows: sizes read from a pool that is
// not trusted yet, for checked pointers (B::follow) to refuse.
constexpr uint64_t bytes_of(uint64_t count, uint64_t size) {
  return size != 0 && count > UINT64_MAX / size ? UINT64_MAX : count * size;
}

// Values are stored in slots of at least 128 bytes, rounded up to cache lines.
constexpr uint32_t value_slot(uint32_t value_size) {
  return std::max<uint32_t>(128, (value_size + 63) / 64 * 64);
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

// Leak repair under a backend that RepairsLeaks (pmem-persist): frees every
// allocated object `ds` cannot reach from its root (an allocation a crash left
// unpublished, or unlinked but not freed); a no-op elsewhere. The structure
// must be attached, with its DRAM state rebuilt.
template <class B, class DS>
void repair_leaks(B& b, const DS& ds) {
  if constexpr (RepairsLeaks<B>) {
    b.free_unreachable([&](auto&& visit) { ds.for_each_object(visit); });
  }
}

}  // namespace pmemids
