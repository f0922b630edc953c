// The measured work of the memory benches, written once against a memory
// policy `Mem`, so the same code runs on the hardware (HwMem) and, in tests, on
// a counting memory that checks what was stored, flushed and fenced.
//
// Mem provides:
//   store(p, n, w)          regular stores of the pattern w over [p, p+n) (the
//                           byte at address a is byte a % 8 of w)
//   nt_store(p, n, w)       the same with non-temporal stores
//   flush(p, n)             write back every line of [p, p+n) with the run's
//                           instruction; nothing when the domain needs no flush
//   flush_with(i, p, n)     write back with instruction i, whatever the domain
//   fence()                 store fence
//   load(p, n)              read [p, p+n) (whole 8-byte words), return their sum
//
// Contracts the tests check:
//   dirty_chunk(kFull)       stores every byte of the chunk; kFirstWord stores
//                            its first 8 bytes only (pmembench's behaviour)
//   persist_chunk            dirties, then writes back exactly the chunk's lines
//                            (persist, flush) and fences (persist, drain)
//   store_chunk              stores the whole chunk, then writes back exactly its
//                            lines with the access' instruction (none for store,
//                            ntstore)
//   bandwidth_io             load: loads only; store: stores + fence; pstore:
//                            stores, write-back of the IO's lines, fence; ntstore:
//                            non-temporal stores + fence
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "pmem/flush.h"

namespace pmemids::micro {

enum class Dirty : uint8_t { kFull, kFirstWord };
enum class PersistOp : uint8_t { kPersist, kFlush, kDrain };
enum class StoreAccess : uint8_t { kStore, kClwb, kClflushopt, kClflush, kNtStore };
enum class IoAccess : uint8_t { kLoad, kStore, kPStore, kNtStore };

inline constexpr size_t kLine = 64;

// Cache lines [p, p+n) touches.
inline uint64_t lines_of(uintptr_t p, uint64_t n) {
  return n == 0 ? 0 : (p + n - 1) / kLine - p / kLine + 1;
}

// The instructions themselves.
struct HwMem {
  FlushInsn insn = FlushInsn::kClwb;
  bool flushes = true;  // false under eADR: write-backs are skipped, fences kept

  static void store(char* p, size_t n, uint64_t w) {
    const auto a = reinterpret_cast<uintptr_t>(p);
    size_t i = 0;
    for (; i < n && ((a + i) & 7) != 0; ++i) p[i] = static_cast<char>(w >> (8 * ((a + i) & 7)));
    for (; i + 8 <= n; i += 8) std::memcpy(p + i, &w, 8);
    for (; i < n; ++i) p[i] = static_cast<char>(w >> (8 * ((a + i) & 7)));
  }
  void nt_store(char* p, size_t n, uint64_t w) const { nt_fill(p, w, n, insn); }
  void flush(const char* p, size_t n) const {
    if (flushes) flush_range(insn, p, n);
  }
  static void flush_with(FlushInsn i, const char* p, size_t n) { flush_range(i, p, n); }
  static void fence() { store_fence(); }
  static uint64_t load(const char* p, size_t n) {
    uint64_t sum = 0;
    for (size_t i = 0; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      sum += w;
    }
    return sum;
  }
};

template <class Mem>
void dirty_chunk(Mem& m, char* p, size_t n, Dirty d, uint64_t w) {
  m.store(p, d == Dirty::kFull ? n : std::min<size_t>(n, 8), w);
}

template <PersistOp Op, class Mem>
void persist_chunk(Mem& m, char* p, size_t n, Dirty d, uint64_t w) {
  dirty_chunk(m, p, n, d, w);
  if constexpr (Op != PersistOp::kDrain) m.flush(p, n);
  if constexpr (Op != PersistOp::kFlush) m.fence();
}

constexpr FlushInsn store_access_insn(StoreAccess a) {
  return a == StoreAccess::kClflushopt ? FlushInsn::kClflushopt
         : a == StoreAccess::kClflush  ? FlushInsn::kClflush
                                       : FlushInsn::kClwb;
}

template <StoreAccess A, class Mem>
void store_chunk(Mem& m, char* p, size_t n, uint64_t w) {
  if constexpr (A == StoreAccess::kNtStore) {
    m.nt_store(p, n, w);
  } else {
    m.store(p, n, w);
    if constexpr (A != StoreAccess::kStore) m.flush_with(store_access_insn(A), p, n);
  }
}

// Returns what a load read (0 for the store accesses), for the caller to consume.
template <IoAccess A, class Mem>
uint64_t bandwidth_io(Mem& m, char* p, size_t n, uint64_t w) {
  if constexpr (A == IoAccess::kLoad) {
    return m.load(p, n);
  } else {
    if constexpr (A == IoAccess::kNtStore) {
      m.nt_store(p, n, w);
    } else {
      m.store(p, n, w);
      if constexpr (A == IoAccess::kPStore) m.flush(p, n);
    }
    m.fence();
    return 0;
  }
}

}  // namespace pmemids::micro
