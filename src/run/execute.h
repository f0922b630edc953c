// The timed loop: walks a pre-generated operation range against one structure.
// Nothing here allocates, reads a clock or builds a string. Per operation it
// costs one switch and two increments of a caller-owned tally, plus the lock
// when the thread mode has one (NoLock compiles to nothing).
//
// "found" means: read/update/scan/read-modify-write/delete hit an existing key;
// insert found the key already present (and updated it).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <type_traits>

#include "run/locks.h"
#include "workload/stream.h"

namespace pmemids {

struct OpTally {
  std::array<uint64_t, kOpTypes> count{};
  std::array<uint64_t, kOpTypes> found{};

  uint64_t total() const {
    uint64_t n = 0;
    for (uint64_t c : count) n += c;
    return n;
  }
  OpTally& operator+=(const OpTally& o) {
    for (int t = 0; t < kOpTypes; ++t) {
      count[t] += o.count[t];
      found[t] += o.found[t];
    }
    return *this;
  }
};

// `buf` must hold maxscanlength * value_size bytes: a scan copies every value it
// visits, as a YCSB scan returns every record.
template <class DS>
[[gnu::always_inline]] inline bool apply(DS& ds, const Op& op, char* buf, uint32_t value_size) {
  switch (op.type) {
    case OpType::kRead:
      return ds.read(op.key, buf);
    case OpType::kUpdate:
      return ds.update(op.key, op.value);
    case OpType::kInsert:
      return !ds.insert(op.key, op.value);
    case OpType::kScan:
      if constexpr (DS::kCanScan) {
        char* dst = buf;
        return ds.scan(op.key, op.scan_len, [&](uint64_t, const char* v) {
          std::memcpy(dst, v, value_size);
          dst += value_size;
        }) > 0;
      }
      return false;
    case OpType::kReadModifyWrite:
      return ds.read(op.key, buf) && ds.update(op.key, op.value);
    case OpType::kDelete:
      return ds.remove(op.key);
  }
  return false;
}

// One operation under the run's lock: shared for reads and scans when the lock
// is a reader-writer lock, exclusive otherwise.
template <class DS, class Lock>
[[gnu::always_inline]] inline bool apply_locked(DS& ds, Lock& lock, const Op& op, char* buf,
                                                uint32_t value_size) {
  if constexpr (std::is_same_v<Lock, NoLock>) {
    return apply(ds, op, buf, value_size);
  } else {
    if constexpr (Lock::kShared) {
      if (op.type == OpType::kRead || op.type == OpType::kScan) {
        std::shared_lock guard(lock);
        return apply(ds, op, buf, value_size);
      }
    }
    std::unique_lock guard(lock);
    return apply(ds, op, buf, value_size);
  }
}

template <class DS, class Lock>
void execute(DS& ds, Lock& lock, const Op* begin, const Op* end, char* buf, uint32_t value_size,
             OpTally& tally) {
  for (const Op* op = begin; op != end; ++op) {
    const bool found = apply_locked(ds, lock, *op, buf, value_size);
    const auto t = static_cast<size_t>(op->type);
    ++tally.count[t];
    tally.found[t] += found;
  }
}

}  // namespace pmemids
