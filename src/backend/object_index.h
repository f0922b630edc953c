// The allocated objects of a libpmemobj pool, listed once, to validate the
// pointers a structure follows while a pool is checked before it is trusted
// (run --reopen: backend/pool_check.h).
//
// The listing walks libpmemobj's object list (pmemobj_first / pmemobj_next),
// bounded by the number of objects the pool could hold: a heap whose list
// does not end is reported, not followed forever. It runs in the checking
// child process only (libpmemobj's own code can fault on a corrupt heap); the
// checked pointer rule (ObjBackendBase::follow) then accepts a link only to the
// start of an allocated object of the expected type number and at least the
// expected size.
#pragma once

#include <fmt/format.h>
#include <libpmemobj.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "errors.h"

namespace pmemids {

class ObjectIndex {
 public:
  struct Object {
    uint64_t off;
    uint64_t size;  // usable bytes
    uint64_t type;  // pmemobj type number
  };

  // InvariantViolation when the list is longer than `pool_bytes` allows or an
  // object lies outside the pool.
  ObjectIndex(PMEMobjpool* pop, uint64_t pool_bytes) {
    const uint64_t most = pool_bytes / kMinObjectBytes;
    for (PMEMoid o = pmemobj_first(pop); !OID_IS_NULL(o); o = pmemobj_next(o)) {
      if (objects_.size() > most) {
        throw InvariantViolation("the heap's object list does not end (a loop in the heap)");
      }
      const uint64_t size = pmemobj_alloc_usable_size(o);
      if (o.off > pool_bytes || size > pool_bytes - o.off) {
        throw InvariantViolation(fmt::format(
            "the heap lists an object of {} bytes at offset {:#x}, outside the pool", size, o.off));
      }
      objects_.push_back({o.off, size, pmemobj_type_num(o)});
    }
    std::sort(objects_.begin(), objects_.end(),
              [](const Object& a, const Object& b) { return a.off < b.off; });
  }

  // The object that starts at `off`, or nullptr.
  const Object* find(uint64_t off) const {
    const auto it = std::lower_bound(objects_.begin(), objects_.end(), off,
                                     [](const Object& o, uint64_t v) { return o.off < v; });
    return it != objects_.end() && it->off == off ? &*it : nullptr;
  }
  size_t size() const { return objects_.size(); }

 private:
  static constexpr uint64_t kMinObjectBytes = 64;  // no allocation unit is smaller
  std::vector<Object> objects_;
};

}  // namespace pmemids
