// Bring your own index: the contract a structure of yours is written against to
// be measured by pmemids — in all four persistence modes, every thread mode,
// under YCSB workloads, and crash-tested — without editing pmemids' sources.
//
// Build it in: put headers that each define a structure and register it with
// PMEMIDS_REGISTER_INDEX in one directory and configure pmemids with
//   cmake -S <pmemids> -B build -DPMEMIDS_EXTRA_DS=<that directory>
// Every <that directory>/*.h is then compiled into the `pmemids` binary; the
// structure appears in `pmemids list`, `--ds <name>` (and `--ds all`) of run,
// sweep and crash, and in bash completion. examples/linear-probing/ is one,
// built by the test suite as `pmemids-examples`.
//
// ---------------------------------------------------------------------------
// The backend policy (src/backend/backend.h has the full contract)
//
// A structure is `template <Backend B> class X`, written once. pmemids
// instantiates it with four backends, one per mode: dram (malloc),
// pmem-volatile (memkind on the pool's file system), pmem-persist (libpmemobj,
// each change flushed and fenced) and pmem-trans (libpmemobj transactions),
// plus two checking backends of the durable modes for `pmemids crash`.
// Everything that differs between modes goes through the backend `b`:
//
//   B::Ptr<T>              a stored pointer; p.get() translates it (a PMEMoid
//                          lookup in the durable modes: count it, it costs).
//   b.alloc<T>(n, type)    n uninitialised bytes (zalloc: zeroed); `type` is a
//                          small number per kind of object, for leak checks.
//   b.free(p)
//   b.root<R>()            the structure's root record, zeroed when b.created().
//   b.tx(f)                f as one failure-atomic step (pmem-trans: a
//                          transaction; elsewhere a plain call).
//   b.write(dst, src, n)   change n reachable persistent bytes (pmem-trans: logged
//                          first, must be inside b.tx; pmem-persist: copied, then
//                          flushed and fenced). b.move: the same, overlapping.
//   b.store(field, v)      the same for one trivially copyable field.
//   b.store_word(w, v)     one 8-byte change that is crash-atomic alone: stored
//                          and persisted, never logged; not inside b.tx.
//   b.seal(p, n)           a new, still unreachable object is written: persist it
//                          before it is published (pmem-persist).
//   b.follow(p, type, bytes, what)   p.get() for a pointer read from the pool
//                          while it is not trusted yet (constructor on a
//                          reopened pool, recover(), check(), for_each_object):
//                          InvariantViolation naming `what` when p lies
//                          outside the pool or, in the check `run --reopen`
//                          makes first (in a child, on a copy), when no object
//                          of `type` with at least `bytes` bytes starts there.
//                          bytes_of(count, size) multiplies without overflow.
//   B::kMode, B::kDurable  which mode this instantiation is.
// Never call PMDK or flush yourself: what goes through the backend is counted
// (flushed lines, logged bytes, allocations, translations per operation) and
// seen by the crash checker.
//
// ---------------------------------------------------------------------------
// The operation set (checked by the Index and CrashTestable concepts below)
//
//   static constexpr const char* kName        the --ds name
//   static constexpr bool kCanScan            true if scan() is provided
//   static uint64_t element_bytes(uint32_t value_size)   bytes per element
//   static uint64_t pool_bytes(const DsOptions&)         pool the workload needs
//   X(B& b, const DsOptions& o)   create the structure in a new backend
//                                 (b.created()), or attach to a reopened pool
//                                 and recover (see below)
//   bool read(key, char* out)     copy o.value_size bytes out; false if absent
//   bool update(key, const char* value)   false if absent
//   bool insert(key, const char* value)   false if the key was there (then
//                                         it is updated)
//   bool remove(key)              false if absent
//   uint32_t scan(start, n, visit)   (kCanScan) visit(key, value) for the first
//                                 n keys >= start in ascending order
//   for_each(f)                   f(key, const char* value) for every element
//   uint64_t check() const        walk everything, verify the structure's
//                                 invariants, return the element count; throw
//                                 InvariantViolation naming what is wrong
//   for_each_object(visit)        visit(const void*) every persistent object
//                                 reachable from the root (not the root); stop
//                                 following an object's links when visit
//                                 returns false (already seen)
// Operations are called by one thread at a time (concurrent mode holds a
// global lock around each); each must be complete and, in the durable modes,
// durable when it returns.
//
// ---------------------------------------------------------------------------
// Durability and recovery hooks
//
//   RootHeader       first member of your root record: RootHeader::make(o,
//                    shape) is stored last at creation; on reopen
//                    root->hdr.check_reopen(o, kName) refuses a pool created
//                    for another value size or key order.
//   recovery         the constructor on a reopened pool (!b.created()) rebuilds
//                    any DRAM state from the persistent one, following links
//                    with b.follow; `run --reopen` first runs it and check()
//                    in a child process on a copy of the pool, so a corrupt
//                    pool is refused (exit 1) instead of crashing the run.
//   repair_leaks(b, *this)   at the end of recovery: in pmem-persist, frees
//                    every allocated object for_each_object does not reach (an
//                    allocation a crash left unpublished, or unlinked but not
//                    freed); nothing elsewhere (pmem-trans rolls back).
//   What a crash can leave is yours to state in the header comment: `pmemids
//   crash --ds <name>` then counts failed recoveries, invariant failures, lost
//   acknowledged and half-applied operations and leaked objects.
#pragma once

