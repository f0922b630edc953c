// Checking ("shadow") variants of the durable backends, for `pmemids crash`'s
// power-failure model.
//
// ShadowPersistBackend and ShadowTransBackend are PersistBackendT and
// TransBackendT (backend/obj.h) with the Shadow hook: the same code paths as the
// benchmarked backends, plus bookkeeping of what a power failure would lose.
// Shadow keeps an undo map of 64-byte cache lines: for each line with bytes
// stored since its last persist, the bytes it held before the first such store
// and a mask of which bytes were stored. A persist drops every line it covers
// (a flush writes back the whole line). What is recorded:
//   pmem-persist  every write/move/store/store_word before the bytes change, and
//                 a fresh allocation's whole body (it is not durable until
//                 sealed, so a publication before its seal shows up);
//   pmem-trans    every snapshotted range before it changes, dropped when the
//                 outermost transaction ends (libpmemobj flushes logged ranges
//                 and new objects at commit, or restores them on abort), and
//                 store_word as in pmem-persist. New objects need no record: an
//                 interrupted transaction frees them on recovery.
// Only bytes the structure stored are ever restored: libpmemobj's own metadata
// (allocation headers, logs, lanes) is taken as correct.
//
// Every crash_point() call is a moment a power failure may hit (pmem-persist:
// each persist before its flush, each allocation and free; pmem-trans: each
// logged store, allocation, free and commit). When a callback is installed,
// crash_point() numbers the points from 0 and calls it; build_image() then
// writes, into a copy of the pool file, the old bytes of every pending line,
// except lines that `survive` lets through (real caches write back lines early).
//
// Planted faults (tests of the checker only): drop the nth non-seal persist
// (pmem-trans: skip the nth snapshot), or drop every seal (publish before persist).
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

enum class PlantedFault : uint8_t { kNone, kSkipPersist, kSkipSeal };

class Shadow {
 public:
  static constexpr bool kActive = true;

