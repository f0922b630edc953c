// Checking ("shadow") variants of the durable backends, for `pmemids crash`'s
// power-failure model.
//
// ShadowPersistBackend and ShadowTransBackend are PersistBackendT and
// TransBackendT (backend/obj.h) with the Shadow hook: the very code paths of the
// benchmarked backends (the hook only observes, and may drop a write-back when
// a fault is planted), plus bookkeeping of what a power failure would lose. The
// model follows the persistence domain of the installed policy (pmem/policy.h),
// the same one the backend's flush layer obeys:
//
// ADR (caches volatile). Shadow keeps an undo map of 64-byte cache lines: for
// each line with bytes stored since it was last durable, the bytes it held
// before the first such store and a mask of the bytes stored. A write-back
// (flushed) records, for the calling thread, the line as it is then; that
// thread's next fence (fenced) makes that content durable: the entry is
// dropped, or, if bytes changed after the write-back, keeps just those with
// the written-back bytes as what a crash leaves. Write-backs are ordered by a
// clock: when another thread's later write-back of the line is durable
// already, an older one fenced afterwards changes nothing. What is recorded:
//   pmem-persist  every write/move/store/store_word before the bytes change, and
//                 a fresh allocation's whole body (it is not durable until
//                 sealed, so a publication before its seal shows up);
//   pmem-trans    every snapshotted range before it changes, dropped when the
//                 outermost transaction ends (libpmemobj flushes logged ranges
//                 and new objects at commit, or restores them on abort), and
//                 store_word as in pmem-persist. New objects need no record: an
//                 interrupted transaction frees them on recovery.
// At a crash, every pending line (written back or not, but not yet fenced)
// returns to its durable bytes, except lines `survive` lets through (real caches
// write lines back early).
//
// eADR (caches persistent). Every store executed before the crash point
// survives. With store-buffer loss, a suffix of the stores issued since the
// last fence is lost (x86 retires stores to the cache in order): Shadow logs
// those stores with the bytes they overwrote and a fence clears the log;
// libpmemobj fences before a snapshotted range may change and at commit.
//
// Only bytes the structure stored are ever restored: libpmemobj's own metadata
// (allocation headers, logs, lanes) is taken as correct.
//
// Every crash_point() call is a moment a power failure may hit (pmem-persist:
// each write-back site, after the stores it covers, each allocation and free;
// pmem-trans: each logged store, allocation, free and commit). When a callback
// is installed, crash_point() numbers the points from 0 and calls it;
// build_image() then writes, into a copy of the pool file, the bytes the
// failure takes back.
//
// Planted faults (tests of the checker only): drop the nth non-seal write-back,
// drop every seal (publish before persist), skip the nth snapshot (pmem-trans),
// or drop every write-back and keep the fences (a design correct only under
// eADR).
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "backend/obj.h"
#include "errors.h"
#include "workload/generators.h"

namespace pmemids {

enum class PlantedFault : uint8_t { kNone, kSkipPersist, kSkipSeal, kSkipSnapshot, kSkipFlushes };

class Shadow {
 public:
  static constexpr bool kActive = true;

  Shadow() : adr_(installed_policy().domain.domain == Domain::kAdr) {}

