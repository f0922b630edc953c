// The timed loop: walks a pre-generated operation range against one structure
// (or one worker's handle of it). Nothing here allocates, reads a clock or
// builds a string. Per operation it costs one switch and two increments of a
// caller-owned tally, plus the lock when the thread mode has one (NoLock
// compiles to nothing). The operation set is a template parameter: the switch
// only has the set's own cases.
//
// "found": see workload/op_set.h.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <type_traits>

#include "ds/traits.h"
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

// One operation of operation set S on `t` (a structure or its per-thread
// handle, ds/traits.h): one switch, one call. `buf` must hold maxscanlength *
// value_size bytes: a scan copies every value it visits, as a YCSB scan
// returns every record; a queue pop copies its payload there.
template <OpSet S, class T>
[[gnu::always_inline]] inline bool apply(T& t, const Op& op, char* buf, uint32_t value_size) {
  if constexpr (S == OpSet::kKv || S == OpSet::kOrderedKv) {
    switch (op.type) {
      case OpType::kRead:
        return t.read(op.key, buf);
      case OpType::kUpdate:
        return t.update(op.key, op.value);
      case OpType::kInsert:
        return !t.insert(op.key, op.value);
      case OpType::kScan:
        if constexpr (S == OpSet::kOrderedKv) {
          char* dst = buf;
          return t.scan(op.key, op.scan_len, [&](uint64_t, const char* v) {
            std::memcpy(dst, v, value_size);
            dst += value_size;
          }) > 0;
        }
        return false;
      case OpType::kReadModifyWrite:
        return t.read(op.key, buf) && t.update(op.key, op.value);
      case OpType::kDelete:
        return t.remove(op.key);
      default:
        return false;
    }
  } else if constexpr (S == OpSet::kSet) {
    switch (op.type) {
      case OpType::kContains:
        return t.contains(op.key);
      case OpType::kInsert:
        return !t.insert(op.key);
      case OpType::kDelete:
        return t.remove(op.key);
      default:
        return false;
    }
  } else {
    uint64_t id;
    if (op.type == OpType::kPush) {
      if constexpr (S == OpSet::kQueue) {
        return t.push(op.key, op.value);
      } else {
        return t.push(op.key);
      }
    }
    if constexpr (S == OpSet::kQueue) {
      return t.pop(id, buf);
    } else {
      return t.pop(id);
    }
  }
}

// One operation under the run's lock: shared for reads, scans and contains
// when the lock is a reader-writer lock, exclusive otherwise.
template <OpSet S, class T, class Lock>
[[gnu::always_inline]] inline bool apply_locked(T& t, Lock& lock, const Op& op, char* buf,
                                                uint32_t value_size) {
  if constexpr (std::is_same_v<Lock, NoLock>) {
    return apply<S>(t, op, buf, value_size);
  } else {
    if constexpr (Lock::kShared) {
      if (op.type == OpType::kRead || op.type == OpType::kScan || op.type == OpType::kContains) {
        std::shared_lock guard(lock);
        return apply<S>(t, op, buf, value_size);
      }
    }
    std::unique_lock guard(lock);
    return apply<S>(t, op, buf, value_size);
  }
}

template <OpSet S, class T, class Lock>
void execute(T& t, Lock& lock, const Op* begin, const Op* end, char* buf, uint32_t value_size,
             OpTally& tally) {
  for (const Op* op = begin; op != end; ++op) {
    const auto k = static_cast<size_t>(op->type);  // read once: the operation may write memory
    const bool found = apply_locked<S>(t, lock, *op, buf, value_size);
    ++tally.count[k];
    tally.found[k] += found;
  }
}

}  // namespace pmemids
