// libpmemobj's own write-backs, counted and steered by pmemids.
//
// libpmemobj calls libpmem's exported pmem_flush, pmem_drain, pmem_persist,
// pmem_memcpy, pmem_memmove, pmem_memset, pmem_msync and pmem_deep_flush.
// pmemids defines functions of the same names (libpmem_hooks.cc) and its
// executables export them (the link options of pmemids_core), so libpmemobj's
// calls bind to them: through its PLT when libpmemobj.so is linked, at link
// time when libpmemobj.a is (PMEMIDS_STATIC_PMEMOBJ); libpmem stays shared;
// each counts what it writes back and fences on the calling thread
// (lib_flushed_lines, lib_fences, lib_flushes_elided in counters/cost_counters.h)
// and forwards to libpmem's definitions (dlvsym(RTLD_NEXT)). libpmem's own
// pmem_persist and copies call pmem_flush / pmem_drain through its PLT, so they
// would reach these functions again: the wrappers call libpmem's leaves
// instead (flush, drain, copies with PMEM_F_MEM_NODRAIN), and each write-back
// and fence is counted once.
//
// When the installed domain needs no write-back (eADR, emulated or real),
// write-backs are elided: pmem_flush does nothing, pmem_persist only fences,
// copies and fills are made with PMEM_F_MEM_NOFLUSH and fenced as asked. Fences
// are kept. PMEM_NO_FLUSH=1 would do the same inside libpmem, but libpmem reads
// it in its constructor, before main(), so a run cannot set it for itself
// (docs/design.md). pmem_msync and pmem_deep_flush are counted, never elided.
//
// An observer (the crash checker's power model, backend/shadow.h) may be told
// of each range libpmemobj writes back (pmem_flush, pmem_persist, the copies
// and fills that flush, pmem_msync, pmem_deep_flush), after its bytes are
// stored, and of each fence it issues (pmem_drain, pmem_persist, a draining
// copy or fill, pmem_msync: msync both writes back and waits). Nothing is
// reported when a write-back is elided (eADR). Without an observer each call
// costs one more predictable branch.
#pragma once

#include <cstddef>

namespace pmemids {

class LibFlushObserver {
 public:
  virtual void lib_flushed(const void* p, size_t n) = 0;
  virtual void lib_fenced() = 0;

 protected:
  ~LibFlushObserver() = default;
};

// Installs `o` (nullptr: none). One at a time, for the whole process; the
// calling code guarantees no libpmemobj call runs concurrently with it.
void set_lib_observer(LibFlushObserver* o);
LibFlushObserver* lib_observer();

// Whether libpmemobj's write-backs are issued (ADR) or elided (eADR). Set by
// install_policy() before worker threads start.
void set_lib_flushes(bool flush);

// True when libpmemobj's calls into libpmem resolve to pmemids' definitions
// in this process (the executable exports them).
bool lib_hooks_bound();

}  // namespace pmemids
