// The durable backends' flush layer: pmemids' own write-backs and fences,
// issued with the installed policy's instruction and persistence domain, and
// counted exactly on the calling thread (counters/cost_counters.h).
//
//   flush(p, n, cold)  one range made durable (a "persist"): writes back every
//                      line from p/64 to (p+n-1)/64. Under eADR nothing is
//                      written back and the lines count as elided, except a
//                      cold value payload with --flush-cold on. Returns whether
//                      it wrote back. Not ordered until the next drain().
//   nt_copy(d, s, n)   one range made durable by copying it with non-temporal
//                      stores (its lines count as flushed). Use it when
//                      use_nt(n, cold): ADR (or a cold payload written back
//                      under eADR), n at least the movnt threshold. Copies
//                      forward: d must not lie inside (s, s + n).
//   drain()            store fence: every earlier store, write-back and
//                      non-temporal store is ordered before every later store.
//                      The what-if write latency is paid here, per line
//                      written back since the thread's previous fence.
// The policy is copied once at construction; each call then costs a branch on
// the domain, one on the instruction per line and a few counter increments.
// `Cpu` executes the instructions: HostCpu issues them; tests substitute a
// recorder. `Watch` observes them (the crash checker's power model,
// backend/shadow.h; when Watch::kActive): watch->flushed(line, 1) after each
// line written back, watch->flushed(d, n) after a non-temporal copy,
// watch->fenced() after each fence. It is told of the instructions issued,
// never of what a caller meant to write back, and changes none of them; an
// elided write-back (eADR) is not reported.
#pragma once

#include <cstddef>
#include <cstdint>

#include "counters/cost_counters.h"
#include "pmem/flush.h"
#include "pmem/latency.h"
#include "pmem/policy.h"

namespace pmemids {

struct HostCpu {
  static void flush_line(FlushInsn i, const void* line) { pmemids::flush_line(i, line); }
  static void fence() { store_fence(); }
  static void nt_copy(void* d, const void* s, size_t n, FlushInsn tail) {
    pmemids::nt_copy(d, s, n, tail);
  }
};

// Nesting depth of the calling thread's open batches (Backend::batch): inside
// one, changes are written back but not fenced until the outermost ends.
inline thread_local uint32_t tl_batch_depth = 0;

template <class Cpu, class Watch>
class Flusher {
 public:
  Flusher(const PersistencePolicy& p, Watch* watch)
      : watch_(watch),
        insn_(p.insn),
        writes_back_(p.domain.flushes()),
        cold_writes_back_(p.domain.flushes() || p.flush_cold),
        nt_threshold_(p.movnt_threshold) {}

  bool writes_back(bool cold) const { return cold ? cold_writes_back_ : writes_back_; }
  bool use_nt(size_t n, bool cold) const { return n >= nt_threshold_ && writes_back(cold); }

  bool flush(const void* p, size_t n, bool cold) const {
    ++tl_costs.persists;
    const uint64_t lines = lines_covered(p, n);
    if (!writes_back(cold)) {
      tl_costs.flushes_elided += lines;
      return false;
    }
    tl_costs.flushed_lines += lines;
    const FlushInsn insn = insn_;
    Watch* const w = watch_;
    for_each_line(p, n, [insn, w](const void* line) {
      Cpu::flush_line(insn, line);
      if constexpr (Watch::kActive) w->flushed(line, 1);
    });
    return true;
  }
  void nt_copy(void* d, const void* s, size_t n) const {
    ++tl_costs.persists;
    tl_costs.flushed_lines += lines_covered(d, n);
    Cpu::nt_copy(d, s, n, insn_);
    if constexpr (Watch::kActive) watch_->flushed(d, n);
  }
  void drain() const {
    ++tl_costs.fences;
    Cpu::fence();
    if constexpr (Watch::kActive) watch_->fenced();
    if (g_injection.write_ticks != 0) [[unlikely]]
      inject_write_at_fence();
  }

 private:
  Watch* watch_;
  FlushInsn insn_;
  bool writes_back_;
  bool cold_writes_back_;
  uint64_t nt_threshold_;
};

}  // namespace pmemids
