// The multi-producer multi-consumer ring buffers of seed 002 section 5 (after
// Krizhanovsky), operation set `queue`: one design, three persistence kinds.
//
//   ringbuffer-volatile  no persistence (dram, pmem-volatile)
//   ringbuffer-tx        each push's slot write and each pop's consumption in
//                        one libpmemobj transaction (pmem-persist; ADR and eADR)
//   ringbuffer-txfree    no transaction and no write-back: the slot's stores,
//                        a fence, its stamp, a fence (the linearisation point
//                        made durable); correct only under eADR (under ADR
//                        only with --unsafe, a negative control)
//
// State: global head (next push position) and tail (next pop position), 64-bit
// and never wrapping, each on its own cache line; per thread a record {head,
// tail} on its own line holding the position it is pushing / popping, or
// kIdle; `queueslots` slots of `slotsize` bytes, slot p % Q holding element p
// as {id, payload} (payload: value_size bytes, value_size + 8 <= slotsize);
// the durable kinds add one stamp per slot, each on its own cache line (so
// neighbouring positions' producers do not share a line). Everything lies in
// one backend object allocated at creation
// (indices, not pointers). last_head / last_tail, the oldest push / pop still
// in flight, are recomputed in DRAM from the global counters and the thread
// records (global counter first, then the records, so no claimed position is
// missed) and cached in DRAM.
//
// push: claim position p = head by CAS, after publishing p in the thread's
// record, unless the ring is full (p >= tail + Q: returns false at once);
// wait until every pop below p - Q + 1 has finished (p < last_tail + Q);
// write the slot; record kIdle. pop is symmetric: claim p = tail unless the
// ring is empty (p >= head: returns false), wait until every push up to p has
// finished (p < last_head), copy the slot out, record kIdle.
// Claiming by CAS after the full / empty check, where the original advances
// the counters by fetch-and-add unconditionally, is deliberate: an operation
// then only ever waits for one that has already claimed its position and is
// running, never for one that has not begun, so a pop of an empty ring (or a
// push to a full one) returns instead of blocking, and no run can hang at its
// end (docs/design.md, "Blocking"). With claims as linearisation points the
// ring is a linearisable FIFO queue of capacity Q.
//
// Durability (tx, txfree). Only the slots are durable state; counters and
// records are rebuilt at recovery, so no transaction ever logs a shared
// counter (the artifact's defect: one thread's rollback would clobber the
// others' increments). A slot's stamp says what it holds: 0 never written,
// p + 1 element p (live), (p + 1) | kConsumed element p popped. A push
// writes {id, payload} and stamp p + 1 as one failure-atomic step before it
// returns; a pop stamps its slot consumed before it returns. Under eADR with
// --flush-cold on, a push also writes its slot back (seed 002's Figure 15: the
// slots have low temporal locality); the commit or the stamp's fence orders it.
// What a crash can leave: pushes that claimed a position but never stamped it
// (holes), pops that claimed a position but never stamped it consumed, live
// elements below a completed pop. Because a push of p waited for the pop of
// p - Q and a pop of p waited for every push up to p, the slots alone tell
// the state: let C be the highest position known popped (a consumed stamp p
// gives p + 1, a live stamp p >= Q gives p + 1 - Q, the pop before its slot's
// reuse); every live element below C belongs to a pop that was claimed (it
// is applied), and the live elements above lie in [C, C + Q).
// Recovery (consolidation): stamps the live elements below C consumed, then
// moves the live elements down to consecutive positions from the lowest one,
// oldest first, each move one transaction (so a crash inside recovery leaves
// it to redo: each step is idempotent), and sets tail and head around them.
// An in-flight push is thus applied if its stamp is durable and dropped
// otherwise, an in-flight pop applied if a later pop or a reuse of its slot
// completed and rolled back otherwise: each at most once, no duplicates, no
// holes, acknowledged pushes minus acknowledged pops. Positions are 64-bit
// throughout (the artifact narrowed them to int), and a ring with no
// completed pop recovers like any other.
//
// Synchronisation: internal; worker t uses handle(t) (its thread record).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "backend/backend.h"
#include "ds/common.h"

namespace pmemids {

enum class RingKind : uint8_t { kVolatile, kTx, kTxFree };

template <Backend B, RingKind K>
class RingBuffer {
  struct Root {
    RootHeader hdr;
    typename B::template Ptr<char> ring;
    uint64_t slots;
    uint64_t slot_bytes;
    uint64_t threads;
  };
  // Cache-line layout of the ring object, after alignment: line 0 global
  // head, line 1 global tail, lines 2..2+N thread records, then (durable
  // kinds) Q stamp lines, then the slots.
  struct alignas(64) Counter {
    uint64_t value;
  };
  struct alignas(64) Record {
    uint64_t head;  // position being pushed, or kIdle
    uint64_t tail;  // position being popped, or kIdle
  };
  static constexpr uint64_t kIdle = std::numeric_limits<uint64_t>::max();
  static constexpr uint64_t kIdBytes = sizeof(uint64_t);
  static constexpr uint64_t kConsumed = uint64_t{1} << 63;
  static constexpr bool kDurableKind = K != RingKind::kVolatile;

