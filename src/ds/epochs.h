// Epoch-based reclamation for N threads (DRAM state only; nothing of it is
// persistent). A thread brackets each operation with enter(t) / exit(t) (or an
// EpochGuard); a node it unlinks is retire()d and handed to `free` only once
// no thread can still hold a reference to it.
//
// Rule: the global epoch advances from e to e + 1 only when every thread in an
// operation announced e. A node retired while the global epoch was r was
// unreachable from then on; once the global epoch reaches r + 2, every thread
// that was inside an operation at retirement has left it, so the node is
// freed. Retired nodes wait in a per-thread FIFO (reserved up front; it grows
// only when reclamation is held up); a thread frees its own nodes in enter(),
// before announcing itself, and tries to advance the epoch every
// kAdvanceEvery retirements. A thread preempted inside an operation holds
// the epoch back, so nodes pile up meanwhile: a structure whose node pool runs
// dry calls reclaim() outside its operations until nodes come back.
//
// Cost per operation: one load of the global epoch, one seq_cst store and one
// release store of the thread's own announcement (its own cache line), no
// allocation while the FIFO has room.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace pmemids {

class Epochs {
 public:
  static constexpr uint64_t kAdvanceEvery = 32;
  static constexpr size_t kReserve = 1024;  // retired nodes per thread before the FIFO grows

  explicit Epochs(uint32_t threads) : n_(threads), slots_(std::make_unique<Slot[]>(threads)) {
    for (uint32_t t = 0; t < n_; ++t) slots_[t].retired.reserve(kReserve);
  }

  // Thread t starts an operation: frees what it retired that nobody can see
  // any more, then announces the current epoch.
  template <class Free>
  void enter(uint32_t t, Free&& free) {
    Slot& s = slots_[t];
    const uint64_t g = global_.load(std::memory_order_acquire);
    if (g != s.seen) {
      s.seen = g;
      free_old(s, g, free);
    }
    s.announce.store(g << 1 | 1, std::memory_order_seq_cst);
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
  void exit(uint32_t t) { slots_[t].announce.store(0, std::memory_order_release); }

  // Thread t, outside any operation, needs nodes back: advances the epoch if
  // every thread inside an operation has seen it, then frees what it can.
  template <class Free>
  void reclaim(uint32_t t, Free&& free) {
    try_advance();
    enter(t, free);
    exit(t);
  }

  // Thread t (inside an operation) unlinked `index`.
  void retire(uint32_t t, uint64_t index) {
    Slot& s = slots_[t];
    s.retired.push_back({global_.load(std::memory_order_acquire), index});
    if (++s.since_advance >= kAdvanceEvery) {
      s.since_advance = 0;
      try_advance();
    }
  }

  // Quiescent callers only (no thread inside an operation): frees everything
  // retired.
  template <class Free>
  void free_all(Free&& free) {
    for (uint32_t t = 0; t < n_; ++t) {
      Slot& s = slots_[t];
      for (size_t i = s.head; i < s.retired.size(); ++i) free(s.retired[i].index);
      s.retired.clear();
      s.head = 0;
    }
  }
  // Quiescent callers only: retired nodes not yet freed.
  uint64_t pending() const {
    uint64_t n = 0;
    for (uint32_t t = 0; t < n_; ++t) n += slots_[t].retired.size() - slots_[t].head;
    return n;
  }
  uint32_t threads() const { return n_; }

 private:
  struct Retired {
    uint64_t epoch;
    uint64_t index;
  };
  struct alignas(64) Slot {
    std::atomic<uint64_t> announce{0};  // epoch << 1 | 1 inside an operation, 0 outside
    uint64_t seen = 0;                  // the global epoch at this thread's last enter
    uint64_t since_advance = 0;
    size_t head = 0;  // retired[head..] wait; the prefix is freed
    std::vector<Retired> retired;
  };

  template <class Free>
  void free_old(Slot& s, uint64_t g, Free& free) {
    while (s.head < s.retired.size() && s.retired[s.head].epoch + 2 <= g) {
      free(s.retired[s.head++].index);
    }
    if (s.head == s.retired.size()) {
      s.retired.clear();
      s.head = 0;
    } else if (s.head >= s.retired.size() / 2) {
      s.retired.erase(s.retired.begin(), s.retired.begin() + static_cast<ptrdiff_t>(s.head));
      s.head = 0;
    }
  }

  void try_advance() {
    uint64_t g = global_.load(std::memory_order_acquire);
    for (uint32_t t = 0; t < n_; ++t) {
      const uint64_t a = slots_[t].announce.load(std::memory_order_acquire);
      if ((a & 1) != 0 && a >> 1 != g) return;
    }
    global_.compare_exchange_strong(g, g + 1, std::memory_order_acq_rel);
  }

  alignas(64) std::atomic<uint64_t> global_{0};
  uint32_t n_;
  std::unique_ptr<Slot[]> slots_;
};

// enter() on construction, exit() on destruction.
class EpochGuard {
 public:
  template <class Free>
  EpochGuard(Epochs& e, uint32_t t, Free&& free) : e_(e), t_(t) {
    e_.enter(t_, free);
  }
  ~EpochGuard() { e_.exit(t_); }
  EpochGuard(const EpochGuard&) = delete;
  EpochGuard& operator=(const EpochGuard&) = delete;

 private:
  Epochs& e_;
  uint32_t t_;
};

}  // namespace pmemids
