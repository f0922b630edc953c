// Durable backends over one libpmemobj pool: `pmem-persist` and `pmem-trans`.
//
// Both store pointers as 16-byte PMEMoids (ObjPtr) and translate with
// pmemobj_direct on every get(), as the paper measured. They differ only in how a
// change becomes durable:
//
//   pmem-persist  atomic allocation (pmemobj_xalloc); write() copies exactly the
//                 changed bytes, writes them back and fences; seal() writes back
//                 a fresh object before the caller publishes it with store().
//                 Inside batch(f) the changes are written back as they are made
//                 and fenced once at the end. A crash between an allocation and
//                 its publication leaks the object (recovery's leak repair frees
//                 it); multi-word in-place changes can tear.
//   pmem-trans    tx() wraps the operation in a libpmemobj transaction;
//                 write()/store() snapshot exactly the changed range first
//                 (pmemobj_tx_add_range_direct); allocation and free are
//                 transactional; libpmemobj flushes logged ranges and new
//                 objects at commit (through libpmem, pmem/libpmem_hooks.h).
//
// pmemids' own write-backs and fences go through the flush layer
// (backend/flusher.h) with the policy installed when the backend is
// constructed (pmem/policy.h): the domain (under eADR write-backs are elided,
// fences kept), the instruction, the non-temporal threshold. What is durable
// when, under ADR: a change once the call that made it returns (outside a
// batch) or once the batch ends; under eADR, once it is fenced, which is at the
// same moments.
//
// PMDK errors (pool full, log space) raise RuntimeError; inside a transaction the
// transaction is aborted first, so the pool stays consistent.
#pragma once

#include <libpmemobj.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_set>
#include <vector>

#include "backend/backend.h"
#include "backend/flusher.h"
#include "backend/object_index.h"
#include "backend/pmemobj_settings.h"
#include "backend/pool.h"
#include "backend/tx_ranges.h"
#include "counters/cost_counters.h"
#include "errors.h"
#include "pmem/latency.h"
#include "pmem/policy.h"

namespace pmemids {

// A persistent pointer. 16-byte aligned so it never straddles a cache line: the
// pool id is written before the offset, and the offset (8 bytes) is the commit
// point — a torn write leaves either the old pointer or a null one.
template <class T>
class alignas(16) ObjPtr {
 public:
  ObjPtr() = default;
  explicit ObjPtr(PMEMoid oid) : oid_(oid) {}
  T* get() const {
    ++tl_costs.translations;
    if (g_injection.read_ticks != 0) [[unlikely]]
      inject_read();
    return static_cast<T*>(pmemobj_direct(oid_));
  }
  // Null when either word is 0, as pmemobj_direct treats it: a store torn
  // between the two words then reads as the old pointer or as null, never as a
  // non-null pointer that translates to nothing.
  explicit operator bool() const { return oid_.off != 0 && oid_.pool_uuid_lo != 0; }
  bool operator==(const ObjPtr& o) const {
    return oid_.off == o.oid_.off && oid_.pool_uuid_lo == o.oid_.pool_uuid_lo;
  }
  PMEMoid oid() const { return oid_; }

  // Ordered assignment used by the backends' store(): id first, offset last.
  void publish(const ObjPtr& v) {
    oid_.pool_uuid_lo = v.oid_.pool_uuid_lo;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    oid_.off = v.oid_.off;
  }

 private:
  PMEMoid oid_ = OID_NULL;
};

template <class T>
struct is_obj_ptr : std::false_type {};
template <class T>
struct is_obj_ptr<ObjPtr<T>> : std::true_type {};

// What pmem-persist and pmem-trans share: the pool, the root, pointer handling.
class ObjBackendBase {
 public:
  static constexpr bool kDurable = true;
  template <class T>
  using Ptr = ObjPtr<T>;

  explicit ObjBackendBase(const PoolSpec& spec) : pool_(spec) {}
  ObjBackendBase(const ObjBackendBase&) = delete;
  ObjBackendBase& operator=(const ObjBackendBase&) = delete;
  bool created() const { return pool_.created(); }
  uint64_t pool_bytes() const { return pool_.bytes(); }
  PMEMobjpool* pop() const { return pool_.handle(); }