 public:
  static constexpr const char* kName = K == RingKind::kVolatile ? "ringbuffer-volatile"
                                       : K == RingKind::kTx     ? "ringbuffer-tx"
                                                                : "ringbuffer-txfree";
  static constexpr const char* kDescription =
      K == RingKind::kVolatile
          ? "lock-free MPMC ring (seed 002): global head/tail, per-thread positions, no "
            "persistence"
      : K == RingKind::kTx
          ? "durable MPMC ring (seed 002): slot write / consumption in a transaction, "
            "recovery consolidates in-flight operations"
          : "durable MPMC ring (seed 002), eADR only: no transaction, no write-back, a fence "
            "at each linearisation point";
  static constexpr OpSet kOpSet = OpSet::kQueue;
  static constexpr Sync kSync = Sync::kInternal;
  static constexpr ModeSet kModes = kDurableKind ? ModeSet{Mode::kPersist} : kVolatileModes;
  static constexpr DomainSet kDomains =
      K == RingKind::kTxFree ? DomainSet{Domain::kEadr} : kEveryDomain;
  static constexpr bool kHarness = false;
  enum : unsigned { kTypeRing = 1 };

  static uint64_t element_bytes(uint32_t value_size) {
    return value_size + kIdBytes + (kDurableKind ? kCacheLine : 0);
  }
  static uint64_t ring_bytes(uint64_t slots, uint64_t slot_bytes, uint64_t threads) {
    return (3 + threads) * kCacheLine + slots * (slot_bytes + (kDurableKind ? kCacheLine : 0));
  }
  static uint64_t pool_bytes(const DsOptions& o) {
    return ring_bytes(o.queueslots, o.slotsize, o.threads);
  }

  class Handle {
   public:
    bool push(uint64_t id, const char* payload) { return ring_->push(*rec_, id, payload); }
    bool pop(uint64_t& id, char* payload) { return ring_->pop(*rec_, id, payload); }

   private:
    friend class RingBuffer;
    Handle(RingBuffer* ring, Record* rec) : ring_(ring), rec_(rec) {}
    RingBuffer* ring_;
    Record* rec_;
  };

  RingBuffer(B& b, const DsOptions& o)
      : b_(b), q_(o.queueslots), stride_(o.slotsize), vsize_(o.value_size), n_(o.threads) {
    if (q_ == 0 || vsize_ + kIdBytes > stride_) {
      throw UsageError(
          fmt::format("{}: {} slots of {} bytes cannot hold {}-byte payloads and "
                      "their 8-byte ids",
                      kName, q_, stride_, vsize_));
    }
    root_ = b.template root<Root>();
    if constexpr (kDurableKind) {
      if (!b.created()) {
        reopen(o);
        return;
      }
    }
    b.store(root_->ring, b.template zalloc<char>(ring_bytes(q_, stride_, n_), kTypeRing));
    attach();
    for (uint64_t t = 0; t < n_; ++t) {
      b.atomic_store(records_[t].head, kIdle);
      b.atomic_store(records_[t].tail, kIdle);
    }
    b.persist(base_, (2 + n_) * kCacheLine);
    b.store(root_->slots, q_);
    b.store(root_->slot_bytes, stride_);
    b.store(root_->threads, n_);
    const RootHeader hdr = RootHeader::make(o, q_);
    b.write(&root_->hdr, &hdr, sizeof hdr);
  }
  ~RingBuffer() {
    if constexpr (!B::kDurable) {
      if (root_ != nullptr && root_->ring) b_.free(root_->ring);
    }
  }
  RingBuffer(const RingBuffer&) = delete;
  RingBuffer& operator=(const RingBuffer&) = delete;

  Handle handle(int t) {
    if (t < 0 || static_cast<uint64_t>(t) >= n_) {
      throw std::logic_error("ringbuffer: handle for a thread beyond DsOptions::threads");
    }
    return Handle(this, &records_[t]);
  }

