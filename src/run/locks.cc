#include "run/locks.h"

#include <fmt/format.h>

namespace pmemids {

LockKind find_lock(std::string_view name, Mode m) {
  std::string fitting, all;
  for (LockKind k : kAllLockKinds) {
    all += (all.empty() ? "" : ", ") + std::string(lock_name(k));
    if (lock_fits(k, m)) fitting += (fitting.empty() ? "" : ", ") + std::string(lock_name(k));
  }
  for (LockKind k : kAllLockKinds) {
    if (lock_name(k) != name) continue;
    if (!lock_fits(k, m)) {
      throw UsageError(fmt::format("--lock {} does not fit mode {}; locks that do: {}", name,
                                   mode_name(m), fitting));
    }
    return k;
  }
  throw UsageError(fmt::format("unknown lock '{}'; choose from: {}", name, all));
}

}  // namespace pmemids
