#include "run/footprint.h"

#include <fmt/format.h>
#include <libpmemobj.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <string>

#include "backend/pool.h"
#include "ds/common.h"
#include "errors.h"
#include "workload/stream.h"

namespace pmemids {
namespace {

constexpr long kTmpfsMagic = 0x01021994;
constexpr uint64_t kValuePayloads = 1024;  // ValuePool's distinct values per stream

// Sums and products in long double, saturated at UINT64_MAX: estimates of
// absurd inputs must not wrap around to something small.
uint64_t sat(long double v) {
  return v >= 18446744073709551615.0L ? UINT64_MAX : static_cast<uint64_t>(std::max(v, 0.0L));
}

// Record ids a run inserts: the load, plus the expected inserts of the stream.
uint64_t records_max(const WorkloadSpec& spec) {
  return sat(static_cast<long double>(spec.recordcount) +
             std::ceil(static_cast<long double>(spec.operationcount) * spec.insertproportion));
}

long double stream_bytes(const WorkloadSpec& spec, double latency_sample) {
  return static_cast<long double>(spec.recordcount) * sizeof(uint64_t) +
         static_cast<long double>(spec.operationcount) * (sizeof(Op) + 8.0L * latency_sample) +
         static_cast<long double>(kValuePayloads) * spec.fieldlength;
}

DsOptions options(const WorkloadSpec& spec, double load_factor, uint32_t node_keys,
                  uint32_t max_height) {
  return DsOptions{.capacity = records_max(spec),
                   .expected = spec.recordcount,
                   .value_size = spec.fieldlength,
                   .load_factor = load_factor,
                   .seed = spec.seed,
                   .max_height = max_height,
                   .node_keys = node_keys};
}

std::string inputs_of(const WorkloadSpec& spec) {
  std::string s = fmt::format("recordcount={}, operationcount={}, fieldlength={}", spec.recordcount,
                              spec.operationcount, spec.fieldlength);
  if (spec.insertproportion > 0) s += fmt::format(", insertproportion={}", spec.insertproportion);
  return s;
}

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

Footprint run_footprint(const DsEntry& e, Mode m, const WorkloadSpec& spec, const RunShape& shape) {
  Footprint f;
  f.subject = fmt::format("{} in {}", e.name, mode_name(m));
  f.inputs = inputs_of(spec);
  const DsOptions o = options(spec, shape.load_factor, shape.node_keys, shape.max_height);
  const long double one = static_cast<long double>(e.structure_bytes[static_cast<int>(m)](o));
  const long double structures = one * shape.instances;
  const long double streams = stream_bytes(spec, shape.latency_sample) * shape.streams;
  const long double scan_bufs = static_cast<long double>(spec.fieldlength) *
                                (spec.scanproportion > 0 ? spec.maxscanlength : 1) * shape.workers;
  long double memory = streams + scan_bufs;
  f.breakdown = fmt::format("streams {}", format_bytes(sat(streams)));
  if (m == Mode::kDram || m == Mode::kVolatile) {
    memory += structures;
    f.breakdown += fmt::format(", structure {}", format_bytes(sat(structures)));
    if (shape.instances > 1) f.breakdown += fmt::format(" ({} instances)", shape.instances);
  } else if (!shape.reopen) {
    const uint64_t pool = shape.pool_size != 0 ? shape.pool_size : default_pool_bytes(sat(one));
    f.pool_files =
        sat(static_cast<long double>(std::max<uint64_t>(pool, PMEMOBJ_MIN_POOL)) * shape.instances);
    f.breakdown += fmt::format(", pool files {}", format_bytes(f.pool_files));
  }
  f.memory = sat(memory);
  return f;
}

Footprint crash_footprint(const DsEntry& e, Mode m, const WorkloadSpec& spec, uint32_t jobs) {
  Footprint f;
  f.subject = fmt::format("crash of {} in {}", e.name, mode_name(m));
  f.inputs = inputs_of(spec);
  const DsOptions o = options(spec, 0.75, 0, 16);
  const long double pool =
      2.0L * static_cast<long double>(e.structure_bytes[static_cast<int>(m)](o)) + (8 << 20);
  f.pool_files = sat(pool * (1 + jobs));
  // The stream, and the checker's model of acknowledged values (a key and a
  // pointer per record, in a std::map).
  f.memory = sat(stream_bytes(spec, 0) + 64.0L * records_max(spec));
  f.breakdown = fmt::format("stream and model {}, pool and {} crash image(s) {}",
                            format_bytes(f.memory), jobs, format_bytes(f.pool_files));
  return f;
}

void check_footprint(const Footprint& f, const std::string& pool_dir) {
  struct statfs sf {};
  const bool tmpfs = statfs(pool_dir.c_str(), &sf) == 0 && sf.f_type == kTmpfsMagic;
  std::string source;
  const uint64_t avail = available_memory(source);
  const uint64_t memory = sat(static_cast<long double>(f.memory) + (tmpfs ? f.pool_files : 0));
  if (memory > avail) {
    throw UsageError(
        fmt::format("{} needs about {} of memory ({}{}) but {} are available ({}); lower {}",
                    f.subject, format_bytes(memory), f.breakdown,
                    tmpfs && f.pool_files > 0 ? "; pools on tmpfs are memory" : "",
                    format_bytes(avail), source, f.inputs));
  }
  struct statvfs vf {};
  if (f.pool_files > 0 && statvfs(pool_dir.c_str(), &vf) == 0) {
    const uint64_t free_bytes = sat(static_cast<long double>(vf.f_bavail) * vf.f_frsize);
    if (f.pool_files > free_bytes) {
      throw UsageError(fmt::format(
          "{} needs {} of pool files ({}) but the pool directory '{}' has {} free; lower {} "
          "or --pool-size, or choose another --pool-dir",
          f.subject, format_bytes(f.pool_files), f.breakdown, pool_dir, format_bytes(free_bytes),
          f.inputs));
    }
  }
}

}  // namespace pmemids