  template <class R>
  R* root() {
    static_assert(alignof(R) <= 16);
    PMEMoid r = pmemobj_root(pop(), kRootPrefix + sizeof(R));
    if (OID_IS_NULL(r)) throw RuntimeError(fmt::format("pmemobj_root: {}", pmemobj_errormsg()));
    uuid_lo_ = r.pool_uuid_lo;
    root_base_ = static_cast<char*>(pmemobj_direct(r));
    return reinterpret_cast<R*>(root_base_ + kRootPrefix);
  }
  void* lock_slot() const { return lock_slot_in(root_base_); }

  // Leak accounting. `each_reachable(visit)` calls visit(const void* object)
  // for every object the structure reaches from its root (visit returns false
  // for one it already reported, so walks can stop at shared or cyclic links).
  // Returns the allocated objects (the root record excepted) it did not report.
  template <class Each>
  std::vector<PMEMoid> unreachable(Each&& each_reachable) const {
    std::unordered_set<const void*> seen;
    each_reachable([&](const void* p) { return seen.insert(p).second; });
    std::vector<PMEMoid> out;
    for (PMEMoid o = pmemobj_first(pop()); !OID_IS_NULL(o); o = pmemobj_next(o)) {
      const void* p = pmemobj_direct(o);
      if (p != root_base_ && seen.count(p) == 0) out.push_back(o);
    }
    return out;
  }
  // The user bytes of every allocated object, the root record included: what a
  // structure stores into (the crash model restores only these). An object a
  // running transaction allocated is not listed until it commits.
  std::vector<ByteRange> object_ranges() const {
    std::vector<ByteRange> out;
    bool root_listed = false;
    for (PMEMoid o = pmemobj_first(pop()); !OID_IS_NULL(o); o = pmemobj_next(o)) {
      const void* p = pmemobj_direct(o);
      root_listed = root_listed || p == root_base_;
      out.push_back({p, pmemobj_alloc_usable_size(o)});
    }
    if (!root_listed && root_base_ != nullptr) {
      out.push_back({root_base_, pmemobj_root_size(pop())});
    }
    return out;
  }
  // Objects freed by leak repair since the pool was opened.
  uint64_t repaired_objects() const { return repaired_; }

  // Checked pointers, for walks over a pool not yet trusted (recover(),
  // for_each_object(), check()): `p` translated, or nullptr for a null link;
  // InvariantViolation naming `what` when the link names another pool, lies
  // outside this one or is misaligned and, once index_objects() has listed the
  // pool's objects (in the checking child only), when no object of `type` with
  // at least `bytes` usable bytes starts where it points.
  template <class T>
  T* follow(const ObjPtr<T>& p, unsigned type, uint64_t bytes, const char* what) const {
    if (!p) return nullptr;
    const PMEMoid o = p.oid();
    if (o.pool_uuid_lo != uuid_lo_) {
      throw InvariantViolation(fmt::format("{}: a link names another pool", what));
    }
    if (o.off % kObjectAlign != 0 || o.off < kFirstObject || o.off > pool_bytes() ||
        bytes > pool_bytes() - o.off) {
      throw InvariantViolation(fmt::format(
          "{}: a link to {} bytes at offset {:#x} lies outside the pool", what, bytes, o.off));
    }
    if (index_ != nullptr) {
      const ObjectIndex::Object* obj = index_->find(o.off);
      if (obj == nullptr) {
        throw InvariantViolation(fmt::format(
            "{}: a link to offset {:#x}, where no allocated object starts", what, o.off));
      }
      if (obj->type != type || obj->size < bytes) {
        throw InvariantViolation(fmt::format(
            "{}: a link to an object of type {} and {} bytes, where type {} and {} bytes are "
            "expected",
            what, obj->type, obj->size, type, bytes));
      }
    }
    return p.get();
  }
  // Lists the pool's objects for follow() (see backend/object_index.h).
  void index_objects() { index_ = std::make_unique<ObjectIndex>(pop(), pool_bytes()); }