  void stored(const void* p, size_t n) { capture(p, n, false); }
  void allocated(const void* p, size_t n) { capture(p, n, false); }
  void logged(const void* p, size_t n) { capture(p, n, true); }
  bool keep_persist(bool seal) {
    if (!on_point_) return true;
    switch (fault_) {
      case PlantedFault::kNone:
        return true;
      case PlantedFault::kSkipSeal:
        return !seal;
      case PlantedFault::kSkipPersist:
        return seal || persists_++ != fault_nth_;
    }
    return true;
  }
  void persisted(const void* p, size_t n) {
    if (n == 0) return;
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    for (uintptr_t l = a / kCacheLine; l <= (a + n - 1) / kCacheLine; ++l) made_durable(l);
  }
  void tx_end() {
    for (uintptr_t l : tx_lines_) made_durable(l);
    tx_lines_.clear();
  }
  void crash_point() {
    if (on_point_) on_point_(points_++);
  }
  // flush + fence split (concurrent structures): a flushed line becomes
  // durable, as it was when flushed, at the flushing thread's next fence —
  // unless a later write-back of the line is durable already (another thread
  // flushed and fenced it after this flush): an older write-back then changes
  // nothing.
  void flushed(const void* p, size_t n) {
    if (n == 0) return;
    std::vector<Flushed>& mine = flushed_[std::this_thread::get_id()];
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    for (uintptr_t l = a / kCacheLine; l <= (a + n - 1) / kCacheLine; ++l) {
      if (lines_.count(l) == 0) continue;
      Flushed f{l, ++clock_, {}};
      std::memcpy(f.bytes, reinterpret_cast<const void*>(l * kCacheLine), kCacheLine);
      mine.push_back(f);
    }
  }
  void fenced() {
    auto it = flushed_.find(std::this_thread::get_id());
    if (it == flushed_.end()) return;
    for (const Flushed& f : it->second) {
      auto line = lines_.find(f.line);
      if (line == lines_.end()) continue;
      uint64_t& durable = durable_at_[f.line];
      if (durable > f.time) continue;  // a later write-back is durable
      durable = f.time;
      // Bytes stored after the flush stay pending, with the flushed bytes as
      // what a crash leaves.
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
  // A sync point: the multi-thread checker's scheduler (crash/turns.h) may
  // switch threads here.
  void sync_point() {
    if (on_sync_) on_sync_();
  }
  void on_sync(std::function<void()> f) { on_sync_ = std::move(f); }

  // Installs the callback (crash points are counted from the next one) and a
  // planted fault.
  void arm(std::function<void(uint64_t)> on_point, PlantedFault fault = PlantedFault::kNone,
           uint64_t nth = 0) {
    on_point_ = std::move(on_point);
    fault_ = fault;
    fault_nth_ = nth;
  }
  void disarm() { on_point_ = nullptr; }
  uint64_t points() const { return points_; }
  size_t pending_lines() const { return lines_.size(); }

  // Writes the pre-crash bytes of every pending line into the file `fd`, a copy
  // of the pool mapped at `base`. Each line survives (keeps its new bytes) with
  // probability `survive`, drawn from `seed`. Returns the lines restored.
  size_t build_image(int fd, const void* base, size_t pool_bytes, double survive,
                     uint64_t seed) const {
    std::vector<uintptr_t> keys;
    keys.reserve(lines_.size());
    for (const auto& kv : lines_) keys.push_back(kv.first);
    std::sort(keys.begin(), keys.end());
    Rng rng(seed);
    const uintptr_t b = reinterpret_cast<uintptr_t>(base);
    size_t restored = 0;
    for (uintptr_t l : keys) {
      if (survive > 0 && rng.uniform01() < survive) continue;
      const Line& line = lines_.at(l);
      const uintptr_t start = l * kCacheLine;
      for (uint32_t i = 0; i < kCacheLine;) {
        if ((line.mask >> i & 1) == 0) {
          ++i;
          continue;
        }
        uint32_t j = i;
        while (j < kCacheLine && (line.mask >> j & 1) != 0) ++j;
        const uintptr_t addr = start + i;
        if (addr < b || addr + (j - i) > b + pool_bytes) {
          throw RuntimeError("crash image: a recorded store lies outside the pool");
        }
        if (pwrite(fd, line.old + i, j - i, static_cast<off_t>(addr - b)) !=
            static_cast<ssize_t>(j - i)) {
          throw RuntimeError("crash image: cannot write the pool copy");
        }
        i = j;
      }
      ++restored;
    }
    return restored;
  }

 private:
  struct Line {
    uint64_t mask = 0;  // bytes stored since the last persist
    uint8_t old[kCacheLine];
  };

  void capture(const void* p, size_t n, bool in_tx) {
    if (n == 0) return;
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    for (uintptr_t l = a / kCacheLine; l <= (a + n - 1) / kCacheLine; ++l) {
      const uintptr_t start = l * kCacheLine;
      const uintptr_t lo = std::max(start, a), hi = std::min(start + kCacheLine, a + n);
      Line& line = lines_[l];
      const auto* cur = reinterpret_cast<const uint8_t*>(start);
      for (uintptr_t x = lo; x < hi; ++x) {
        const uint32_t i = static_cast<uint32_t>(x - start);
        if ((line.mask >> i & 1) == 0) {
          line.old[i] = cur[i];
          line.mask |= uint64_t{1} << i;
        }
      }
      if (in_tx) tx_lines_.insert(l);
    }
  }

  struct Flushed {
    uintptr_t line;
    uint64_t time;              // when it was written back (clock_)
    uint8_t bytes[kCacheLine];  // the line as it was written back
  };

  // A line's content as of now is durable.
  void made_durable(uintptr_t l) {
    lines_.erase(l);
    durable_at_[l] = ++clock_;
  }

  std::unordered_map<uintptr_t, Line> lines_;                // line number -> pre-crash bytes
  std::map<std::thread::id, std::vector<Flushed>> flushed_;  // flushed, not yet fenced
  std::unordered_map<uintptr_t, uint64_t> durable_at_;       // line -> time of its durable content
  uint64_t clock_ = 0;                                       // orders write-backs
  std::function<void()> on_sync_;
  std::unordered_set<uintptr_t> tx_lines_;  // lines logged in the running transaction
  std::function<void(uint64_t)> on_point_;
  uint64_t points_ = 0;
  PlantedFault fault_ = PlantedFault::kNone;
  uint64_t fault_nth_ = 0;
  uint64_t persists_ = 0;
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