  void stored(const void* p, size_t n) {
    if (adr_) {
      capture(p, n, false);
    } else {
      log_store(p, n);
    }
  }
  void allocated(const void* p, size_t n) {
    if (adr_) capture(p, n, false);
  }
  void logged(const void* p, size_t n) {
    if (adr_) {
      capture(p, n, true);
    } else {
      fenced();
      log_store(p, n);
    }
  }
  bool keep_flush(bool seal) {
    if (!on_point_) return true;
    switch (fault_) {
      case PlantedFault::kSkipSeal:
        return !seal;
      case PlantedFault::kSkipPersist:
        return seal || flushes_++ != fault_nth_;
      case PlantedFault::kSkipFlushes:
        return false;
      default:
        return true;
    }
  }
  bool keep_snapshot() {
    return !on_point_ || fault_ != PlantedFault::kSkipSnapshot || snapshots_++ != fault_nth_;
  }
  // A write-back by the calling thread: the line as it is now becomes durable
  // at that thread's next fence (ADR).
  void flushed(const void* p, size_t n) {
    if (!adr_ || n == 0) return;
    std::vector<Flushed>& mine = flushed_[std::this_thread::get_id()];
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    for (uintptr_t l = a / kCacheLine; l <= (a + n - 1) / kCacheLine; ++l) {
      if (lines_.count(l) == 0) continue;  // nothing stored since it was last durable
      Flushed f{l, ++clock_, {}};
      std::memcpy(f.bytes, reinterpret_cast<const void*>(l * kCacheLine), kCacheLine);
      mine.push_back(f);
    }
  }
  void fenced() {
    if (!adr_) {
      log_.clear();
      return;
    }
    auto it = flushed_.find(std::this_thread::get_id());
    if (it == flushed_.end()) return;
    for (const Flushed& f : it->second) {
      auto line = lines_.find(f.line);
      if (line == lines_.end()) continue;
      uint64_t& durable = durable_at_[f.line];
      if (durable > f.time) continue;  // a later write-back is durable
      durable = f.time;
      // Bytes changed after the write-back stay pending, with the written-back
      // bytes as what a crash leaves.
      const auto* cur = reinterpret_cast<const uint8_t*>(f.line * kCacheLine);
      uint64_t mask = 0;
      for (uint32_t i = 0; i < kCacheLine; ++i) {
        if (cur[i] != f.bytes[i]) mask |= uint64_t{1} << i;
      }
      if (mask == 0) {
        lines_.erase(line);
      } else {
        line->second.mask = mask;
        std::memcpy(line->second.old, f.bytes, kCacheLine);
      }
    }
    it->second.clear();
  }
  void tx_end() {
    if (!adr_) {
      log_.clear();
      return;
    }
    for (uintptr_t l : tx_lines_) made_durable(l);
    tx_lines_.clear();
  }
  void crash_point() {
    if (on_point_) on_point_(points_++);
  }
  // A sync point: the multi-thread checker's scheduler (crash/turns.h) may
  // switch threads here.
  void sync_point() {
    if (on_sync_) on_sync_();
  }
  void on_sync(std::function<void()> f) { on_sync_ = std::move(f); }

  // Installs the callback (crash points are counted from the next one), a
  // planted fault, and, under eADR, whether the stores since the last fence
  // can be lost (store-buffer loss).
  void arm(std::function<void(uint64_t)> on_point, PlantedFault fault = PlantedFault::kNone,
           uint64_t nth = 0, bool store_buffer_loss = false) {
    on_point_ = std::move(on_point);
    fault_ = fault;
    fault_nth_ = nth;
    store_buffer_loss_ = store_buffer_loss;
    log_.clear();
  }
  void disarm() { on_point_ = nullptr; }
  uint64_t points() const { return points_; }
  bool adr() const { return adr_; }

  // Writes the bytes a power failure now would take back into the file `fd`, a
  // copy of the pool mapped at `base`: under ADR the durable bytes of every
  // pending line, each line surviving (keeping its new bytes) with probability
  // `survive`; under eADR with store-buffer loss, the bytes overwritten by a
  // suffix (of random length, at least one) of the stores since the last fence.
  // Random draws come from `seed`. Returns the lines, or stores, taken back.
  size_t build_image(int fd, const void* base, size_t pool_bytes, double survive,
                     uint64_t seed) const {
    Rng rng(seed);
    const Image img{fd, reinterpret_cast<uintptr_t>(base), pool_bytes};
    if (!adr_) {
      if (log_.empty()) return 0;
      const size_t lost = 1 + static_cast<size_t>(rng.below(log_.size()));
      for (size_t k = 0; k < lost; ++k) {
        const Store& st = log_[log_.size() - 1 - k];
        img.put(st.addr, st.old.data(), st.old.size());
      }
      return lost;
    }
    std::vector<uintptr_t> keys;
    keys.reserve(lines_.size());
    for (const auto& kv : lines_) keys.push_back(kv.first);
    std::sort(keys.begin(), keys.end());
    size_t restored = 0;
    for (uintptr_t l : keys) {
      if (survive > 0 && rng.uniform01() < survive) continue;
      const Line& line = lines_.at(l);
      const uint8_t* bytes = line.old;
      const uint64_t mask = line.mask;
      for (uint32_t i = 0; i < kCacheLine;) {
        if ((mask >> i & 1) == 0) {
          ++i;
          continue;
        }
        uint32_t j = i;
        while (j < kCacheLine && (mask >> j & 1) != 0) ++j;
        img.put(l * kCacheLine + i, bytes + i, j - i);
        i = j;
      }
      ++restored;
    }
    return restored;
  }

