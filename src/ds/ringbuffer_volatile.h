// The multi-producer multi-consumer ring buffer of seed 002 (after
// Krizhanovsky), operation set `queue`, without persistence: the base of the
// durable ring buffers.
//
// State: global head (next push position) and tail (next pop position), 64-bit
// and never wrapping, each on its own cache line; per thread a record {head,
// tail} on its own line holding the position it is pushing / popping, or
// kIdle; `queueslots` slots of `slotsize` bytes, slot p % Q holding element p
// as {id, payload} (payload: value_size bytes, value_size + 8 <= slotsize).
// Everything lies in one backend object allocated at creation (indices, not
// pointers). last_head / last_tail, the oldest push / pop still in flight,
// are recomputed in DRAM from the global counters and the thread records
// (global counter first, then the records, so no claimed position is missed)
// and cached in DRAM.
//
// push: claim position p = head by CAS, after publishing p in the thread's
// record, unless the ring is full (p >= tail + Q: returns false at once);
// wait until the pop of p - Q has finished (p < last_tail + Q); write the
// slot; record kIdle. pop is symmetric: claim p = tail unless the ring is
// empty (p >= head: returns false), wait until the push of p has finished (p <
// last_head), copy the slot out, record kIdle.
// Claiming by CAS after the full / empty check, where the original advances
// the counters by fetch-and-add unconditionally, is deliberate: an operation
// then only ever waits for one that has already claimed its position and is
// running, never for one that has not begun, so a pop of an empty ring (or a
// push to a full one) returns instead of blocking, and no run can hang at its
// end (docs/design.md, "Blocking"). With claims as linearisation points the
// ring is a linearisable FIFO queue of capacity Q.
//
// Synchronisation: internal; worker t uses handle(t) (its thread record).
// Modes dram and pmem-volatile; no recovery.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>

#include "backend/backend.h"
#include "ds/common.h"

namespace pmemids {

template <Backend B>
class RingBufferVolatile {
  struct Root {
    RootHeader hdr;
    typename B::template Ptr<char> ring;
    uint64_t slots;
    uint64_t slot_bytes;
    uint64_t threads;
  };
  // Cache-line layout of the ring object, after alignment: line 0 global
  // head, line 1 global tail, lines 2..2+N thread records, then the slots.
  struct alignas(64) Counter {
    uint64_t value;
  };
  struct alignas(64) Record {
    uint64_t head;  // position being pushed, or kIdle
    uint64_t tail;  // position being popped, or kIdle
  };
  static constexpr uint64_t kIdle = std::numeric_limits<uint64_t>::max();
  static constexpr uint64_t kIdBytes = sizeof(uint64_t);

 public:
  static constexpr const char* kName = "ringbuffer-volatile";
  static constexpr const char* kDescription =
      "lock-free MPMC ring (seed 002): global head/tail, per-thread positions, no persistence";
  static constexpr OpSet kOpSet = OpSet::kQueue;
  static constexpr Sync kSync = Sync::kInternal;
  static constexpr ModeSet kModes = kVolatileModes;
  static constexpr DomainSet kDomains = kEveryDomain;
  static constexpr bool kHarness = false;
  enum : unsigned { kTypeRing = 1 };

  static uint64_t element_bytes(uint32_t value_size) { return value_size + kIdBytes; }
  static uint64_t ring_bytes(uint64_t slots, uint64_t slot_bytes, uint64_t threads) {
    return (3 + threads) * kCacheLine + slots * slot_bytes;
  }
  static uint64_t pool_bytes(const DsOptions& o) {
    return ring_bytes(o.queueslots, o.slotsize, o.threads);
  }

  class Handle {
   public:
    bool push(uint64_t id, const char* payload) { return ring_->push(*rec_, id, payload); }
    bool pop(uint64_t& id, char* payload) { return ring_->pop(*rec_, id, payload); }

   private:
    friend class RingBufferVolatile;
    Handle(RingBufferVolatile* ring, Record* rec) : ring_(ring), rec_(rec) {}
    RingBufferVolatile* ring_;
    Record* rec_;
  };