 protected:
  // Allocation flags that make objects of `bytes` start on a cache line, so a
  // node's fields cover the fewest lines (libpmemobj's default classes place
  // data 16 bytes into a line). Small sizes get a dedicated allocation class
  // per unit count and header kind (compact, or none for kTypeBare),
  // registered on first use; large ones keep libpmemobj's default. Safe for
  // concurrent callers: a registered class is one acquire load; registration
  // takes a mutex (once per class).
  uint64_t alloc_flags(size_t bytes, unsigned type) {
    if (bytes > kClassedBytesMax) return 0;
    const bool bare = type == kTypeBare;
    const size_t header = bare ? 0 : kCompactHeader;
    const size_t units = (bytes + header + kCacheLine - 1) / kCacheLine;
    std::atomic<uint64_t>& slot = class_ids_[bare][units];
    if (const uint64_t c = slot.load(std::memory_order_acquire); c != 0)
      return POBJ_CLASS_ID(c - 1);
    const std::lock_guard guard(class_mu_);
    if (const uint64_t c = slot.load(std::memory_order_relaxed); c != 0)
      return POBJ_CLASS_ID(c - 1);
    pobj_alloc_class_desc d{};
    d.unit_size = units * kCacheLine;
    d.alignment = kClassAlignment;
    d.units_per_block = std::max<unsigned>(1, kClassBlockBytes / d.unit_size);
    d.header_type = bare ? POBJ_HEADER_NONE : POBJ_HEADER_COMPACT;
    if (pmemobj_ctl_set(pop(), "heap.alloc_class.new.desc", &d) != 0) {
      throw RuntimeError(fmt::format("cannot register allocation class: {}", pmemobj_errormsg()));
    }
    slot.store(uint64_t{d.class_id} + 1, std::memory_order_release);
    return POBJ_CLASS_ID(d.class_id);
  }

  [[noreturn]] static void fail(const char* what, size_t bytes) {
    throw RuntimeError(fmt::format("{} of {} bytes failed: {} (pool full? raise --pool-size)", what,
                                   bytes, pmemobj_errormsg()));
  }

 private:
  static constexpr size_t kCompactHeader = 16;
  static constexpr size_t kMaxUnits = (kClassedBytesMax + kCompactHeader) / kCacheLine + 1;
  static constexpr uint64_t kObjectAlign = 16;
  static constexpr uint64_t kFirstObject = 8192;  // after the pool header and descriptor
  ObjPool pool_;
  char* root_base_ = nullptr;
  uint64_t uuid_lo_ = 0;
  std::unique_ptr<ObjectIndex> index_;

 protected:
  uint64_t repaired_ = 0;

