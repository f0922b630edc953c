// The kinds of the concurrent thread mode's global lock, by name (run/locks.h
// places and constructs them; each backend of the list names its default,
// backend/backends.h).
#pragma once

#include <cstdint>
#include <string_view>

namespace pmemids {

enum class LockKind : uint8_t { kPthreadDram, kPthreadPmem, kPmemobj, kRwlockDram, kRwlockPmemobj };
inline constexpr LockKind kAllLockKinds[] = {LockKind::kPthreadDram, LockKind::kPthreadPmem,
                                             LockKind::kPmemobj, LockKind::kRwlockDram,
                                             LockKind::kRwlockPmemobj};

constexpr std::string_view lock_name(LockKind k) {
  switch (k) {
    case LockKind::kPthreadDram:
      return "pthread-dram";
    case LockKind::kPthreadPmem:
      return "pthread-pmem";
    case LockKind::kPmemobj:
      return "pmemobj";
    case LockKind::kRwlockDram:
      return "rwlock-dram";
    case LockKind::kRwlockPmemobj:
      return "rwlock-pmemobj";
  }
  return "?";
}

}  // namespace pmemids
