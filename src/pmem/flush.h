// The cache-line write-back instructions, non-temporal copies and the store
// fence that pmemids issues itself (the backends' flush layer and `pmemids
// micro`), and which of them this CPU has.
//
// Contract:
//   flush_range(i, p, n)  writes back every cache line from p/64 to (p+n-1)/64
//                         with instruction i (n == 0: none). clwb and clflushopt
//                         are weakly ordered: only a following store_fence()
//                         orders them before later stores. clflush is ordered
//                         by itself (the fence is still issued by callers, so
//                         a discipline's fence count does not depend on i).
//   store_fence()         sfence: every earlier store, flush and non-temporal
//                         store is globally visible (durable under ADR once
//                         flushed) before any later store.
//   full_fence()          mfence: as store_fence, and before any later load too
//                         (a load after flush + full_fence misses the cache).
//   nt_copy(d, s, n)      copies n bytes with non-temporal stores for the whole
//                         aligned 16-byte blocks inside [d, d+n), regular stores
//                         for a ragged head or tail, which it then writes back
//                         with `tail`. Copies forward: d may overlap s when d <= s.
//                         Needs a store_fence() to be ordered.
//   nt_fill(d, w, n, t)   stores the 8-byte pattern `w` over [d, d+n) (the byte
//                         at address a is byte a % 8 of w): non-temporal stores
//                         nt_fill_width() bytes wide for the aligned blocks
//                         inside the range, regular stores for a ragged head or
//                         tail, which it then writes back with `t`. Needs a
//                         store_fence() to be ordered.
// The instruction is a run-time choice made once per run; each call costs one
// predictable branch, against the hundreds of nanoseconds of a write-back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pmemids {

enum class FlushInsn : uint8_t { kClwb, kClflushopt, kClflush };

struct CpuFlushSupport {
  bool clwb = false;
  bool clflushopt = false;
  bool clflush = false;
  bool sse2 = false;  // movnti (non-temporal 8-byte stores)
  bool avx = false;   // 32-byte vmovntdq, with the OS saving the ymm registers

  // What this CPU reports through cpuid (read once).
  static const CpuFlushSupport& host();
  bool has(FlushInsn i) const;
  // The instructions this CPU has, comma-separated, for messages.
  std::string names() const;
};

std::string_view flush_insn_name(FlushInsn i);
// "clwb", "clflushopt" or "clflush"; nullopt for anything else.
std::optional<FlushInsn> parse_flush_insn(std::string_view s);

// The instruction libpmem would pick on this CPU under the current environment:
// clwb, else clflushopt, else clflush, skipping those PMEM_NO_CLWB=1 /
// PMEM_NO_CLFLUSHOPT=1 exclude.
FlushInsn libpmem_flush_insn();

inline void flush_line(FlushInsn i, const void* p) {
  auto* line = const_cast<char*>(static_cast<const char*>(p));
  switch (i) {
    case FlushInsn::kClwb:
      asm volatile("clwb %0" : "+m"(*line));
      return;
    case FlushInsn::kClflushopt:
      asm volatile("clflushopt %0" : "+m"(*line));
      return;
    case FlushInsn::kClflush:
      asm volatile("clflush %0" : "+m"(*line));
      return;
  }
}

inline constexpr uintptr_t kFlushLine = 64;

// Calls f(line) for the start of every cache line from p/64 to (p+n-1)/64.
template <class F>
inline void for_each_line(const void* p, size_t n, F&& f) {
  if (n == 0) return;
  const auto a = reinterpret_cast<uintptr_t>(p);
  for (uintptr_t l = a & ~(kFlushLine - 1); l < a + n; l += kFlushLine) {
    f(reinterpret_cast<const void*>(l));
  }
}

inline void flush_range(FlushInsn i, const void* p, size_t n) {
  for_each_line(p, n, [i](const void* line) { flush_line(i, line); });
}

inline void store_fence() { asm volatile("sfence" ::: "memory"); }
inline void full_fence() { asm volatile("mfence" ::: "memory"); }

void nt_copy(void* dst, const void* src, size_t n, FlushInsn tail);

void nt_fill(void* dst, uint64_t word, size_t n, FlushInsn tail);
// 32 with AVX (libpmem's default movnt width on such CPUs), else 16.
size_t nt_fill_width();

}  // namespace pmemids