 private:
  struct Line {
    uint64_t mask = 0;  // bytes stored since the line was last durable
    uint8_t old[kCacheLine];
  };
  struct Flushed {
    uintptr_t line;
    uint64_t time;              // when it was written back (clock_)
    uint8_t bytes[kCacheLine];  // the line as it was written back
  };
  struct Store {
    uintptr_t addr;
    std::vector<uint8_t> old;
  };
  struct Image {
    int fd;
    uintptr_t base;
    size_t bytes;
    void put(uintptr_t addr, const void* src, size_t n) const {
      if (addr < base || addr + n > base + bytes) {
        throw RuntimeError("crash image: a recorded store lies outside the pool");
      }
      if (pwrite(fd, src, n, static_cast<off_t>(addr - base)) != static_cast<ssize_t>(n)) {
        throw RuntimeError("crash image: cannot write the pool copy");
      }
    }
  };

  void capture(const void* p, size_t n, bool in_tx) {
    if (n == 0) return;
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    for (uintptr_t l = a / kCacheLine; l <= (a + n - 1) / kCacheLine; ++l) {
      const uintptr_t start = l * kCacheLine;
      const uintptr_t lo = std::max(start, a), hi = std::min(start + kCacheLine, a + n);
      Line& line = lines_[l];
      uint64_t& mask = line.mask;
      uint8_t* keep = line.old;
      const auto* cur = reinterpret_cast<const uint8_t*>(start);
      for (uintptr_t x = lo; x < hi; ++x) {
        const uint32_t i = static_cast<uint32_t>(x - start);
        if ((mask >> i & 1) == 0) {
          keep[i] = cur[i];
          mask |= uint64_t{1} << i;
        }
      }
      if (in_tx) tx_lines_.insert(l);
    }
  }
  // A line's content as of now is durable.
  void made_durable(uintptr_t l) {
    lines_.erase(l);
    durable_at_[l] = ++clock_;
  }
  void log_store(const void* p, size_t n) {
    if (!store_buffer_loss_ || !on_point_ || n == 0) return;
    const auto* b = static_cast<const uint8_t*>(p);
    log_.push_back(Store{reinterpret_cast<uintptr_t>(p), std::vector<uint8_t>(b, b + n)});
  }

  bool adr_;
  std::unordered_map<uintptr_t, Line> lines_;  // ADR: line number -> durable bytes
  // ADR: per thread, its write-backs since its last fence.
  std::map<std::thread::id, std::vector<Flushed>> flushed_;
  std::unordered_map<uintptr_t, uint64_t> durable_at_;  // ADR: line -> time of its durable content
  uint64_t clock_ = 0;                                  // ADR: orders write-backs
  std::unordered_set<uintptr_t> tx_lines_;  // ADR: lines logged in the running transaction
  std::vector<Store> log_;                  // eADR: stores since the last fence
  std::function<void()> on_sync_;
  std::function<void(uint64_t)> on_point_;
  uint64_t points_ = 0;
  PlantedFault fault_ = PlantedFault::kNone;
  uint64_t fault_nth_ = 0;
  uint64_t flushes_ = 0;
  uint64_t snapshots_ = 0;
  bool store_buffer_loss_ = false;
};

using ShadowPersistBackend = PersistBackendT<Shadow>;
using ShadowTransBackend = TransBackendT<Shadow>;

// The benchmarked backend a checking backend stands for (used to reopen images).
template <class B>
struct PlainOf {
  using type = B;
};
template <>
struct PlainOf<ShadowPersistBackend> {
  using type = PersistBackend;
};
template <>
struct PlainOf<ShadowTransBackend> {
  using type = TransBackend;
};

// The checking backend of a benchmarked durable backend.
template <class B>
struct ShadowOf;
template <>
struct ShadowOf<PersistBackend> {
  using type = ShadowPersistBackend;
};
template <>
struct ShadowOf<TransBackend> {
  using type = ShadowTransBackend;
};

}  // namespace pmemids
