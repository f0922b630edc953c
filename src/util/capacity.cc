#include "util/capacity.h"

#include <fmt/format.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <fstream>

#include "errors.h"

namespace pmemids {
namespace {

constexpr long kTmpfsMagic = 0x01021994;

// MemAvailable, lowered to what the cgroup (v2) still allows when it sets a limit.
uint64_t available_memory(std::string& source) {
  uint64_t avail = UINT64_MAX;
  source = "MemAvailable";
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  std::string unit;
  while (in >> key >> kb) {
    std::getline(in, unit);
    if (key == "MemAvailable:") {
      avail = kb * 1024;
      break;
    }
  }
  uint64_t max = 0, current = 0;
  std::ifstream lim("/sys/fs/cgroup/memory.max"), cur("/sys/fs/cgroup/memory.current");
  if ((lim >> max) && (cur >> current) && max > current && max - current < avail) {
    avail = max - current;
    source = "the cgroup's memory.max";
  }
  return avail;
}

}  // namespace

uint64_t saturated(long double bytes) {
  return bytes >= 18446744073709551615.0L ? UINT64_MAX
                                          : static_cast<uint64_t>(std::max(bytes, 0.0L));
}

std::string format_bytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  auto v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 6) {
    v /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", v, units[u]);
}

void check_footprint(const Footprint& f, const std::string& pool_dir) {
  struct statfs sf {};
  const bool tmpfs = statfs(pool_dir.c_str(), &sf) == 0 && sf.f_type == kTmpfsMagic;
  std::string source;
  const uint64_t avail = available_memory(source);
  const uint64_t memory =
      saturated(static_cast<long double>(f.memory) + (tmpfs ? f.pool_files : 0));
  if (memory > avail) {
    throw UsageError(
        fmt::format("{} needs about {} of memory ({}{}) but {} are available ({}); lower {}",
                    f.subject, format_bytes(memory), f.breakdown,
                    tmpfs && f.pool_files > 0 ? "; pools on tmpfs are memory" : "",
                    format_bytes(avail), source, f.inputs));
  }
  struct statvfs vf {};
  if (f.pool_files > 0 && statvfs(pool_dir.c_str(), &vf) == 0) {
    const uint64_t free_bytes = saturated(static_cast<long double>(vf.f_bavail) * vf.f_frsize);
    if (f.pool_files > free_bytes) {
      throw UsageError(fmt::format(
          "{} needs {} of pool files ({}) but the pool directory '{}' has {} free; lower {}, "
          "or choose another --pool-dir",
          f.subject, format_bytes(f.pool_files), f.breakdown, pool_dir, format_bytes(free_bytes),
          f.inputs));
    }
  }
}

}  // namespace pmemids