  // Quiescent callers only: every record idle, tail <= head <= tail + Q, and
  // (durable kinds) every position in [tail, head) stamped live: no holes;
  // returns the element count.
  uint64_t check() const {
    for (uint64_t t = 0; t < n_; ++t) {
      if (b_.load(records_[t].head) != kIdle || b_.load(records_[t].tail) != kIdle) {
        throw InvariantViolation(fmt::format("{}: thread {}'s record is not idle", kName, t));
      }
    }
    const uint64_t head = b_.load(*head_), tail = b_.load(*tail_);
    if (tail > head || head - tail > q_) {
      throw InvariantViolation(
          fmt::format("{}: head {} and tail {} with {} slots", kName, head, tail, q_));
    }
    if constexpr (kDurableKind) {
      for (uint64_t p = tail; p < head; ++p) {
        const uint64_t s = b_.load(stamp(p));
        if (s != p + 1) {
          throw InvariantViolation(
              fmt::format("{}: position {} (between tail {} and head {}) has stamp {:#x}: a hole",
                          kName, p, tail, head, s));
        }
      }
    }
    return head - tail;
  }
  // Quiescent callers only: f(id, payload), oldest first.
  template <class F>
  void for_each(F&& f) const {
    const uint64_t head = b_.load(*head_);
    for (uint64_t p = b_.load(*tail_); p < head; ++p) {
      const char* s = slot(p);
      uint64_t id;
      std::memcpy(&id, s, kIdBytes);
      f(id, s + kIdBytes);
    }
  }
  template <class F>
  void for_each_object(F&& visit) const {
    visit(static_cast<const void*>(root_->ring.get()));
  }

 private:
  // A reopened pool: checked against the run, then recovered.
  void reopen(const DsOptions& o) {
    root_->hdr.check_reopen(o, kName);
    if (root_->slots != q_ || root_->slot_bytes != stride_ || root_->threads < n_) {
      throw UsageError(fmt::format(
          "{}: pool holds {} slots of {} bytes for {} threads; the run asks {} of {} for {}", kName,
          root_->slots, root_->slot_bytes, root_->threads, q_, stride_, n_));
    }
    n_ = root_->threads;
    attach();
    recover();
  }

  void attach() {
    base_ = align_line(root_->ring.get());
    head_ = &reinterpret_cast<Counter*>(base_)[0].value;
    tail_ = &reinterpret_cast<Counter*>(base_)[1].value;
    records_ = reinterpret_cast<Record*>(base_ + 2 * kCacheLine);
    stamps_ = base_ + (2 + n_) * kCacheLine;
    slots_ = stamps_ + (kDurableKind ? q_ * kCacheLine : 0);
  }

  char* slot(uint64_t p) const { return slots_ + (p % q_) * stride_; }
  uint64_t& stamp(uint64_t p) const {
    return *reinterpret_cast<uint64_t*>(stamps_ + (p % q_) * kCacheLine);
  }

  // The oldest position still being pushed (or the next to be claimed), and
  // the same for pops: the global counter first, then every record, so a
  // claim made after the counter was read is above it.
  uint64_t oldest(uint64_t* global, uint64_t Record::*field, std::atomic<uint64_t>& cache) {
    uint64_t low = b_.load(*global);
    for (uint64_t t = 0; t < n_; ++t) low = std::min(low, b_.load(records_[t].*field));
    cache.store(low, std::memory_order_release);
    return low;
  }

  // Claims the next position of `mine` (head for pushes, tail for pops) in
  // `record`, unless room(position, other counter) says no: false then.
  template <class Room>
  bool claim(uint64_t* mine, uint64_t* other, uint64_t& record, Room&& room, uint64_t& p) {
    for (;;) {
      p = b_.load(*mine);
      if (!room(p, b_.load(*other))) {
        b_.atomic_store(record, kIdle);
        return false;
      }
      b_.atomic_store(record, p);
      if (b_.cas(*mine, p, p + 1)) return true;
    }
  }

  bool push(Record& r, uint64_t id, const char* payload) {
    uint64_t p;
    if (!claim(
            head_, tail_, r.head, [&](uint64_t h, uint64_t t) { return h < t + q_; }, p)) {
      return false;  // full
    }
    while (p >= last_tail_.load(std::memory_order_acquire) + q_ &&
           p >= oldest(tail_, &Record::tail, last_tail_) + q_) {
      b_.relax();
    }
    char* s = slot(p);
    const uint64_t live = p + 1;
    if constexpr (K == RingKind::kTx) {
      b_.durable_tx([&] {
        b_.tx_snapshot(s, kIdBytes + vsize_);
        b_.tx_snapshot(&stamp(p), sizeof live);
        std::memcpy(s, &id, kIdBytes);
        std::memcpy(s + kIdBytes, payload, vsize_);
        std::memcpy(&stamp(p), &live, sizeof live);
        b_.flush_cold(s, kIdBytes + vsize_);
      });
    } else {
      b_.put(s, &id, kIdBytes);
      b_.put(s + kIdBytes, payload, vsize_);
      b_.flush_cold(s, kIdBytes + vsize_);
    }
    if constexpr (K == RingKind::kTxFree) {
      b_.drain();  // the element before its stamp
      b_.atomic_store(stamp(p), live);
      b_.drain();  // the stamp before the push returns
    }
    b_.atomic_store(r.head, kIdle);
    return true;
  }

