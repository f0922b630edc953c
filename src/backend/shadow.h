// Checking ("shadow") variants of the durable backends, for `pmemids crash`'s
// power-failure model.
//
// ShadowPersistBackend and ShadowTransBackend are PersistBackendT and
// TransBackendT (backend/obj.h) with the Shadow hook: the very code paths of the
// benchmarked backends (the hook only observes, and may drop a write-back or
// a report when a fault is planted), plus bookkeeping of what a power failure
// would lose. The model follows the persistence domain of the installed policy
// (pmem/policy.h), the same one the backend's flush layer obeys:
//
// ADR (caches volatile). What is durable derives from what was written back
// and fenced, never from what the backend was told: Shadow keeps a durable
// image of the pool (attach() copies it when the pool is opened: pmemobj_create
// and pmemobj_open leave every byte durable). A write-back (flushed) records,
// for the calling thread, the lines it covers as they are then; that thread's
// next fence (fenced) copies them into the durable image. The write-backs seen
// are pmemids' own, reported by the flush layer (backend/flusher.h) line by
// line as it issues them (non-temporal copies included), and
// libpmemobj's, reported by the libpmem interposition (pmem/libpmem_hooks.h):
// snapshots, the ranges a commit flushes (logged ranges, new objects), zeroed
// allocations, pmemobj_memcpy_persist and friends. Write-backs are ordered by
// a clock: when another thread's later write-back of a line is durable
// already, an older one fenced afterwards changes nothing. At a crash point
// the image is the live pool (build_image() is given a copy of the file) in
// which every line of the structure's objects (the ranges passed in: the user
// bytes of every allocated object, the root included) that differs from the
// durable image returns to its durable bytes, except the lines that `survive`
// lets through (real caches write lines back early): whole as they are now
// (`grain` 64), or (`grain` 8) cut between the stores made to them, in their
// order, the last store kept in part by 8-byte word (x86 writes a line back
// whole, at any moment: a line holds a prefix of its stores, never a later
// store without an earlier one; independent words would make designs that
// order a flag after its data in one line fail where hardware cannot).
// So a store the backend never saw (a raw memcpy, a field assigned directly,
// a range written in a transaction without a snapshot) is lost unless a
// write-back and a fence covered it. Cost: the durable image (one copy of the
// pool), 64 bytes per line written back (and, at grain 8, per line stored),
// and, per image, one comparison of the objects' bytes with the durable image.
//
// eADR (caches persistent). Every store executed before the crash point
// survives. With store-buffer loss, a suffix of the stores issued since the
// last fence is lost (x86 retires stores to the cache in order): Shadow logs
// the stores the backend reports (stored, logged) with the bytes they
// overwrote and a fence clears the log; libpmemobj fences before a snapshotted
// range may change and at commit.
//
// Trusted: libpmemobj's own metadata (pool header, heap and allocation
// headers, undo and redo logs, lanes) is taken from the live pool, as it
// stands at the crash point: only bytes inside objects are ever restored, so a
// bug inside libpmemobj is out of scope. An object a running transaction
// allocated is not listed yet (its bytes do not matter: recovery frees it).
//
// Every crash_point() call is a moment a power failure may hit (pmem-persist:
// each write-back site, after the stores it covers, each allocation, after it
// returns and before the caller stores, and each free; pmem-trans: each logged
// store, allocation and free, the moment before the commit, and after it).
// When a callback is installed, crash_point() numbers the points from 0 and
// calls it; build_image() then writes, into a copy of the pool file, the bytes
// the failure takes back.
//
// Planted faults (tests of the checker only): drop the nth non-seal write-back,
// drop every seal (publish before persist), make the nth snapshot a raw store
// (pmem-trans: not logged, not reported), make the nth store()/store_word() a
// raw assignment (not reported, not written back), or drop every write-back
// and keep the fences (a design correct only under eADR).
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <map>
#include <thread>
#include <unordered_map>
#include <vector>

