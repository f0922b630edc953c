// Harris's lock-free sorted linked list (operation set `set`), the base of
// seed 002's persistent lists: a node is deleted by first marking the low bit
// of its own next link (logical deletion, the linearisation point of a
// successful delete), then unlinking it with a CAS on its predecessor's link;
// searches unlink every marked node they pass. Successful inserts linearise at
// the CAS that links the new node, contains at its read of the node's link.
//
// Nodes {key, next} (16 bytes) come from a slab (ds/slab.h) allocated once;
// links hold node indices, not pointers (index << 1 | mark), so the list is
// position-independent. Sentinels: head (index 1, key 0) and tail (index 2,
// key 2^64 - 1); keys lie strictly between. Unlinked nodes are reclaimed by
// epoch-based reclamation (ds/epochs.h): a node goes back to the slab once no
// thread can still hold it, so the slab must exceed the key range by what
// reclamation holds back (capacity(): twice the key range plus 4096 nodes per
// thread); when it runs dry anyway (a thread preempted inside an operation
// holds reclamation back), an insert leaves its operation and reclaims until
// a node comes back.
//
// Synchronisation: internal (kInternal). Worker t calls through handle(t),
// which carries its epoch slot and slab cursor. Every link access goes
// through the backend's primitives (b.load / b.cas / b.atomic_store).
// Modes dram and pmem-volatile: no persistence, no recovery (the durable
// variants of seed 002 are separate structures).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "backend/backend.h"
#include "ds/common.h"
#include "ds/epochs.h"
#include "ds/slab.h"

namespace pmemids {

template <Backend B>
class LfListHarris {
  struct Node {
    uint64_t key;
    uint64_t next;  // successor index << 1 | deletion mark
  };
  struct Root {
    RootHeader hdr;
    typename B::template Ptr<char> slab;
    uint64_t capacity;
  };
  static constexpr uint64_t kHead = 1, kTail = 2;
  static constexpr uint64_t kMaxKey = std::numeric_limits<uint64_t>::max();
  static constexpr uint64_t kMaxReclaimSpins = uint64_t{1} << 24;

 public:
  static constexpr const char* kName = "lflist-harris";
  static constexpr const char* kDescription =
      "Harris's lock-free sorted list: marked links, slab nodes by index, epoch reclamation";
  static constexpr OpSet kOpSet = OpSet::kSet;
  static constexpr Sync kSync = Sync::kInternal;
  static constexpr ModeSet kModes = kVolatileModes;
  static constexpr DomainSet kDomains = kEveryDomain;
  static constexpr bool kHarness = false;
  enum : unsigned { kTypeSlab = 1 };

  static uint64_t element_bytes(uint32_t) { return sizeof(Node); }
  static uint64_t capacity(const DsOptions& o) {
    return 2 * o.keyrange + 4096 * uint64_t{o.threads} + 64;
  }
  static uint64_t pool_bytes(const DsOptions& o) {
    return Slab<B>::bytes(capacity(o), sizeof(Node));
  }

  // One worker's view: all operations go through it.
  class Handle {
   public:
    bool insert(uint64_t key) { return list_->insert(*this, key); }
    bool remove(uint64_t key) { return list_->remove(*this, key); }
    bool contains(uint64_t key) { return list_->contains(*this, key); }

   private:
    friend class LfListHarris;
    Handle(LfListHarris* list, uint32_t t) : list_(list), t_(t) {}
    LfListHarris* list_;
    uint32_t t_;
    typename Slab<B>::Cursor cursor_;
  };