  bool pop(Record& r, uint64_t& id, char* payload) {
    uint64_t p;
    if (!claim(
            tail_, head_, r.tail, [](uint64_t t, uint64_t h) { return t < h; }, p)) {
      return false;  // empty
    }
    while (p >= last_head_.load(std::memory_order_acquire) &&
           p >= oldest(head_, &Record::head, last_head_)) {
      b_.relax();
    }
    const char* s = slot(p);
    std::memcpy(&id, s, kIdBytes);
    std::memcpy(payload, s + kIdBytes, vsize_);
    const uint64_t consumed = (p + 1) | kConsumed;
    if constexpr (K == RingKind::kTx) {
      b_.durable_tx([&] {
        b_.tx_snapshot(&stamp(p), sizeof consumed);
        std::memcpy(&stamp(p), &consumed, sizeof consumed);
      });
    } else if constexpr (K == RingKind::kTxFree) {
      b_.atomic_store(stamp(p), consumed);
      b_.drain();  // the consumption before the pop returns
    }
    b_.atomic_store(r.tail, kIdle);
    return true;
  }

  // Recovery (durable kinds; the file comment has the argument). Single
  // caller, before any handle exists; every step is idempotent.
  void recover() {
    // C: every position below it was popped (or its pop was claimed).
    uint64_t c = 0;
    std::vector<uint64_t> live;
    for (uint64_t i = 0; i < q_; ++i) {
      const uint64_t s = b_.load(stamp(i));
      if (s == 0) continue;
      const uint64_t p = (s & ~kConsumed) - 1;
      if ((s & kConsumed) != 0) {
        c = std::max(c, p + 1);
      } else {
        live.push_back(p);
        if (p + 1 > q_) c = std::max(c, p + 1 - q_);
      }
    }
    std::sort(live.begin(), live.end());
    const auto first = std::lower_bound(live.begin(), live.end(), c);
    for (auto it = live.begin(); it != first; ++it) {
      b_.durable_tx([&] {
        const uint64_t consumed = (*it + 1) | kConsumed;
        b_.tx_snapshot(&stamp(*it), sizeof consumed);
        std::memcpy(&stamp(*it), &consumed, sizeof consumed);
      });
    }
    live.erase(live.begin(), first);
    const uint64_t base = live.empty() ? c : live.front();
    for (uint64_t i = 0; i < live.size(); ++i) {
      const uint64_t from = live[i], to = base + i;
      if (from == to) continue;
      b_.durable_tx([&] {
        const uint64_t moved = to + 1, gone = 0;
        b_.tx_snapshot(slot(to), kIdBytes + vsize_);
        b_.tx_snapshot(&stamp(to), sizeof moved);
        b_.tx_snapshot(&stamp(from), sizeof gone);
        std::memcpy(slot(to), slot(from), kIdBytes + vsize_);
        std::memcpy(&stamp(to), &moved, sizeof moved);
        std::memcpy(&stamp(from), &gone, sizeof gone);
      });
    }
    for (uint64_t t = 0; t < n_; ++t) {
      b_.atomic_store(records_[t].head, kIdle);
      b_.atomic_store(records_[t].tail, kIdle);
    }
    b_.atomic_store(*tail_, base);
    b_.atomic_store(*head_, base + live.size());
    last_head_.store(base);
    last_tail_.store(base);
  }

  B& b_;
  uint64_t q_, stride_;
  uint32_t vsize_;
  uint64_t n_;
  Root* root_ = nullptr;
  char* base_ = nullptr;
  uint64_t* head_ = nullptr;
  uint64_t* tail_ = nullptr;
  Record* records_ = nullptr;
  char* stamps_ = nullptr;
  char* slots_ = nullptr;
  alignas(64) std::atomic<uint64_t> last_head_{0};
  alignas(64) std::atomic<uint64_t> last_tail_{0};
};

template <Backend B>
using RingBufferVolatile = RingBuffer<B, RingKind::kVolatile>;
template <Backend B>
using RingBufferTx = RingBuffer<B, RingKind::kTx>;
template <Backend B>
using RingBufferTxFree = RingBuffer<B, RingKind::kTxFree>;

}  // namespace pmemids