#include "backend/obj.h"
#include "errors.h"
#include "pmem/libpmem_hooks.h"
#include "workload/generators.h"

namespace pmemids {

enum class PlantedFault : uint8_t {
  kNone,
  kSkipPersist,
  kSkipSeal,
  kSkipSnapshot,
  kSkipFlushes,
  kRawStore
};

class Shadow final : public LibFlushObserver {
 public:
  static constexpr bool kActive = true;

  Shadow() : model_(domain_info(installed_policy().domain.domain).crash_model) {}
  ~Shadow() {
    if (lib_observer() == this) set_lib_observer(nullptr);
  }
  Shadow(const Shadow&) = delete;
  Shadow& operator=(const Shadow&) = delete;

  // The pool [base, base + bytes), every byte of it durable now. Under ADR,
  // copies it as the durable image and listens to libpmemobj's write-backs.
  void attach(const void* base, size_t bytes) {
    base_ = reinterpret_cast<uintptr_t>(base);
    bytes_ = bytes;
    if (!model_.unflushed_lines_lost) return;
    durable_.assign(static_cast<const uint8_t*>(base), static_cast<const uint8_t*>(base) + bytes);
    set_lib_observer(this);
  }

  // Under ADR with grain 8: record each line's states between the stores the
  // backend reports (so that an image may cut a line between them). Set
  // before the run; costs a 64-byte copy per line stored.
  void track_line_states(bool on) { track_states_ = on && model_.unflushed_lines_lost; }