  RingBufferVolatile(B& b, const DsOptions& o)
      : b_(b), q_(o.queueslots), stride_(o.slotsize), vsize_(o.value_size), n_(o.threads) {
    if (q_ == 0 || vsize_ + kIdBytes > stride_) {
      throw UsageError(
          fmt::format("{}: {} slots of {} bytes cannot hold {}-byte payloads and "
                      "their 8-byte ids",
                      kName, q_, stride_, vsize_));
    }
    root_ = b.template root<Root>();
    root_->ring = b.template zalloc<char>(ring_bytes(q_, stride_, n_), kTypeRing);
    char* base = align_line(root_->ring.get());
    head_ = &reinterpret_cast<Counter*>(base)[0].value;
    tail_ = &reinterpret_cast<Counter*>(base)[1].value;
    records_ = reinterpret_cast<Record*>(base + 2 * kCacheLine);
    slots_ = base + (2 + n_) * kCacheLine;
    for (uint64_t t = 0; t < n_; ++t) {
      b.atomic_store(records_[t].head, kIdle);
      b.atomic_store(records_[t].tail, kIdle);
    }
    root_->slots = q_;
    root_->slot_bytes = stride_;
    root_->threads = n_;
    root_->hdr = RootHeader::make(o, q_);
  }
  ~RingBufferVolatile() {
    if (root_ != nullptr && root_->ring) b_.free(root_->ring);
  }
  RingBufferVolatile(const RingBufferVolatile&) = delete;
  RingBufferVolatile& operator=(const RingBufferVolatile&) = delete;

  Handle handle(int t) {
    if (t < 0 || static_cast<uint64_t>(t) >= n_) {
      throw std::logic_error("ringbuffer: handle for a thread beyond DsOptions::threads");
    }
    return Handle(this, &records_[t]);
  }

  // Quiescent callers only: every record idle, tail <= head <= tail + Q;
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
  char* slot(uint64_t p) const { return slots_ + (p % q_) * stride_; }

  // The oldest position still being pushed (or the next to be claimed), and
  // the same for pops: the global counter first, then every record, so a
  // claim made after the counter was read is above it.
  uint64_t oldest(uint64_t* global, uint64_t Record::*field, std::atomic<uint64_t>& cache) {
    uint64_t low = b_.load(*global);
    for (uint64_t t = 0; t < n_; ++t) low = std::min(low, b_.load(records_[t].*field));
    cache.store(low, std::memory_order_release);
    return low;
  }

  bool push(Record& r, uint64_t id, const char* payload) {
    uint64_t p;
    for (;;) {
      p = b_.load(*head_);
      if (p >= b_.load(*tail_) + q_) {
        b_.atomic_store(r.head, kIdle);
        return false;  // full
      }
      b_.atomic_store(r.head, p);
      if (b_.cas(*head_, p, p + 1)) break;
    }
    while (p >= last_tail_.load(std::memory_order_acquire) + q_ &&
           p >= oldest(tail_, &Record::tail, last_tail_) + q_) {
      b_.relax();
    }
    char* s = slot(p);
    b_.put(s, &id, kIdBytes);
    b_.put(s + kIdBytes, payload, vsize_);
    b_.atomic_store(r.head, kIdle);
    return true;
  }

  bool pop(Record& r, uint64_t& id, char* payload) {
    uint64_t p;
    for (;;) {
      p = b_.load(*tail_);
      if (p >= b_.load(*head_)) {
        b_.atomic_store(r.tail, kIdle);
        return false;  // empty
      }
      b_.atomic_store(r.tail, p);
      if (b_.cas(*tail_, p, p + 1)) break;
    }
    while (p >= last_head_.load(std::memory_order_acquire) &&
           p >= oldest(head_, &Record::head, last_head_)) {
      b_.relax();
    }
    const char* s = slot(p);
    std::memcpy(&id, s, kIdBytes);
    std::memcpy(payload, s + kIdBytes, vsize_);
    b_.atomic_store(r.tail, kIdle);
    return true;
  }

  B& b_;
  uint64_t q_, stride_;
  uint32_t vsize_;
  uint64_t n_;
  Root* root_ = nullptr;
  uint64_t* head_ = nullptr;
  uint64_t* tail_ = nullptr;
  Record* records_ = nullptr;
  char* slots_ = nullptr;
  alignas(64) std::atomic<uint64_t> last_head_{0};
  alignas(64) std::atomic<uint64_t> last_tail_{0};
};

}  // namespace pmemids
