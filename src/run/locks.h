// The global lock of the concurrent thread mode, and where it lives.
//
//   pthread-dram    pthread mutex in DRAM (the paper's choice for dram and
//                   pmem-volatile)
//   pthread-pmem    pthread mutex in the structure's pool, in the backend's lock
//                   slot (pmem-volatile, pmem-persist, pmem-trans)
//   pmemobj         libpmemobj PMEMmutex in the pool (the paper's choice for
//                   pmem-persist and pmem-trans)
//   rwlock-dram     pthread rwlock in DRAM: reads and scans share it, writers
//                   are preferred
//   rwlock-pmemobj  libpmemobj PMEMrwlock in the pool: reads and scans share it
//                   (glibc's default kind: readers are preferred)
//
// A lock in the pool is initialised every time a run starts (pthread locks by
// pthread_*_init, libpmemobj locks by zeroing): its state is never durable and a
// lock held when a process died is never inherited by the next run.
#pragma once

#include <libpmemobj.h>
#include <pthread.h>

#include <new>
#include <string>
#include <string_view>

#include "backend/backends.h"
#include "errors.h"

namespace pmemids {

// Whether a lock of kind k can be placed in a run of mode m: PMEM placements
// need a pool, libpmemobj locks need a libpmemobj pool (a durable mode's).
constexpr bool lock_fits(LockKind k, Mode m) {
  switch (k) {
    case LockKind::kPthreadDram:
    case LockKind::kRwlockDram:
      return true;
    case LockKind::kPthreadPmem:
      return mode_info(m).opens_pool();
    case LockKind::kPmemobj:
    case LockKind::kRwlockPmemobj:
      return durable(m);
  }
  return false;
}

// The backend list's default for m: the paper's placement, a pthread mutex in
// DRAM for dram and pmem-volatile, PMEMmutex for pmem-persist and pmem-trans.
constexpr LockKind default_lock(Mode m) { return mode_info(m).default_lock; }

// UsageError naming the accepted kinds when `name` is unknown or does not fit m.
LockKind find_lock(std::string_view name, Mode m);

// Single-thread and parallel runs: no lock; compiles to nothing.
struct NoLock {
  static constexpr bool kShared = false;
  void lock() {}
  void unlock() {}
};

// A pthread mutex placed in `slot` (DRAM or the pool's lock slot).
class PthreadMutex {
 public:
  static constexpr bool kShared = false;
  explicit PthreadMutex(void* slot) : m_(new (slot) pthread_mutex_t) {
    pthread_mutex_init(m_, nullptr);
  }
  ~PthreadMutex() { pthread_mutex_destroy(m_); }
  PthreadMutex(const PthreadMutex&) = delete;
  PthreadMutex& operator=(const PthreadMutex&) = delete;
  void lock() { pthread_mutex_lock(m_); }
  void unlock() { pthread_mutex_unlock(m_); }

 private:
  pthread_mutex_t* m_;
};

class PthreadRwLock {
 public:
  static constexpr bool kShared = true;
  // Writers are preferred, so a read-heavy run cannot starve them (glibc's
  // default, which PMEMrwlock keeps, prefers readers).
  explicit PthreadRwLock(void* slot) : l_(new (slot) pthread_rwlock_t) {
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(l_, &attr);
    pthread_rwlockattr_destroy(&attr);
  }
  ~PthreadRwLock() { pthread_rwlock_destroy(l_); }
  PthreadRwLock(const PthreadRwLock&) = delete;
  PthreadRwLock& operator=(const PthreadRwLock&) = delete;
  void lock() { pthread_rwlock_wrlock(l_); }
  void unlock() { pthread_rwlock_unlock(l_); }
  void lock_shared() { pthread_rwlock_rdlock(l_); }
  void unlock_shared() { pthread_rwlock_unlock(l_); }

 private:
  pthread_rwlock_t* l_;
};

// libpmemobj's PMEMmutex in the pool's lock slot.
class PmemobjMutex {
 public:
  static constexpr bool kShared = false;
  PmemobjMutex(PMEMobjpool* pop, void* slot) : pop_(pop), m_(static_cast<PMEMmutex*>(slot)) {
    pmemobj_mutex_zero(pop_, m_);
    lock();  // libpmemobj initialises the lock on first use: do it before the workers start
    unlock();
  }
  void lock() { pmemobj_mutex_lock(pop_, m_); }
  void unlock() { pmemobj_mutex_unlock(pop_, m_); }

 private:
  PMEMobjpool* pop_;
  PMEMmutex* m_;
};

class PmemobjRwLock {
 public:
  static constexpr bool kShared = true;
  PmemobjRwLock(PMEMobjpool* pop, void* slot) : pop_(pop), l_(static_cast<PMEMrwlock*>(slot)) {
    pmemobj_rwlock_zero(pop_, l_);
    lock();  // libpmemobj initialises the lock on first use: do it before the workers start
    unlock();
  }
  void lock() { pmemobj_rwlock_wrlock(pop_, l_); }
  void unlock() { pmemobj_rwlock_unlock(pop_, l_); }
  void lock_shared() { pmemobj_rwlock_rdlock(pop_, l_); }
  void unlock_shared() { pmemobj_rwlock_unlock(pop_, l_); }

 private:
  PMEMobjpool* pop_;
  PMEMrwlock* l_;
};

static_assert(sizeof(pthread_mutex_t) <= kLockSlotBytes &&
              sizeof(pthread_rwlock_t) <= kLockSlotBytes && sizeof(PMEMmutex) <= kLockSlotBytes &&
              sizeof(PMEMrwlock) <= kLockSlotBytes);

// Memory for a DRAM-placed lock, on a cache line of its own.
struct alignas(64) DramLockSlot {
  unsigned char bytes[kLockSlotBytes];
};

// Constructs the lock of kind k, placed in `dram` or in b's pool, and returns
// f(lock); the lock lives for the call. UsageError when k does not fit b's mode.
template <class B, class F>
decltype(auto) with_lock(LockKind k, B& b, DramLockSlot& dram, F&& f) {
  switch (k) {
    case LockKind::kPthreadDram: {
      PthreadMutex l(dram.bytes);
      return f(l);
    }
    case LockKind::kRwlockDram: {
      PthreadRwLock l(dram.bytes);
      return f(l);
    }
    case LockKind::kPthreadPmem:
      if constexpr (mode_info(B::kMode).opens_pool()) {
        PthreadMutex l(b.lock_slot());
        return f(l);
      }
      break;
    case LockKind::kPmemobj:
      if constexpr (B::kDurable) {
        PmemobjMutex l(b.pop(), b.lock_slot());
        return f(l);
      }
      break;
    case LockKind::kRwlockPmemobj:
      if constexpr (B::kDurable) {
        PmemobjRwLock l(b.pop(), b.lock_slot());
        return f(l);
      }
      break;
  }
  throw UsageError(
      fmt::format("--lock {} does not fit mode {}", lock_name(k), mode_name(B::kMode)));
}

}  // namespace pmemids