  // Stores the backend reports: under eADR, logged for store-buffer loss.
  // Under ADR the durable image decides; with track_line_states, the lines a
  // store changes are recorded once it is made (at the next call).
  void stored(const void* p, size_t n) {
    if (!model_.unflushed_lines_lost) return log_store(p, n);
    settle();
    if (track_states_) pending_ = {p, n};
  }
  void logged(const void* p, size_t n) {
    if (model_.unflushed_lines_lost) return stored(p, n);
    fenced();
    log_store(p, n);
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
  bool keep_store() {
    return !on_point_ || fault_ != PlantedFault::kRawStore || stores_++ != fault_nth_;
  }
  // A write-back by the calling thread: the lines of [p, p + n) inside the
  // pool, as they are now, become durable at that thread's next fence (ADR).
  void flushed(const void* p, size_t n) {
    if (!model_.unflushed_lines_lost || n == 0) return;
    settle();
    const Span s = in_pool(reinterpret_cast<uintptr_t>(p), n);
    if (s.lo >= s.hi) return;
    std::vector<Flushed>& mine = flushed_[std::this_thread::get_id()];
    for (uintptr_t l = s.lo / kCacheLine; l <= (s.hi - 1) / kCacheLine; ++l) {
      mine.push_back({l, ++clock_, line_now(l * kCacheLine)});
    }
  }
  void fenced() {
    if (!model_.unflushed_lines_lost) {
      log_.clear();
      return;
    }
    settle();
    auto it = flushed_.find(std::this_thread::get_id());
    if (it == flushed_.end()) return;
    for (const Flushed& f : it->second) {
      uint64_t& durable = durable_at_[f.line];
      if (durable > f.time) continue;  // a later write-back is durable
      durable = f.time;
      if (auto h = states_.find(f.line * kCacheLine); h != states_.end()) {
        std::erase_if(h->second, [&](const LineState& st) { return st.time <= f.time; });
      }
      const Span s = in_pool(f.line * kCacheLine, kCacheLine);
      std::memcpy(durable_.data() + (s.lo - base_), f.bytes.data() + (s.lo - f.line * kCacheLine),
                  s.hi - s.lo);
    }
    it->second.clear();
  }
  void tx_end() {
    if (!model_.unflushed_lines_lost) log_.clear();
  }
  void lib_flushed(const void* p, size_t n) override { flushed(p, n); }
  void lib_fenced() override { fenced(); }
  void crash_point() {
    settle();
    if (on_point_) on_point_(points_++);
  }
  // A sync point: the multi-thread checker's scheduler (crash/turns.h) may
  // switch threads here.
  void sync_point() {
    settle();
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

  // Writes the bytes a power failure now would take back into the file `fd`, a
  // copy of the attached pool: under ADR, inside `objects`, the durable bytes
  // of every line that differs from them, except that with probability
  // `survive` a line was written back early: whole, as it is now (`grain`
  // 64), or (`grain` 8) as it stood after a random one of the stores made to
  // it since its durable write-back (track_line_states; the line as it is now
  // counts as the last), each 8-byte word that store changed taken before or
  // after it at random (a copy's words are stored in no promised order), so
  // a line holds a prefix of its stores; under eADR with store-buffer loss, the bytes overwritten
  // by a suffix (of random length, at least one) of the stores since the last fence. Random draws
  // come from `seed`. Returns what it took back: lines (8-byte words of a line cut between its
  // stores), or stores.
  size_t build_image(int fd, const std::vector<ByteRange>& objects, double survive, uint32_t grain,
                     uint64_t seed) const {
    Rng rng(seed);
    const Image img{fd, base_, bytes_};
    if (!model_.unflushed_lines_lost) {
      if (log_.empty()) return 0;
      const size_t lost = 1 + static_cast<size_t>(rng.below(log_.size()));
      for (size_t k = 0; k < lost; ++k) {
        const Store& st = log_[log_.size() - 1 - k];
        img.put(st.addr, st.old.data(), st.old.size());
      }
      return lost;
    }
    if (grain != 8 && grain != kCacheLine) throw UsageError("crash image: grain must be 8 or 64");
    size_t restored = 0;
    for (const ByteRange& r : objects) {
      const auto [a, e] = in_pool(reinterpret_cast<uintptr_t>(r.p), r.n);
      // Lines overlapping the object; only its bytes change.
      for (uintptr_t l = a / kCacheLine * kCacheLine; l < e; l += kCacheLine) {
        const uintptr_t lo = std::max(l, a), hi = std::min(l + kCacheLine, e);
        const uint8_t* durable = durable_.data() + (lo - base_);
        if (std::memcmp(reinterpret_cast<const void*>(lo), durable, hi - lo) == 0) continue;
        const bool early = survive > 0 && rng.uniform01() < survive;
        if (early && grain == kCacheLine) continue;
        if (!early) {
          img.put(lo, durable, hi - lo);
          ++restored;
          continue;
        }
        const LineBytes cut = cut_line(l, rng);
        restored += put_changed(img, lo, hi, cut.data() + (lo - l));
      }
    }
    return restored;
  }

 private:
  using LineBytes = std::array<uint8_t, kCacheLine>;
  struct LineState {
    uint64_t time;    // when the store was made (clock_)
    LineBytes bytes;  // the line just after it
  };
  struct Flushed {
    uintptr_t line;
    uint64_t time;    // when it was written back (clock_)
    LineBytes bytes;  // the line as it was written back
  };
  // A byte range [lo, hi) of the address space (empty when lo >= hi).
  struct Span {
    uintptr_t lo, hi;
  };
  // [p, p + n) clipped to the attached pool.
  Span in_pool(uintptr_t p, uint64_t n) const {
    return {std::max(p, base_), std::min(p + n, base_ + bytes_)};
  }
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

  // Records the lines the last reported store changed, as they are now.
  void settle() {
    if (pending_.n == 0) return;
    const auto [a, e] = in_pool(reinterpret_cast<uintptr_t>(pending_.p), pending_.n);
    pending_ = {};
    const uint64_t now = ++clock_;
    for (uintptr_t l = a / kCacheLine; a < e && l <= (e - 1) / kCacheLine; ++l) {
      std::vector<LineState>& h = states_[l * kCacheLine];
      if (h.size() == kMaxLineStates) h.erase(h.begin());  // fewer cuts, never a false one
      h.push_back({now, line_now(l * kCacheLine)});
    }
  }
  LineBytes line_now(uintptr_t l) const {
    LineBytes b{};
    const Span s = in_pool(l, kCacheLine);
    std::memcpy(b.data() + (s.lo - l), reinterpret_cast<const void*>(s.lo), s.hi - s.lo);
    return b;
  }
  // Line l as a write-back at a random moment since its durable one left it:
  // after store k of its recorded states (the line as it is now is the last),
  // each 8-byte word store k changed taken from before or after it.
  LineBytes cut_line(uintptr_t l, Rng& rng) const {
    const LineBytes live = line_now(l);
    LineBytes before = live;  // the durable line
    const Span s = in_pool(l, kCacheLine);
    std::memcpy(before.data() + (s.lo - l), durable_.data() + (s.lo - base_), s.hi - s.lo);
    std::vector<const LineBytes*> after;
    const auto durable_at = durable_at_.find(l / kCacheLine);
    const uint64_t since = durable_at == durable_at_.end() ? 0 : durable_at->second;
    if (auto h = states_.find(l); h != states_.end()) {
      for (const LineState& st : h->second) {
        if (st.time > since) after.push_back(&st.bytes);
      }
    }
    after.push_back(&live);
    const size_t k = static_cast<size_t>(rng.below(after.size()));
    if (k > 0) before = *after[k - 1];
    LineBytes out = *after[k];
    for (size_t w = 0; w < kCacheLine; w += 8) {
      if (std::memcmp(out.data() + w, before.data() + w, 8) != 0 && rng.uniform01() < 0.5) {
        std::memcpy(out.data() + w, before.data() + w, 8);
      }
    }
    return out;
  }
  // Writes [lo, hi) of `want` (bytes for lo onwards) where it differs from the
  // live pool; returns the 8-byte words written.
  static size_t put_changed(const Image& img, uintptr_t lo, uintptr_t hi, const uint8_t* want) {
    size_t n = 0;
    for (uintptr_t w = lo; w < hi;) {
      const uintptr_t end = std::min((w / 8 + 1) * 8, hi);
      if (std::memcmp(reinterpret_cast<const void*>(w), want + (w - lo), end - w) != 0) {
        img.put(w, want + (w - lo), end - w);
        ++n;
      }
      w = end;
    }
    return n;
  }

  void log_store(const void* p, size_t n) {
    if (!store_buffer_loss_ || !on_point_ || n == 0) return;
    const auto* b = static_cast<const uint8_t*>(p);
    log_.push_back(Store{reinterpret_cast<uintptr_t>(p), std::vector<uint8_t>(b, b + n)});
  }

  const PowerFailure model_;  // the installed domain's (pmem/domain.h)
  uintptr_t base_ = 0;
  size_t bytes_ = 0;
  std::vector<uint8_t> durable_;  // ADR: the durable image of the pool
  // ADR: per thread, its write-backs since its last fence.
  std::map<std::thread::id, std::vector<Flushed>> flushed_;
  std::unordered_map<uintptr_t, uint64_t> durable_at_;  // ADR: line -> time of its durable content
  static constexpr size_t kMaxLineStates = 64;
  // ADR, track_line_states: line address -> its states after each store since
  // its durable write-back; the store not recorded yet.
  std::unordered_map<uintptr_t, std::vector<LineState>> states_;
  ByteRange pending_{};
  bool track_states_ = false;
  uint64_t clock_ = 0;      // ADR: orders write-backs
  std::vector<Store> log_;  // eADR: stores since the last fence
  std::function<void()> on_sync_;
  std::function<void(uint64_t)> on_point_;
  uint64_t points_ = 0;
  PlantedFault fault_ = PlantedFault::kNone;
  uint64_t fault_nth_ = 0;
  uint64_t flushes_ = 0;
  uint64_t snapshots_ = 0;
  uint64_t stores_ = 0;
  bool store_buffer_loss_ = false;
};

using ShadowPersistBackend = PersistBackendT<Shadow>;
using ShadowTransBackend = TransBackendT<Shadow>;

}  // namespace pmemids