 private:
  // Per header kind (compact, none) and unit count (cache lines per
  // allocation, header included): its registered class id + 1, 0 until
  // registered.
  std::array<std::array<std::atomic<uint64_t>, kMaxUnits + 1>, 2> class_ids_{};
  std::mutex class_mu_;
};

// The hook policy of the durable backends: what the CPU does to persistent
// memory, reported to a crash model. It observes; it never changes which
// library call or instruction the backend issues (planted faults aside).
// NoShadow is the benchmarked one: every call compiles away. The checking
// backends (backend/shadow.h) use Shadow, which builds the image a power
// failure would leave. The calls, in the order a backend makes them:
//   attach(base, n)     the pool is open at [base, base + n), all of it durable
//                       (called only when the hook is active);
//   stored(p, n)        n bytes at p are about to change;
//   logged(p, n)        n bytes at p, snapshotted in the running transaction
//                       (libpmemobj has fenced the snapshot), are about to change;
//   keep_flush(seal)    whether to issue the next write-back (planted faults
//                       only; seal: of a fresh object before its publication);
//   keep_snapshot()     whether to log the next snapshot (planted faults only:
//                       a skipped one is a raw store the hook is not told of);
//   keep_store()        whether the next store()/store_word() goes through the
//                       backend (planted faults only: else a raw assignment,
//                       neither reported nor written back);
//   flushed(p, n)       the lines of [p, p + n) were written back (flush or
//                       non-temporal stores), not yet ordered: called by the
//                       flush layer (backend/flusher.h) for each instruction it
//                       issues, never by the backend for what it meant to issue;
//   fenced()            a store fence was issued (the flush layer again):
//                       earlier stores and write-backs are ordered;
//   tx_end()            the outermost transaction committed or aborted (its
//                       commit flushed and fenced the logged ranges);
//   crash_point()       a moment a power failure may hit;
//   sync_point()        a moment another thread may run (the crash checker's
//                       cooperative threads switch here: every primitive of a
//                       concurrent structure and every spin-wait iteration).
// flushed and fenced are per thread: a thread's fence orders its own write-backs.
struct NoShadow {
  static constexpr bool kActive = false;
  void stored(const void*, size_t) {}
  void logged(const void*, size_t) {}
  bool keep_flush(bool /*seal*/) { return true; }
  bool keep_snapshot() { return true; }
  bool keep_store() { return true; }
  void flushed(const void*, size_t) {}
  void fenced() {}
  void tx_end() {}
  void crash_point() {}
  void sync_point() {}
};

// What pmem-persist and pmem-trans share besides the pool: the hook, the flush
// layer with the installed policy, the primitives of concurrent structures and
// the explicit transaction scope (backend.h). Every primitive is a sync point
// and (when it changes or orders persistent state) a crash point, so the
// checker sees each one.
template <class Hook, class Cpu>
class DurableBackend : public ObjBackendBase {
 public:
  using hook_type = Hook;
  explicit DurableBackend(const PoolSpec& spec)
      : ObjBackendBase(spec), fl_(installed_policy(), &hook_) {
    // libpmemobj maps the file's whole pages only.
    if constexpr (Hook::kActive) hook_.attach(pop(), pool_bytes() / 4096 * 4096);
  }
  Hook& hook() { return hook_; }

  uint64_t load(const uint64_t& w) {
    hook_.sync_point();
    return __atomic_load_n(&w, __ATOMIC_ACQUIRE);
  }
  void atomic_store(uint64_t& w, uint64_t v) {
    change(&w);
    __atomic_store_n(&w, v, __ATOMIC_RELEASE);
  }
  bool cas(uint64_t& w, uint64_t& expected, uint64_t desired) {
    change(&w);
    return __atomic_compare_exchange_n(&w, &expected, desired, false, __ATOMIC_SEQ_CST,
                                       __ATOMIC_ACQUIRE);
  }
  uint64_t fetch_add(uint64_t& w, uint64_t d) {
    change(&w);
    return __atomic_fetch_add(&w, d, __ATOMIC_SEQ_CST);
  }
  // A plain store of n bytes the structure will flush itself (slot payloads,
  // fresh nodes): recorded for the checker, not ordered, not durable.
  void put(void* dst, const void* src, size_t n) {
    hook_.sync_point();
    hook_.crash_point();
    hook_.stored(dst, n);
    std::memcpy(dst, src, n);
  }
  // Raw write-back and fence, for changes made without write()/store() (a CAS
  // on a persistent word, put()): the lines of [p, p + n) are written back
  // (elided under eADR), drain() orders the calling thread's write-backs,
  // persist() is both.
  void flush(const void* p, size_t n) {
    hook_.sync_point();
    hook_.crash_point();
    fl_.flush(p, n, false);
  }
  void drain() {
    hook_.sync_point();
    fl_.drain();
  }
  void persist(const void* p, size_t n) {
    flush(p, n);
    drain();
  }
  void relax() {
    hook_.sync_point();
    __builtin_ia32_pause();
  }
  // A cold value payload (not read again soon: a ring slot, a value) the
  // design makes durable otherwise (its fence under eADR, a commit or its own
  // write-back under ADR): written back only where --flush-cold asks for it,
  // i.e. under eADR with --flush-cold on (seed 002's R5, Figure 15). Not
  // ordered: the design's next fence or commit orders it.
  void flush_cold(const void* p, size_t n) {
    if (!fl_.writes_back(false) && fl_.writes_back(true)) fl_.flush(p, n, true);
  }