#include <concepts>
#include <cstdint>
#include <string_view>

#include "pmemids/backend.h"    // Backend, Mode
#include "pmemids/errors.h"     // RuntimeError, UsageError, InvariantViolation
#include "pmemids/mulhi.h"      // mulhi64: a uniform 64-bit hash onto [0, n)
#include "pmemids/structure.h"  // DsOptions, RootHeader, repair_leaks, bytes_of, value_slot

namespace pmemids {

// The operation set every structure provides (for every backend it runs on).
template <class X>
concept Index = requires(X& x, const X& cx, uint64_t key, char* out, const char* value,
                         uint32_t value_size, const DsOptions& o) {
  { X::kName } -> std::convertible_to<const char*>;
  { X::kCanScan } -> std::convertible_to<bool>;
  { X::element_bytes(value_size) } -> std::convertible_to<uint64_t>;
  { X::pool_bytes(o) } -> std::convertible_to<uint64_t>;
  { x.read(key, out) } -> std::same_as<bool>;
  { x.update(key, value) } -> std::same_as<bool>;
  { x.insert(key, value) } -> std::same_as<bool>;
  { x.remove(key) } -> std::same_as<bool>;
  { cx.check() } -> std::convertible_to<uint64_t>;
  cx.for_each([](uint64_t, const char*) {});
};

// Index X over backend B: constructible from (B&, const DsOptions&).
template <class X, class B>
concept IndexOn = Backend<B> && Index<X> && std::constructible_from<X, B&, const DsOptions&>;

// What `pmemids crash` needs besides: every persistent object it can reach.
template <class X>
concept CrashTestable = Index<X> && requires(const X& cx) {
  cx.for_each_object([](const void*) { return true; });
};

// Adds structure template DS to run, list, sweep, crash and completion under
// DS<...>::kName. Defined where pmemids compiles the registrations
// (registry/extra_index.h, included first by the source CMake generates).
template <template <class> class DS>
bool register_index(std::string_view description);

}  // namespace pmemids

// At namespace scope, in the namespace of the structure, once per structure,
// after its definition:
//   PMEMIDS_REGISTER_INDEX(MyIndex, "what it is, in a line");
#define PMEMIDS_REGISTER_INDEX(DS, description)                \
  [[maybe_unused]] static const bool pmemids_registered_##DS = \
      ::pmemids::register_index<DS>(description)
