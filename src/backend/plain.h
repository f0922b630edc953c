// Volatile backends: `dram` (malloc) and `pmem-volatile` (memkind's PMEM kind on
// a file in the pool directory: jemalloc over PMEM, the successor of libvmem).
// Plain pointers, no flushes, no logging; nothing survives the process, so
// reopen is not supported. Persistence hooks compile to plain stores.
#pragma once

#include <memkind.h>

#include <cstdlib>
#include <cstring>
#include <memory>

#include "backend/backend.h"
#include "backend/pool.h"
#include "counters/cost_counters.h"
#include "errors.h"

namespace pmemids {

template <class T>
class RawPtr {
 public:
  RawPtr() = default;
  explicit RawPtr(T* p) : p_(p) {}
  T* get() const { return p_; }
  explicit operator bool() const { return p_ != nullptr; }
  bool operator==(const RawPtr&) const = default;

 private:
  T* p_ = nullptr;
};

struct MallocHeap {
  explicit MallocHeap(const PoolSpec&) {}
  uint64_t bytes() const { return 0; }  // no pool: the process heap
  void* allocate(size_t n) { return std::malloc(n); }
  void* allocate_zeroed(size_t n) { return std::calloc(1, n); }
  void deallocate(void* p) { std::free(p); }
};

class KindHeap {
 public:
  explicit KindHeap(const PoolSpec& spec) : pool_(spec) {}
  uint64_t bytes() const { return pool_.bytes(); }
  void* allocate(size_t n) { return memkind_malloc(pool_.kind(), n); }
  void* allocate_zeroed(size_t n) { return memkind_calloc(pool_.kind(), 1, n); }
  void deallocate(void* p) { memkind_free(pool_.kind(), p); }

 private:
  KindPool pool_;
};

template <Mode M, class Heap>
class PlainBackend {
 public:
  static constexpr Mode kMode = M;
  static constexpr bool kDurable = false;
  template <class T>
  using Ptr = RawPtr<T>;

  explicit PlainBackend(const PoolSpec& spec) : heap_(spec) {
    if (spec.reopen) {
      throw UsageError(
          fmt::format("--reopen needs a durable mode ({}); {} keeps nothing across runs",
                      durable_mode_names(), mode_name(M)));
    }
  }
  ~PlainBackend() {
    if (root_ != nullptr) heap_.deallocate(root_);
  }
  PlainBackend(const PlainBackend&) = delete;
  PlainBackend& operator=(const PlainBackend&) = delete;

  bool created() const { return true; }
  uint64_t pool_bytes() const { return heap_.bytes(); }

  template <class T>
  Ptr<T> alloc(size_t bytes, unsigned /*type*/) {
    return Ptr<T>(static_cast<T*>(checked(heap_.allocate(bytes), bytes)));
  }
  template <class T>
  Ptr<T> zalloc(size_t bytes, unsigned /*type*/) {
    return Ptr<T>(static_cast<T*>(checked(heap_.allocate_zeroed(bytes), bytes)));
  }
  template <class T>
  void free(Ptr<T> p) {
    ++tl_costs.frees;
    heap_.deallocate(p.get());
  }

  template <class R>
  R* root() {
    static_assert(alignof(R) <= 16);
    if (root_ == nullptr) {
      root_ = heap_.allocate_zeroed(kRootPrefix + sizeof(R));  // the backend's own: not counted
      if (root_ == nullptr) throw RuntimeError(fmt::format("{}: out of memory", mode_name(M)));
    }
    return reinterpret_cast<R*>(static_cast<char*>(root_) + kRootPrefix);
  }
  void* lock_slot() const { return lock_slot_in(root_); }
  // Checked pointers (see ObjBackendBase::follow): nothing to check in memory
  // this process allocated itself.
  template <class T>
  T* follow(const Ptr<T>& p, unsigned /*type*/, uint64_t /*bytes*/, const char* /*what*/) const {
    return p.get();
  }

  template <class F>
  void tx(F&& f) {
    f();
  }
  template <class F>
  void batch(F&& f) {
    f();
  }
  void write(void* dst, const void* src, size_t n) { std::memcpy(dst, src, n); }
  void write_value(void* dst, const void* src, size_t n) { std::memcpy(dst, src, n); }
  void move(void* dst, const void* src, size_t n) { std::memmove(dst, src, n); }
  template <class T>
  void store(T& dst, const T& v) {
    dst = v;
  }
  void store_word(uint64_t& dst, uint64_t v) { dst = v; }
  void seal(const void*, size_t) {}
  void seal_value(const void*, size_t) {}
  void will_change(std::initializer_list<ByteRange>) {}

  // Concurrent structures' primitives (backend.h): atomics, nothing to persist.
  uint64_t load(const uint64_t& w) const { return __atomic_load_n(&w, __ATOMIC_ACQUIRE); }
  void atomic_store(uint64_t& w, uint64_t v) { __atomic_store_n(&w, v, __ATOMIC_RELEASE); }
  bool cas(uint64_t& w, uint64_t& expected, uint64_t desired) {
    return __atomic_compare_exchange_n(&w, &expected, desired, false, __ATOMIC_SEQ_CST,
                                       __ATOMIC_ACQUIRE);
  }
  uint64_t fetch_add(uint64_t& w, uint64_t d) {
    return __atomic_fetch_add(&w, d, __ATOMIC_SEQ_CST);
  }
  void put(void* dst, const void* src, size_t n) { std::memcpy(dst, src, n); }
  void flush(const void*, size_t) {}
  void drain() {}
  void persist(const void*, size_t) {}
  void flush_cold(const void*, size_t) {}
  void relax() { __builtin_ia32_pause(); }

 private:
  void* checked(void* p, size_t bytes) {
    if (p == nullptr) {
      throw RuntimeError(fmt::format("{}: out of memory allocating {} bytes (raise --pool-size?)",
                                     mode_name(M), bytes));
    }
    ++tl_costs.allocs;
    return p;
  }

  Heap heap_;
  void* root_ = nullptr;
};

using DramBackend = PlainBackend<Mode::kDram, MallocHeap>;
using VolatileBackend = PlainBackend<Mode::kVolatile, KindHeap>;

}  // namespace pmemids