  // Runs f in a libpmemobj transaction whatever the mode (nested calls join
  // the outer one): for designs whose algorithm is transactional. An exception
  // from f aborts it, rolling the pool back, and propagates.
  template <class F>
  void durable_tx(F&& f) {
    const bool outer = pmemobj_tx_stage() == TX_STAGE_NONE;
    if (outer) {
      ++tl_costs.tx;
      tl_tx_ranges.clear();
    }
    if (pmemobj_tx_begin(pop(), nullptr, TX_PARAM_NONE) != 0) {
      throw RuntimeError(fmt::format("pmemobj_tx_begin: {}", pmemobj_errormsg()));
    }
    try {
      f();
    } catch (...) {
      if (pmemobj_tx_stage() == TX_STAGE_WORK) pmemobj_tx_abort(ECANCELED);
      pmemobj_tx_end();
      if (outer) hook_.tx_end();
      throw;
    }
    if (outer) hook_.crash_point();  // every store made, nothing committed
    if (pmemobj_tx_stage() == TX_STAGE_WORK) pmemobj_tx_commit();
    const int err = pmemobj_tx_end();
    if (outer) {
      hook_.tx_end();
      hook_.crash_point();
    }
    if (err != 0) throw RuntimeError(fmt::format("transaction aborted: {}", pmemobj_errormsg()));
  }
  // Inside durable_tx: makes [p, p + n) recoverable before it changes, so an
  // interrupted transaction restores it (see log_change).
  void tx_snapshot(void* p, size_t n) {
    ++tl_costs.tx_writes;
    log_change(p, n);
  }

 protected:
  // [p, p + n) is about to change inside the running transaction: logged as
  // one range, unless the transaction logged or allocated all of it already
  // (tl_tx_ranges), in which case the hook is only told of the store. A
  // planted fault may skip the log entry; the range still counts as logged, as
  // the code that skipped it believes.
  void log_change(void* p, size_t n) {
    if (tl_tx_ranges.covers(p, n)) {
      hook_.stored(p, n);
      return;
    }
    tl_tx_ranges.add(p, n);
    if (!hook_.keep_snapshot()) return;
    tl_costs.tx_bytes += n;
    ++tl_costs.tx_add_range_calls;
    if (pmemobj_tx_add_range_direct(p, n) != 0) fail("pmemobj_tx_add_range_direct", n);
    hook_.logged(p, n);
  }
  void change(const void* w) {
    hook_.sync_point();
    hook_.crash_point();
    hook_.stored(w, sizeof(uint64_t));
  }
  // n bytes at p were just stored: a crash point, the write-back (a planted
  // fault may drop it), and the fence unless a batch is open.
  void written(const void* p, size_t n, bool seal, bool cold) {
    hook_.crash_point();
    if (hook_.keep_flush(seal)) fl_.flush(p, n, cold);
    fence();
  }
  void fence() {
    if (tl_batch_depth == 0) drain();
  }

  Flusher<Cpu, Hook> fl_;  // tells hook_ of every write-back and fence it issues
  [[no_unique_address]] Hook hook_;
};

template <class Hook, class Cpu = HostCpu>
class PersistBackendT : public DurableBackend<Hook, Cpu> {
  using Base = DurableBackend<Hook, Cpu>;
  using Base::fl_;
  using Base::hook_;

 public:
  static constexpr Mode kMode = Mode::kPersist;
  using Base::Base;
  template <class T>
  using Ptr = ObjPtr<T>;

