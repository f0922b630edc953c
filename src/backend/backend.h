// The persistence policy every data structure is written against.
//
// A structure is `template <Backend B> class X`, written once. Everything that
// differs between persistence modes lives in the backend:
//
//   B::Ptr<T>                 stored pointer: a plain T* (dram, pmem-volatile) or
//                             a 16-byte PMEMoid translated on every get()
//                             (pmem-persist, pmem-trans).
//   b.alloc<T>(bytes, type)   allocate an uninitialised object (zalloc: zeroed);
//                             `type` is the pmemobj type number, used to walk
//                             objects by kind for leak checks; kTypeBare (0):
//                             an object without libpmemobj's header (below).
//   b.free(ptr)
//   b.pool_bytes()            size of the pool behind the backend (0 for dram).
//   b.root<R>()               the structure's root record; zeroed when the
//                             backend was just created (b.created()).
//   b.lock_slot()             64 cache-line-aligned bytes in the pool next to
//                             the root, for a lock kept in PMEM by the concurrent
//                             runner; valid once root<R>() was called. Not
//                             durable: whoever uses it initialises it on open.
//   b.tx(f)                   run f as one failure-atomic operation: a
//                             libpmemobj transaction in pmem-trans, a plain call
//                             elsewhere. Exceptions abort it and propagate.
//   b.write(dst, src, n)      change n reachable persistent bytes: logged first
//                             (tx_add_range, must be inside b.tx) in pmem-trans;
//                             copied, written back and fenced in pmem-persist.
//   b.write_value(dst, src, n) the same for a value payload: cold data that
//                             --flush-cold on still writes back under eADR.
//   b.move(dst, src, n)       like write, for overlapping ranges (memmove), as
//                             when a node shifts its entries.
//   b.store(dst, v)           the same for one trivially copyable field. For a
//                             Ptr it writes the pool id before the offset, so a
//                             16-aligned PMEMoid is published by its 8-byte offset.
//   b.will_change({r, ...})   intent: the running b.tx is about to change these
//                             regions (ByteRanges of one object, in address
//                             order; empty ones allowed) through the calls
//                             above. pmem-trans logs them now, regions closer
//                             than kTxMergeGapBytes as one range (one log entry
//                             costs more than that many extra bytes), so the
//                             writes that follow log nothing; a no-op
//                             elsewhere. A write outside the regions is logged
//                             on its own, as without the call. Whatever the
//                             calls, pmem-trans logs each byte at most once per
//                             transaction, and never an object the transaction
//                             allocated.
//   b.store_word(dst, v)      a lone 8-byte change that is crash-atomic by
//                             itself: stored, written back and fenced in both
//                             pmem modes, never logged; must not be called
//                             inside b.tx.
//   b.seal(p, n)              a freshly allocated, still unreachable object is
//                             fully written: pmem-persist writes it back and
//                             fences (before it is published); pmem-trans flushes
//                             new objects at commit, so nothing is needed.
//   b.seal_value(p, n)        seal() of an object that mostly holds a value: a
//                             cold payload for --flush-cold, as write_value.
//   b.batch(f)                the changes f makes need no order among
//                             themselves: pmem-persist writes each back as it is
//                             made and fences once, when f returns; everything
//                             after the batch is ordered after all of them.
//   b.flush(p, n), b.drain(), b.persist(p, n)
//                             raw write-back of [p, p + n), store fence, both:
//                             for changes made without the calls above (a CAS
//                             on a persistent word). No-ops in dram and
//                             pmem-volatile.
//
// Under eADR (--domain eadr) pmemids' write-backs are elided and every fence is
// kept, so "durable" above means "ordered before what follows".
//
// Concurrent structures (kInternal, ds/traits.h) synchronise through the
// backend too, so the crash checker sees every step. On 8-byte words of
// backend memory (nodes, slots, per-thread records; never a Ptr):
//   b.load(w)                 atomic acquire load
//   b.atomic_store(w, v)      atomic release store (not flushed)
//   b.cas(w, expected, v)     seq_cst compare-and-swap; on failure `expected`
//                             holds the current value
//   b.fetch_add(w, d)         seq_cst fetch-and-add, returns the old value
//   b.put(dst, src, n)        plain copy into memory the caller flushes itself
//                             (a slot payload, a node not yet published)
//   b.flush(p, n)             write back the lines of [p, p + n): durable at
//                             this thread's next drain (nothing in volatile modes)
//   b.drain()                 fence: this thread's earlier flushes and stores
//                             are ordered before later stores (counted as one
//                             persist)
//   b.persist(p, n)           flush + drain
//   b.flush_cold(p, n)        write back a cold payload the design makes durable
//                             otherwise: only under eADR with --flush-cold on
//                             (seed 002's Figure 15); not ordered
//   b.relax()                 one spin-wait iteration (pause); a scheduling
//                             point for the crash checker's cooperative threads:
//                             every wait loop must call it
// Durable backends only (a design that is transactional in every mode):
//   b.durable_tx(f)           f in one libpmemobj transaction
//   b.tx_snapshot(p, n)       inside durable_tx: log [p, p + n) before changing it
// Thread safety: allocation, free, counters (thread-local) and these
// primitives may be called by many threads at once; the rest of the backend
// (root(), tx() of the kv structures) by one thread at a time, as today.
//
// Every call counts its cost in tl_costs (see counters/cost_counters.h).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "pmemids/backend.h"

