// micro lock: libpmemobj's persistent locks against POSIX ones (seed 003,
// Figure 4.13), timed over a million operations per thread by default (the
// seed timed 10-500, which measures start-up).
//
// An operation locks and unlocks one lock: mutexes (pthread-mutex,
// pmemobj-mutex), read-write locks taken for reading (-rd) or writing (-wr).
// pthread locks live in DRAM, libpmemobj's in a pool, each on a cache line of
// its own; with --region-sharing disjoint (default) every thread has its own
// lock (no contention), with shared all threads take one. The pthread
// read-write lock is run's (writers preferred); libpmemobj's keeps glibc's
// default (readers preferred): with one kind of access only, the preference
// does not act.
#include <fmt/format.h>

#include <memory>

#include "micro/bench.h"
#include "micro/harness.h"
#include "micro/region.h"
#include "run/locks.h"

namespace pmemids::micro {
namespace {

constexpr uint64_t kSlot = 128;  // bytes per lock: its own cache lines

template <class Lock, bool Read>
Measurement time_locks(const BenchEnv& env, std::vector<std::unique_ptr<Lock>>& locks) {
  std::vector<std::vector<uint64_t>> samples;
  const uint64_t n = env.scalars.ops_per_thread;
  for (int t = 0; t < env.threads; ++t) samples.push_back(thread_samples(env, t, n));
  return measure(
      env, {}, [](int) {},
      [&](int t, const DriveControl& ctl, ThreadTally& tally) {
        Lock& l = *locks[locks.size() == 1 ? 0 : static_cast<size_t>(t)];
        timed_loop(n, samples[t], ctl, tally, [&l](uint64_t) -> uint64_t {
          if constexpr (Read) {
            l.lock_shared();
            l.unlock_shared();
          } else {
            l.lock();
            l.unlock();
          }
          return 0;
        });
      });
}

template <class Lock, bool Read, class Make>
Measurement with_locks(const BenchEnv& env, Make&& make) {
  std::vector<std::unique_ptr<Lock>> locks;
  for (int t = 0; t < (env.shared ? 1 : env.threads); ++t) locks.push_back(make(t));
  return time_locks<Lock, Read>(env, locks);
}

constexpr uint64_t kLockPoolBytes = uint64_t{16} << 20;

// The locks (a pool for libpmemobj's), and the samples.
Footprint footprint(const Point& p, const BenchEnv& env) {
  const bool pmem = !p.name("lock").starts_with("pthread");
  return bench_footprint("pmem", 0, pmem ? kLockPoolBytes : 0,
                         samples_bytes(env, env.scalars.ops_per_thread));
}

Measurement run(const Point& p, const BenchEnv& env) {
  const std::string& kind = p.name("lock");
  const bool read = kind.ends_with("-rd");
  const int n = env.shared ? 1 : env.threads;
  Measurement m;
  if (kind.starts_with("pthread")) {
    std::vector<DramLockSlot> slots(static_cast<size_t>(2 * n));  // every other slot: 128 B apart
    const auto at = [&](int t) { return slots[static_cast<size_t>(2 * t)].bytes; };
    if (kind == "pthread-mutex") {
      m = with_locks<PthreadMutex, false>(
          env, [&](int t) { return std::make_unique<PthreadMutex>(at(t)); });
    } else if (read) {
      m = with_locks<PthreadRwLock, true>(
          env, [&](int t) { return std::make_unique<PthreadRwLock>(at(t)); });
    } else {
      m = with_locks<PthreadRwLock, false>(
          env, [&](int t) { return std::make_unique<PthreadRwLock>(at(t)); });
    }
    m.config = {{"lock_memory", "dram"}};
  } else {
    const auto pool = micro_pool(env.pool_dir, "lock", kLockPoolBytes);
    PMEMobjpool* const pop = pool->handle();
    PMEMoid oid = OID_NULL;
    if (pmemobj_zalloc(pop, &oid, kSlot * static_cast<uint64_t>(n) + kSlot, 0) != 0) {
      throw RuntimeError(fmt::format("cannot allocate the locks: {}", pmemobj_errormsg()));
    }
    char* const base = static_cast<char*>(pmemobj_direct(oid));
    char* const aligned =
        reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(base) + kSlot - 1) & ~(kSlot - 1));
    const auto at = [&](int t) { return aligned + static_cast<uint64_t>(t) * kSlot; };
    if (kind == "pmemobj-mutex") {
      m = with_locks<PmemobjMutex, false>(
          env, [&](int t) { return std::make_unique<PmemobjMutex>(pop, at(t)); });
    } else if (read) {
      m = with_locks<PmemobjRwLock, true>(
          env, [&](int t) { return std::make_unique<PmemobjRwLock>(pop, at(t)); });
    } else {
      m = with_locks<PmemobjRwLock, false>(
          env, [&](int t) { return std::make_unique<PmemobjRwLock>(pop, at(t)); });
    }
    m.config = {{"lock_memory", "pmem"}};
  }
  m.config["locks"] = n;
  m.counted_by = "none: lock operations issue no flushes";
  m.flushes = 0;
  return m;
}

}  // namespace

BenchSpec lock_bench() {
  return {
      .name = "lock",
      .summary = "Lock + unlock: PMEMmutex and PMEMrwlock against pthread mutex and rwlock",
      .seeds = "seed 003 Figure 4.13",
      .axes = {{.name = "lock",
                .names = {"pthread-mutex", "pmemobj-mutex", "pthread-rwlock-rd",
                          "pthread-rwlock-wr", "pmemobj-rwlock-rd", "pmemobj-rwlock-wr"},
                .def = "pthread-mutex,pmemobj-mutex,pthread-rwlock-rd,pthread-rwlock-wr,"
                       "pmemobj-rwlock-rd,pmemobj-rwlock-wr",
                .quick = "pthread-mutex,pmemobj-mutex,pthread-rwlock-rd,pthread-rwlock-wr,"
                         "pmemobj-rwlock-rd,pmemobj-rwlock-wr",
                .help = "Lock kind and how it is taken"},
               sharing_axis(),
               threads_axis()},
      .defaults = {.ops_per_thread = 1000000, .latency_sample = 0.01},
      .quick = {.ops_per_thread = 100000},
      .uses_libpmem = true,
      .footprint = footprint,
      .run = run,
  };
}

}  // namespace pmemids::micro