  template <class T>
  Ptr<T> alloc(size_t bytes, unsigned type) {
    PMEMoid oid;
    if (pmemobj_xalloc(this->pop(), &oid, bytes, type, this->alloc_flags(bytes, type), nullptr,
                       nullptr) != 0) {
      this->fail("pmemobj_xalloc", bytes);
    }
    ++tl_costs.allocs;
    hook_.crash_point();  // allocated, nothing stored into it yet
    return Ptr<T>(oid);
  }
  template <class T>
  Ptr<T> zalloc(size_t bytes, unsigned type) {
    PMEMoid oid;
    if (pmemobj_xalloc(this->pop(), &oid, bytes, type,
                       this->alloc_flags(bytes, type) | POBJ_XALLOC_ZERO, nullptr, nullptr) != 0) {
      this->fail("pmemobj_xalloc", bytes);
    }
    ++tl_costs.allocs;
    hook_.crash_point();  // allocated and zeroed, nothing stored into it yet
    return Ptr<T>(oid);
  }
  template <class T>
  void free(Ptr<T> p) {
    ++tl_costs.frees;
    PMEMoid oid = p.oid();
    hook_.crash_point();
    pmemobj_free(&oid);
  }

  template <class F>
  void tx(F&& f) {
    f();
  }
  // The changes f makes are written back as they are made and fenced once,
  // when the outermost batch ends: for regions whose order among themselves
  // does not matter, only that all are durable before what follows.
  template <class F>
  void batch(F&& f) {
    struct Close {
      PersistBackendT& b;
      ~Close() {
        if (--tl_batch_depth == 0) b.drain();
      }
    };
    ++tl_batch_depth;
    Close close{*this};
    f();
  }
  void write(void* dst, const void* src, size_t n) { copy_durable(dst, src, n, false, true); }
  // A value payload (cold: not read again soon): under eADR with --flush-cold
  // on it is still written back.
  void write_value(void* dst, const void* src, size_t n) { copy_durable(dst, src, n, true, true); }
  void move(void* dst, const void* src, size_t n) {
    const auto d = reinterpret_cast<uintptr_t>(dst), s = reinterpret_cast<uintptr_t>(src);
    copy_durable(dst, src, n, false, d <= s || d >= s + n);  // non-temporal copies run forward
  }
  template <class T>
  void store(T& dst, const T& v) {
    const bool keep = hook_.keep_store();
    if (keep) hook_.stored(&dst, sizeof(T));
    if constexpr (is_obj_ptr<T>::value) {
      dst.publish(v);
    } else {
      dst = v;
    }
    if (keep) this->written(&dst, sizeof(T), false, false);
  }
  void store_word(uint64_t& dst, uint64_t v) {
    const bool keep = hook_.keep_store();
    if (keep) hook_.stored(&dst, sizeof dst);
    dst = v;
    if (keep) this->written(&dst, sizeof dst, false, false);
  }
  // Each change is made durable on its own: nothing to prepare.
  void will_change(std::initializer_list<ByteRange>) {}
  void seal(const void* p, size_t n) { this->written(p, n, true, false); }
  // seal() of an object that mostly holds a value payload (see write_value).
  void seal_value(const void* p, size_t n) { this->written(p, n, true, true); }

  // Leak repair (recovery only): frees every allocated object the structure
  // does not reach. Each free is atomic, so a crash during repair only leaves
  // less to repair. Returns how many were freed.
  template <class Each>
  uint64_t free_unreachable(Each&& each_reachable) {
    uint64_t n = 0;
    for (PMEMoid oid : this->unreachable(each_reachable)) {
      hook_.crash_point();
      pmemobj_free(&oid);
      ++n;
    }
    this->repaired_ += n;
    return n;
  }

 private:
  // Copies n bytes to dst and makes them durable: non-temporal stores from the
  // movnt threshold on (when `nt_ok`: a forward copy is safe), else regular
  // stores and a write-back; a crash point after the stores (before the
  // write-back of regular ones), the fence unless a batch is open.
  void copy_durable(void* dst, const void* src, size_t n, bool cold, bool nt_ok) {
    hook_.stored(dst, n);
    const bool keep = hook_.keep_flush(false);
    const bool nt = keep && nt_ok && fl_.use_nt(n, cold);
    if (nt) {
      fl_.nt_copy(dst, src, n);
    } else {
      std::memmove(dst, src, n);
    }
    hook_.crash_point();
    if (keep && !nt) fl_.flush(dst, n, cold);
    this->fence();
  }
};
using PersistBackend = PersistBackendT<NoShadow>;

template <class Hook, class Cpu = HostCpu>
class TransBackendT : public DurableBackend<Hook, Cpu> {
  using Base = DurableBackend<Hook, Cpu>;
  using Base::fl_;
  using Base::hook_;