namespace pmemids {

// Regions passed to one will_change() that lie at most this many bytes apart
// are logged as one range in pmem-trans: in libpmemobj 1.12 a log entry costs
// two fences and about 2,000 instructions (docs/performance.md, "Where a
// transaction's fences go"), the bytes between them about one instruction each.
inline constexpr size_t kTxMergeGapBytes = 1024;

// The type of objects the durable backends allocate without libpmemobj's
// 16-byte header (up to 4 KiB; larger ones keep it, with type 0). Their data
// starts on a cache line and fills whole lines, and allocating one writes no
// header. A typed object's data starts on a line too, so its header ends the
// line before: a 16-byte store into that line, which libpmemobj writes back at
// once (a header that starts a line is one non-temporal line store instead).
// Without it a B-tree insert of a 128-byte value ran about 1.15x as fast here
// (docs/performance.md, "Objects without a header"). A bare object has no type
// number (pmemobj_type_num reads 0, hence the value; follow() expects it) and
// its usable size is its class's whole unit: a pool check tells it from every
// typed object, not from another bare object. So a structure makes at most one
// kind of its objects bare: the B-trees' values, the nodes of the hashtable,
// the linked list, the skip list and the rbtree.
inline constexpr unsigned kTypeBare = 0;

// Bytes the backends place before the structure's root record: room for a
// 64-byte, 64-byte-aligned lock slot whatever the root's own alignment.
inline constexpr size_t kRootPrefix = 128;
inline constexpr size_t kLockSlotBytes = 64;

inline void* lock_slot_in(void* root_base) {
  if (root_base == nullptr) throw std::logic_error("lock slot requested before root<R>()");
  const auto a = reinterpret_cast<uintptr_t>(root_base);
  return reinterpret_cast<void*>((a + kLockSlotBytes - 1) & ~uintptr_t{kLockSlotBytes - 1});
}

// The durable modes' names joined by `separator` ("pmem-persist, pmem-trans"):
// defined with the backend list (backend/backends.cc), for messages.
std::string durable_mode_names(std::string_view separator = ", ");

// The primitives of concurrent structures (see above).
template <class B>
concept SyncBackend = Backend<B> && requires(B& b, uint64_t& w, uint64_t v, void* p, size_t n) {
  { b.load(w) } -> std::same_as<uint64_t>;
  b.atomic_store(w, v);
  { b.cas(w, w, v) } -> std::same_as<bool>;
  { b.fetch_add(w, v) } -> std::same_as<uint64_t>;
  b.put(p, p, n);
  b.flush(p, n);
  b.drain();
  b.persist(p, n);
  b.relax();
};

}  // namespace pmemids
