#include "pmem/libpmem_hooks.h"

#include <dlfcn.h>
#include <libpmem.h>

#include <cstdio>
#include <cstdlib>

#include "counters/cost_counters.h"
#include "pmem/flush.h"
#include "pmem/latency.h"

namespace pmemids {
namespace {

bool g_lib_flushes = true;
LibFlushObserver* g_observer = nullptr;

// The lines libpmem's flush loop writes back for [p, p + n): it starts at the
// line holding p and runs while below p + n, so an empty range inside a line
// still writes that line back (libpmemobj persists one when it sets up a run
// of a class without headers).
uint64_t libpmem_lines(const void* p, size_t n) {
  if (n == 0) return reinterpret_cast<uintptr_t>(p) % kFlushLine != 0 ? 1 : 0;
  return lines_covered(p, n);
}

void observe_flush(const void* p, size_t n) {
  if (g_observer != nullptr) [[unlikely]]
    g_observer->lib_flushed(p, n);
}

// libpmem's own definitions, resolved once.
struct Libpmem {
  void (*flush)(const void*, size_t);
  void (*drain)();
  void* (*memcpy)(void*, const void*, size_t, unsigned);
  void* (*memmove)(void*, const void*, size_t, unsigned);
  void* (*memset)(void*, int, size_t, unsigned);
  int (*msync)(const void*, size_t);
  void (*deep_flush)(const void*, size_t);
};

template <class F>
F resolve(const char* name) {
  void* f = dlvsym(RTLD_NEXT, name, "LIBPMEM_1.0");
  if (f == nullptr) f = dlsym(RTLD_NEXT, name);
  if (f == nullptr) {
    std::fprintf(stderr, "pmemids: fatal: cannot find libpmem's %s\n", name);
    std::abort();
  }
  return reinterpret_cast<F>(f);
}

Libpmem g_libpmem;  // filled before main() (or by the first call, if earlier)

void resolve_libpmem() {
  g_libpmem = Libpmem{
      resolve<decltype(Libpmem::flush)>("pmem_flush"),
      resolve<decltype(Libpmem::drain)>("pmem_drain"),
      resolve<decltype(Libpmem::memcpy)>("pmem_memcpy"),
      resolve<decltype(Libpmem::memmove)>("pmem_memmove"),
      resolve<decltype(Libpmem::memset)>("pmem_memset"),
      resolve<decltype(Libpmem::msync)>("pmem_msync"),
      resolve<decltype(Libpmem::deep_flush)>("pmem_deep_flush"),
  };
}

[[gnu::constructor]] void resolve_at_start() { resolve_libpmem(); }

inline const Libpmem& libpmem() {
  if (g_libpmem.deep_flush == nullptr) [[unlikely]]
    resolve_libpmem();
  return g_libpmem;
}

void fenced() {
  if (g_observer != nullptr) [[unlikely]]
    g_observer->lib_fenced();
  ++tl_costs.lib_fences;
  if (g_injection.write_ticks != 0) [[unlikely]]
    inject_write_at_fence();
}

// A copy or fill of len bytes at dst with `flags`, made by `call(flags)`:
// counted, made without write-back under eADR, and always without libpmem's own
// drain (libpmem's copies call pmem_drain through its PLT, which would reach
// pmem_drain below and count the fence twice); the fence the caller asked for
// is issued here.
template <class Call>
void* copy_like(const void* dst, size_t len, unsigned flags, Call call) {
  if ((flags & PMEM_F_MEM_NOFLUSH) != 0) return call(flags);
  const uint64_t lines = lines_covered(dst, len);
  void* r;
  if (g_lib_flushes) {
    tl_costs.lib_flushed_lines += lines;
    r = call(flags | PMEM_F_MEM_NODRAIN);
    observe_flush(dst, len);
  } else {
    tl_costs.lib_flushes_elided += lines;
    r = call(flags | PMEM_F_MEM_NOFLUSH);
  }
  if ((flags & PMEM_F_MEM_NODRAIN) == 0) {
    libpmem().drain();
    fenced();
  }
  return r;
}

}  // namespace

void set_lib_flushes(bool flush) { g_lib_flushes = flush; }
void set_lib_observer(LibFlushObserver* o) { g_observer = o; }
LibFlushObserver* lib_observer() { return g_observer; }

bool lib_hooks_bound() {
  return dlsym(RTLD_DEFAULT, "pmem_drain") == reinterpret_cast<void*>(&::pmem_drain) &&
         dlsym(RTLD_DEFAULT, "pmem_memcpy") == reinterpret_cast<void*>(&::pmem_memcpy);
}

}  // namespace pmemids

using pmemids::libpmem;
using pmemids::libpmem_lines;
using pmemids::lines_covered;
using pmemids::observe_flush;
using pmemids::tl_costs;

extern "C" {

void pmem_flush(const void* addr, size_t len) {
  if (!pmemids::g_lib_flushes) {
    tl_costs.lib_flushes_elided += libpmem_lines(addr, len);
    return;
  }
  tl_costs.lib_flushed_lines += libpmem_lines(addr, len);
  libpmem().flush(addr, len);
  observe_flush(addr, len);
}

void pmem_drain(void) {
  libpmem().drain();
  pmemids::fenced();
}

// libpmem's pmem_persist is pmem_flush + pmem_drain through its PLT: both are
// issued here directly instead, so neither reaches the functions above.
void pmem_persist(const void* addr, size_t len) {
  if (pmemids::g_lib_flushes) {
    tl_costs.lib_flushed_lines += libpmem_lines(addr, len);
    libpmem().flush(addr, len);
    observe_flush(addr, len);
  } else {
    tl_costs.lib_flushes_elided += libpmem_lines(addr, len);
  }
  libpmem().drain();
  pmemids::fenced();
}

void* pmem_memcpy(void* dst, const void* src, size_t len, unsigned flags) {
  return pmemids::copy_like(dst, len, flags,
                            [&](unsigned f) { return libpmem().memcpy(dst, src, len, f); });
}

void* pmem_memmove(void* dst, const void* src, size_t len, unsigned flags) {
  return pmemids::copy_like(dst, len, flags,
                            [&](unsigned f) { return libpmem().memmove(dst, src, len, f); });
}

void* pmem_memset(void* dst, int c, size_t len, unsigned flags) {
  return pmemids::copy_like(dst, len, flags,
                            [&](unsigned f) { return libpmem().memset(dst, c, len, f); });
}

int pmem_msync(const void* addr, size_t len) {
  tl_costs.lib_flushed_lines += lines_covered(addr, len);
  const int r = libpmem().msync(addr, len);
  observe_flush(addr, len);
  pmemids::fenced();
  return r;
}

void pmem_deep_flush(const void* addr, size_t len) {
  tl_costs.lib_flushed_lines += lines_covered(addr, len);
  libpmem().deep_flush(addr, len);
  observe_flush(addr, len);
}

}  // extern "C"