 public:
  static constexpr Mode kMode = Mode::kTrans;
  using Base::Base;
  template <class T>
  using Ptr = ObjPtr<T>;

  // A new object needs no log: an abort frees it, the commit writes it back.
  // Its bytes join the transaction's logged ranges, so writes into it log
  // nothing (libpmemobj would find them covered too, at the cost of a call).
  template <class T>
  Ptr<T> alloc(size_t bytes, unsigned type) {
    return Ptr<T>(tx_alloc(bytes, this->alloc_flags(bytes, type), type));
  }
  template <class T>
  Ptr<T> zalloc(size_t bytes, unsigned type) {
    return Ptr<T>(tx_alloc(bytes, this->alloc_flags(bytes, type) | POBJ_XALLOC_ZERO, type));
  }
  template <class T>
  void free(Ptr<T> p) {
    ++tl_costs.frees;
    hook_.crash_point();
    if (pmemobj_tx_free(p.oid()) != 0) this->fail("pmemobj_tx_free", 0);
  }

  // Runs f in a transaction (nested calls join the outer one). An exception from
  // f aborts the transaction, rolling the pool back, and propagates.
  template <class F>
  void tx(F&& f) {
    this->durable_tx(f);
  }
  // Inside a transaction every change is ordered by its commit.
  template <class F>
  void batch(F&& f) {
    f();
  }
  void write(void* dst, const void* src, size_t n) {
    this->tx_snapshot(dst, n);
    std::memcpy(dst, src, n);
    hook_.crash_point();
  }
  // Logs the regions now, those closer than kTxMergeGapBytes as one range.
  void will_change(std::initializer_list<ByteRange> regions) {
    for (const ByteRange* r = regions.begin(); r != regions.end();) {
      if (r->n == 0) {
        ++r;
        continue;
      }
      const auto lo = reinterpret_cast<uintptr_t>(r->p);
      uintptr_t hi = lo + r->n;
      for (++r; r != regions.end(); ++r) {
        const auto a = reinterpret_cast<uintptr_t>(r->p);
        if (r->n == 0) continue;
        if (a > hi + kTxMergeGapBytes) break;
        hi = std::max(hi, a + r->n);
      }
      this->log_change(reinterpret_cast<void*>(lo), hi - lo);
    }
  }
  // Under eADR with --flush-cold on, the payload is also written back (the
  // commit, which orders it, writes back nothing).
  void write_value(void* dst, const void* src, size_t n) {
    write(dst, src, n);
    this->flush_cold(dst, n);
  }
  void move(void* dst, const void* src, size_t n) {
    this->tx_snapshot(dst, n);
    std::memmove(dst, src, n);
    hook_.crash_point();
  }
  template <class T>
  void store(T& dst, const T& v) {
    this->tx_snapshot(&dst, sizeof(T));
    dst = v;
    hook_.crash_point();
  }
  // Outside transactions: stored, then written back and fenced (a crash point
  // in between).
  void store_word(uint64_t& dst, uint64_t v) {
    hook_.stored(&dst, sizeof dst);
    dst = v;
    this->written(&dst, sizeof dst, false, false);
  }
  void seal(const void*, size_t) {}
  // A new object's value payload: written back under eADR with --flush-cold on
  // (under ADR the commit writes new objects back).
  void seal_value(const void* p, size_t n) { this->flush_cold(p, n); }

 private:
  PMEMoid tx_alloc(size_t bytes, uint64_t flags, unsigned type) {
    PMEMoid oid = pmemobj_tx_xalloc(bytes, type, flags);
    if (OID_IS_NULL(oid)) this->fail("pmemobj_tx_xalloc", bytes);
    ++tl_costs.allocs;
    tl_tx_ranges.add(pmemobj_direct(oid), bytes);
    hook_.crash_point();
    return oid;
  }
};
using TransBackend = TransBackendT<NoShadow>;

}  // namespace pmemids