  LfListHarris(B& b, const DsOptions& o) : b_(b), epochs_(o.threads) {
    root_ = b.template root<Root>();
    slab_.emplace(b, capacity(o), sizeof(Node), kTypeSlab);
    typename Slab<B>::Cursor c;
    const uint64_t head = slab_->alloc(c), tail = slab_->alloc(c);
    if (head != kHead || tail != kTail) throw std::logic_error("lflist: sentinels misplaced");
    node(kHead).key = 0;
    node(kTail).key = kMaxKey;
    b.atomic_store(node(kTail).next, 0);
    b.atomic_store(node(kHead).next, link(kTail));
    root_->slab = slab_->array();
    root_->capacity = slab_->capacity();
    root_->hdr = RootHeader::make(o, o.keyrange);
  }
  ~LfListHarris() {
    if (slab_) b_.free(slab_->array());
  }
  LfListHarris(const LfListHarris&) = delete;
  LfListHarris& operator=(const LfListHarris&) = delete;

  Handle handle(int t) {
    if (t < 0 || static_cast<uint32_t>(t) >= epochs_.threads()) {
      throw std::logic_error("lflist: handle for a thread beyond DsOptions::threads");
    }
    return Handle(this, static_cast<uint32_t>(t));
  }

  // Quiescent callers only: walks the list, checks that keys ascend strictly
  // between the sentinels, that no reachable node is marked, and that the
  // slab's bitmap holds exactly the reachable nodes and those awaiting
  // reclamation; returns the element count.
  uint64_t check() const {
    std::vector<uint64_t> used = {kHead};
    uint64_t prev = 0, count = 0;
    for (uint64_t x = index(load(node(kHead).next)); x != kTail;) {
      if (x == 0 || x > slab_->capacity() || used.size() > slab_->capacity()) {
        throw InvariantViolation(
            fmt::format("{}: link to node {} (slab of {})", kName, x, slab_->capacity()));
      }
      const Node& n = node(x);
      if (n.key <= prev || n.key == kMaxKey) {
        throw InvariantViolation(
            fmt::format("{}: key {} follows key {}: not strictly ascending", kName, n.key, prev));
      }
      const uint64_t next = load(n.next);
      if (marked(next)) {
        throw InvariantViolation(
            fmt::format("{}: reachable node {} (key {}) is marked deleted", kName, x, n.key));
      }
      used.push_back(x);
      prev = n.key;
      ++count;
      x = index(next);
    }
    used.push_back(kTail);
    if (slab_->in_use_count() != used.size() + epochs_.pending()) {
      throw InvariantViolation(
          fmt::format("{}: {} slab nodes in use, but {} are reachable and {} await reclamation",
                      kName, slab_->in_use_count(), used.size(), epochs_.pending()));
    }
    for (uint64_t x : used) {
      if (!slab_->in_use(x)) {
        throw InvariantViolation(
            fmt::format("{}: reachable node {} is free in the slab", kName, x));
      }
    }
    return count;
  }

  // Quiescent callers only: f(key) in ascending order.
  template <class F>
  void for_each(F&& f) const {
    for (uint64_t x = index(load(node(kHead).next)); x != kTail;) {
      const uint64_t next = load(node(x).next);
      if (!marked(next)) f(node(x).key);
      x = index(next);
    }
  }
  template <class F>
  void for_each_object(F&& visit) const {
    visit(static_cast<const void*>(slab_->array().get()));
  }

 private:
  static uint64_t link(uint64_t i) { return i << 1; }
  static uint64_t index(uint64_t l) { return l >> 1; }
  static bool marked(uint64_t l) { return (l & 1) != 0; }

  Node& node(uint64_t i) const { return slab_->template at<Node>(i); }
  uint64_t load(const uint64_t& w) const { return b_.load(const_cast<uint64_t&>(w)); }

  auto guard(Handle& h) {
    return EpochGuard(epochs_, h.t_, [&](uint64_t i) { slab_->free(i); });
  }

