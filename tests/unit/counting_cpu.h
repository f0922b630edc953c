// A CPU for the flush layer (backend/flusher.h) that records instead of
// executing: every line written back with its instruction, every fence, every
// non-temporal copy (which it performs with memmove). Backends over it behave
// as the benchmarked ones, so tests can see exactly what they issue.
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "backend/obj.h"

namespace pmemids::test {

struct FlushLog {
  std::vector<std::pair<FlushInsn, uintptr_t>> lines;  // (instruction, line address)
  uint64_t fences = 0;
  std::vector<std::pair<uintptr_t, size_t>> nt_copies;  // (destination, bytes)
};

struct CountingCpu {
  using Log = FlushLog;
  static inline thread_local FlushLog log;

  static void flush_line(FlushInsn i, const void* line) {
    log.lines.emplace_back(i, reinterpret_cast<uintptr_t>(line));
  }
  static void fence() { ++log.fences; }
  static void nt_copy(void* d, const void* s, size_t n, FlushInsn) {
    std::memmove(d, s, n);
    log.nt_copies.emplace_back(reinterpret_cast<uintptr_t>(d), n);
  }
};

using CountingPersistBackend = PersistBackendT<NoShadow, CountingCpu>;
using CountingTransBackend = TransBackendT<NoShadow, CountingCpu>;

// The counting backend of the same mode as B (a benchmarked durable backend).
template <class B>
struct CountingOf;
template <>
struct CountingOf<PersistBackend> {
  using type = CountingPersistBackend;
};
template <>
struct CountingOf<TransBackend> {
  using type = CountingTransBackend;
};

}  // namespace pmemids::test