  // Harris's search: returns `right`, the first unmarked node with key >= `key`,
  // and sets `left` to its unmarked predecessor, after unlinking (and retiring)
  // the marked nodes between them.
  uint64_t search(Handle& h, uint64_t key, uint64_t& left) {
    for (;;) {
      uint64_t left_next = 0, t = kHead, t_next = load(node(kHead).next);
      do {
        if (!marked(t_next)) {
          left = t;
          left_next = t_next;
        }
        t = index(t_next);
        if (t == kTail) break;
        t_next = load(node(t).next);
      } while (marked(t_next) || node(t).key < key);
      const uint64_t right = t;
      if (index(left_next) != right) {
        uint64_t expected = left_next;
        if (!b_.cas(node(left).next, expected, link(right))) continue;
        for (uint64_t x = index(left_next); x != right; x = index(load(node(x).next))) {
          epochs_.retire(h.t_, x);
        }
      }
      if (right == kTail || !marked(load(node(right).next))) return right;
    }
  }

  // A node for a new key; when the slab is dry (reclamation held back by a
  // thread preempted inside an operation), reclaims outside any operation
  // until one comes back, yielding the CPU now and then.
  uint64_t take_node(Handle& h) {
    for (uint64_t spins = 0;; ++spins) {
      if (const uint64_t n = slab_->alloc(h.cursor_); n != 0) return n;
      if (spins == kMaxReclaimSpins) {
        throw RuntimeError(fmt::format("{}: all {} slab nodes in use for {} reclamation attempts",
                                       kName, slab_->capacity(), spins));
      }
      epochs_.reclaim(h.t_, [&](uint64_t i) { slab_->free(i); });
      b_.relax();
      if (spins % 64 == 63) std::this_thread::yield();
    }
  }

  bool insert(Handle& h, uint64_t key) {
    uint64_t spare = 0;
    for (;;) {
      const int r = try_insert(h, key, spare);
      if (r >= 0) {
        if (spare != 0) slab_->free(spare);  // the key was there: never published
        return r == 1;
      }
      spare = take_node(h);
    }
  }

  // 1: inserted; 0: present; -1: no node (try again after take_node()). Uses
  // `spare` (and zeroes it) when it needs a node and one was taken.
  int try_insert(Handle& h, uint64_t key, uint64_t& spare) {
    const auto g = guard(h);
    uint64_t fresh = 0;
    for (;;) {
      uint64_t left = kHead;
      const uint64_t right = search(h, key, left);
      if (right != kTail && node(right).key == key) {
        if (fresh != 0) slab_->free(fresh);  // never published
        return 0;
      }
      if (fresh == 0) {
        fresh = spare != 0 ? std::exchange(spare, 0) : slab_->alloc(h.cursor_);
        if (fresh == 0) return -1;
        b_.put(&node(fresh).key, &key, sizeof key);
      }
      b_.atomic_store(node(fresh).next, link(right));
      uint64_t expected = link(right);
      if (b_.cas(node(left).next, expected, link(fresh))) return 1;
    }
  }

  bool remove(Handle& h, uint64_t key) {
    const auto g = guard(h);
    uint64_t left = kHead, right, right_next;
    for (;;) {
      right = search(h, key, left);
      if (right == kTail || node(right).key != key) return false;
      right_next = load(node(right).next);
      if (!marked(right_next)) {
        uint64_t expected = right_next;
        if (b_.cas(node(right).next, expected, right_next | 1)) break;
      }
    }
    uint64_t expected = link(right);
    if (b_.cas(node(left).next, expected, right_next)) {
      epochs_.retire(h.t_, right);
    } else {
      search(h, key, left);  // unlinks and retires it
    }
    return true;
  }

  bool contains(Handle& h, uint64_t key) {
    const auto g = guard(h);
    uint64_t t = index(load(node(kHead).next));
    while (t != kTail && node(t).key < key) t = index(load(node(t).next));
    return t != kTail && node(t).key == key && !marked(load(node(t).next));
  }

  B& b_;
  Root* root_ = nullptr;
  std::optional<Slab<B>> slab_;
  mutable Epochs epochs_;
};

}  // namespace pmemids
