// Harris's lock-free sorted linked list (operation set `set`) and the
// persistent lists of seed 002 section 6 built on it: one design, five
// persistence kinds.
//
// The base: a node is deleted by first marking the low bit of its own next
// link (logical deletion, the linearisation point of a successful delete),
// then unlinking it with a CAS on its predecessor's link; searches unlink
// every marked node they pass. Successful inserts linearise at the CAS that
// links the new node, contains at its read of the node's link.
// Nodes come from a slab (ds/slab.h) allocated once; links hold node indices,
// not pointers (index << 1 | mark), so the list is position-independent.
// Sentinels: head (index 1, key 0) and tail (index 2, key 2^64 - 1); keys lie
// strictly between. Unlinked nodes are reclaimed by epoch-based reclamation
// (ds/epochs.h): a node goes back to the slab once no thread can still hold
// it, so the slab must exceed the key range by what reclamation holds back
// (capacity(): twice the key range plus 4096 nodes per thread); when it runs
// dry anyway (a thread preempted inside an operation holds reclamation back),
// an insert leaves its operation and reclaims until a node comes back.
//
// Kinds (what is durable when, what a crash can leave, what recovery does):
//   lflist-harris    no persistence (dram, pmem-volatile).
//   lflist-tlog      a new node is persisted before the CAS that links it and
//                    every changed link is persisted after its CAS; each
//                    thread keeps a durable micro-log {op, key, node} of its
//                    update in flight, persisted before the linearisation
//                    point (insert: with the node; delete: before the mark)
//                    and cleared when the update is durable. A crash leaves a
//                    list whose durable links may miss a linked node or a
//                    mark another thread already observed; recovery redoes
//                    each logged update whose effect is not durable (insert:
//                    its node is unmarked and unreachable and the key absent;
//                    delete: its node is still reachable and unmarked), so an
//                    effect someone observed survives. ADR and eADR.
//   lflist-logfree   a store fence at each linearisation point, no
//                    write-back, no log: correct only under eADR (where a
//                    store that left the store buffer is durable).
//   lflist-linkfree  (after Zuriel et al.) nodes carry a validity state; no
//                    link is ever written back. An insert links its node,
//                    then makes it valid and writes back the node's line; a
//                    delete marks the node's link and writes back the node's
//                    line. A find writes back the node it depends on (a node
//                    it reports present, a marked node it reports absent or
//                    unlinks) unless its state says that was done. A node is
//                    a member iff it is valid and its link unmarked; recovery
//                    scans every slab node and relinks the members in key
//                    order. ADR and eADR.
//   lflist-soft      (after Zuriel et al.'s SOFT) the links live in DRAM
//                    only; the persistent node is {key, state} with state
//                    pending, valid or deleted, changed by CAS. Inserts
//                    validate, deletes mark the DRAM link then the state
//                    deleted, each written back before returning; finds write
//                    back what they depend on. Members are the valid nodes;
//                    recovery scans every slab node. ADR and eADR.
// Common to the durable kinds: the slab's bitmap is volatile and rebuilt at
// recovery from the members; marked nodes still linked are unlinked at their
// predecessor (the artifact's recovery overwrote the marked node's link with
// its successor's, unlinking the live successor instead). Recovery is
// idempotent: each step checks the state it changes, so a crash inside it
// only leaves less to do. Not detectable (the log records no response).
//
// Synchronisation: internal (kInternal). Worker t calls through handle(t),
// which carries its epoch slot, slab cursor and (tlog) micro-log. Every
// persistent word goes through the backend's primitives (b.load / b.cas /
// b.atomic_store); soft's DRAM links through std::atomic_ref.
#pragma once

#include <algorithm>
#include <atomic>
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

enum class ListKind : uint8_t { kHarris, kTlog, kLogfree, kLinkfree, kSoft };

template <Backend B, ListKind K>
class LfList {
  static constexpr bool kDurableKind = K != ListKind::kHarris;
  static constexpr bool kValidity = K == ListKind::kLinkfree || K == ListKind::kSoft;
  // Node layout in the slab: {key, next} (harris, tlog, logfree), {key,
  // next, state} in 32 bytes (linkfree), {key, state} (soft: next in DRAM).
  static constexpr uint32_t kNodeBytes = K == ListKind::kLinkfree ? 32 : 16;
  static constexpr uint32_t kNextOffset = 8;
  static constexpr uint32_t kStateOffset = K == ListKind::kSoft ? 8 : 16;
  // Validity states (linkfree, soft): kValid, plus kFlushed once written
  // back; soft's deletion is kDeleted.
  static constexpr uint64_t kPending = 0, kValid = 1, kFlushed = 2, kDeleted = 4;
  // tlog micro-log operations.
  static constexpr uint64_t kNoOp = 0, kLogInsert = 1, kLogDelete = 2;

  struct Root {
    RootHeader hdr;
    typename B::template Ptr<char> slab;
    typename B::template Ptr<char> logs;  // tlog: one line per thread
    uint64_t capacity;
    uint64_t threads;
  };
  struct alignas(64) Log {
    uint64_t op;
    uint64_t key;
    uint64_t node;
  };
  static constexpr uint64_t kHead = 1, kTail = 2;
  static constexpr uint64_t kMaxKey = std::numeric_limits<uint64_t>::max();
  static constexpr uint64_t kMaxReclaimSpins = uint64_t{1} << 24;

 public:
  static constexpr const char* kName = K == ListKind::kHarris     ? "lflist-harris"
                                       : K == ListKind::kTlog     ? "lflist-tlog"
                                       : K == ListKind::kLogfree  ? "lflist-logfree"
                                       : K == ListKind::kLinkfree ? "lflist-linkfree"
                                                                  : "lflist-soft";
  static constexpr const char* kDescription =
      K == ListKind::kHarris
          ? "Harris's lock-free sorted list: marked links, slab nodes by index, epoch reclamation"
      : K == ListKind::kTlog
          ? "durable Harris list (seed 002): nodes and links persisted around each CAS, "
            "per-thread micro-log redone at recovery"
      : K == ListKind::kLogfree
          ? "durable Harris list (seed 002), eADR only: a fence at each linearisation point"
      : K == ListKind::kLinkfree
          ? "durable Harris list (link-free): validity in nodes, no link written back, finds "
            "flush what they depend on, recovery scans the slab"
          : "durable list (SOFT): DRAM links, persistent {key, state} nodes, finds flush what "
            "they depend on, recovery scans the slab";
  static constexpr OpSet kOpSet = OpSet::kSet;
  static constexpr Sync kSync = Sync::kInternal;
  static constexpr ModeSet kModes = kDurableKind ? ModeSet{Mode::kPersist} : kVolatileModes;
  static constexpr DomainSet kDomains =
      K == ListKind::kLogfree ? DomainSet{Domain::kEadr} : kEveryDomain;
  static constexpr bool kHarness = false;
  enum : unsigned { kTypeSlab = 1, kTypeLogs = 2 };

  static uint64_t element_bytes(uint32_t) { return kNodeBytes; }
  static uint64_t capacity(const DsOptions& o) {
    return 2 * o.keyrange + 4096 * uint64_t{o.threads} + 64;
  }
  static uint64_t pool_bytes(const DsOptions& o) {
    return Slab<B>::bytes(capacity(o), kNodeBytes) + (o.threads + 1) * kCacheLine;
  }

  // One worker's view: all operations go through it.
  class Handle {
   public:
    bool insert(uint64_t key) { return list_->insert(*this, key); }
    bool remove(uint64_t key) { return list_->remove(*this, key); }
    bool contains(uint64_t key) { return list_->contains(*this, key); }

   private:
    friend class LfList;
    Handle(LfList* list, uint32_t t, Log* log) : list_(list), t_(t), log_(log) {}
    LfList* list_;
    uint32_t t_;
    Log* log_;
    typename Slab<B>::Cursor cursor_;
  };

  LfList(B& b, const DsOptions& o) : b_(b), epochs_(o.threads), n_(o.threads) {
    root_ = b.template root<Root>();
    if constexpr (kDurableKind) {
      if (!b.created()) {
        reopen(o);
        return;
      }
    }
    slab_.emplace(b, capacity(o), kNodeBytes, kTypeSlab);
    if constexpr (K == ListKind::kSoft) links_.assign(slab_->capacity() + 1, 0);
    typename Slab<B>::Cursor c;
    const uint64_t head = slab_->alloc(c), tail = slab_->alloc(c);
    if (head != kHead || tail != kTail) throw std::logic_error("lflist: sentinels misplaced");
    const uint64_t max_key = kMaxKey;
    b.put(&key_word(kTail), &max_key, sizeof max_key);
    lstore(kTail, 0);
    lstore(kHead, link(kTail));
    b.persist(slab_->raw(kHead), 2 * kNodeBytes);
    b.store(root_->slab, slab_->array());
    if constexpr (K == ListKind::kTlog) {
      b.store(root_->logs, b.template zalloc<char>((n_ + 1) * kCacheLine, kTypeLogs));
      logs_ = reinterpret_cast<Log*>(align_line(root_->logs.get()));
    }
    b.store(root_->capacity, slab_->capacity());
    b.store(root_->threads, uint64_t{n_});
    const RootHeader hdr = RootHeader::make(o, o.keyrange);
    b.write(&root_->hdr, &hdr, sizeof hdr);
  }
  ~LfList() {
    if constexpr (!B::kDurable) {
      if (slab_) b_.free(slab_->array());
    }
  }
  LfList(const LfList&) = delete;
  LfList& operator=(const LfList&) = delete;

  Handle handle(int t) {
    if (t < 0 || static_cast<uint32_t>(t) >= epochs_.threads()) {
      throw std::logic_error("lflist: handle for a thread beyond DsOptions::threads");
    }
    return Handle(this, static_cast<uint32_t>(t), logs_ != nullptr ? &logs_[t] : nullptr);
  }

  // Quiescent callers only: walks the list, checks that keys ascend strictly
  // between the sentinels, that no reachable node is marked (linkfree, soft:
  // and every reachable node is valid), that the slab's bitmap holds exactly
  // the reachable nodes and those awaiting reclamation, and (tlog) that no
  // update is logged in flight; returns the element count.
  uint64_t check() const {
    std::vector<uint64_t> used = {kHead};
    uint64_t prev = 0, count = 0;
    for (uint64_t x = index(lload(kHead)); x != kTail;) {
      if (x == 0 || x > slab_->capacity() || used.size() > slab_->capacity()) {
        throw InvariantViolation(
            fmt::format("{}: link to node {} (slab of {})", kName, x, slab_->capacity()));
      }
      const uint64_t k = key_of(x);
      if (k <= prev || k == kMaxKey) {
        throw InvariantViolation(
            fmt::format("{}: key {} follows key {}: not strictly ascending", kName, k, prev));
      }
      const uint64_t next = lload(x);
      if (marked(next)) {
        throw InvariantViolation(
            fmt::format("{}: reachable node {} (key {}) is marked deleted", kName, x, k));
      }
      if constexpr (kValidity) {
        if ((load(state_word(x)) & (kValid | kDeleted)) != kValid) {
          throw InvariantViolation(fmt::format("{}: reachable node {} (key {}) has state {:#x}",
                                               kName, x, k, load(state_word(x))));
        }
      }
      used.push_back(x);
      prev = k;
      ++count;
      x = index(next);
    }
    used.push_back(kTail);
    if (slab_->in_use_count() != used.size() + epochs_.pending()) {
      throw InvariantViolation(
          fmt::format("{}: {} slab nodes in use, but {} are reachable and {} await reclamation",
                      kName, slab_->in_use_count(), used.size(), epochs_.pending()));
    }
    if (epochs_.pending() == 0) {
      slab_->verify(used, kName);
    } else {
      for (uint64_t x : used) {
        if (!slab_->in_use(x)) {
          throw InvariantViolation(
              fmt::format("{}: reachable node {} is free in the slab", kName, x));
        }
      }
    }
    if constexpr (K == ListKind::kTlog) {
      for (uint32_t t = 0; t < n_; ++t) {
        if (load(logs_[t].op) != kNoOp) {
          throw InvariantViolation(fmt::format("{}: thread {}'s log holds an update", kName, t));
        }
      }
    }
    return count;
  }

  // Quiescent callers only: f(key) in ascending order.
  template <class F>
  void for_each(F&& f) const {
    for (uint64_t x = index(lload(kHead)); x != kTail;) {
      const uint64_t next = lload(x);
      if (!marked(next)) f(key_of(x));
      x = index(next);
    }
  }
  template <class F>
  void for_each_object(F&& visit) const {
    visit(static_cast<const void*>(slab_->array().get()));
    if constexpr (K == ListKind::kTlog) visit(static_cast<const void*>(root_->logs.get()));
  }

 private:
  static uint64_t link(uint64_t i) { return i << 1; }
  static uint64_t index(uint64_t l) { return l >> 1; }
  static bool marked(uint64_t l) { return (l & 1) != 0; }

  uint64_t& key_word(uint64_t i) const { return *reinterpret_cast<uint64_t*>(slab_->raw(i)); }
  uint64_t& next_word(uint64_t i) const {
    return *reinterpret_cast<uint64_t*>(slab_->raw(i) + kNextOffset);
  }
  uint64_t& state_word(uint64_t i) const {
    return *reinterpret_cast<uint64_t*>(slab_->raw(i) + kStateOffset);
  }
  uint64_t key_of(uint64_t i) const { return key_word(i); }
  uint64_t load(const uint64_t& w) const { return b_.load(const_cast<uint64_t&>(w)); }

  // Links: persistent words through the backend, or soft's DRAM words.
  uint64_t lload(uint64_t i) const {
    if constexpr (K == ListKind::kSoft) {
      return std::atomic_ref<uint64_t>(const_cast<uint64_t&>(links_[i]))
          .load(std::memory_order_acquire);
    } else {
      return load(next_word(i));
    }
  }
  void lstore(uint64_t i, uint64_t v) {
    if constexpr (K == ListKind::kSoft) {
      std::atomic_ref<uint64_t>(links_[i]).store(v, std::memory_order_release);
    } else {
      b_.atomic_store(next_word(i), v);
    }
  }
  bool lcas(uint64_t i, uint64_t& expected, uint64_t v) {
    if constexpr (K == ListKind::kSoft) {
      return std::atomic_ref<uint64_t>(links_[i]).compare_exchange_strong(expected, v);
    } else {
      return b_.cas(next_word(i), expected, v);
    }
  }

  auto guard(Handle& h) {
    return EpochGuard(epochs_, h.t_, [&](uint64_t i) { slab_->free(i); });
  }

  // ---- persistence steps, by kind ------------------------------------------------

  // Node i's link changed by this thread's CAS (an insert's link, an unlink).
  void link_changed(uint64_t i) {
    if constexpr (K == ListKind::kTlog) b_.persist(&next_word(i), sizeof(uint64_t));
  }
  // Node i is valid and durable (linkfree, soft): a node this thread linked or
  // found present.
  void make_durable(uint64_t i) {
    if constexpr (kValidity) {
      uint64_t s = load(state_word(i));
      if ((s & kFlushed) != 0 || (s & kDeleted) != 0) return;
      if (s == kPending) {
        uint64_t expected = kPending;
        b_.cas(state_word(i), expected, kValid);
      }
      b_.persist(slab_->raw(i), kNodeBytes);
      s = load(state_word(i));
      if (s == kValid) b_.cas(state_word(i), s, kValid | kFlushed);
    }
  }
  // Node i is marked: its deletion is durable before anything depending on it
  // (linkfree: the node's line holds the mark; soft: the state says deleted).
  void make_deletion_durable(uint64_t i) {
    if constexpr (K == ListKind::kLinkfree) {
      b_.persist(slab_->raw(i), kNodeBytes);
    } else if constexpr (K == ListKind::kSoft) {
      uint64_t s = load(state_word(i));
      if (s == kDeleted) return;
      while (s != kDeleted && !b_.cas(state_word(i), s, kDeleted)) {
      }
      b_.persist(slab_->raw(i), kNodeBytes);
    }
  }
  void log(Handle& h, uint64_t op, uint64_t key, uint64_t node, bool drain) {
    if constexpr (K == ListKind::kTlog) {
      b_.atomic_store(h.log_->key, key);
      b_.atomic_store(h.log_->node, node);
      b_.atomic_store(h.log_->op, op);
      b_.flush(h.log_, sizeof(Log));
      if (drain) b_.drain();
    }
  }
  // tlog: the update is durable (or had no effect): its log entry goes.
  void clear_log(Handle& h) {
    if constexpr (K == ListKind::kTlog) {
      if (load(h.log_->op) != kNoOp) log(h, kNoOp, 0, 0, true);
    }
  }

  // ---- the algorithm -----------------------------------------------------------

  // Harris's search: returns `right`, the first unmarked node with key >= `key`,
  // and sets `left` to its unmarked predecessor, after unlinking (and retiring)
  // the marked nodes between them.
  uint64_t search(Handle& h, uint64_t key, uint64_t& left) {
    for (;;) {
      uint64_t left_next = 0, t = kHead, t_next = lload(kHead);
      do {
        if (!marked(t_next)) {
          left = t;
          left_next = t_next;
        }
        t = index(t_next);
        if (t == kTail) break;
        t_next = lload(t);
      } while (marked(t_next) || key_of(t) < key);
      const uint64_t right = t;
      if (index(left_next) != right) {
        if constexpr (kValidity) {
          for (uint64_t x = index(left_next); x != right; x = index(lload(x))) {
            make_deletion_durable(x);
          }
        }
        uint64_t expected = left_next;
        if (!lcas(left, expected, link(right))) continue;
        link_changed(left);
        for (uint64_t x = index(left_next); x != right; x = index(lload(x))) {
          epochs_.retire(h.t_, x);
        }
      }
      if (right == kTail || !marked(lload(right))) return right;
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
        clear_log(h);
        if (spare != 0) slab_->free(spare);  // the key was there: never published
        return r == 1;
      }
      spare = take_node(h);
    }
  }

  // Fills node `fresh` for `key` (not yet published): state pending first,
  // so a reused node never reads as a member before it is linked.
  void prepare(uint64_t fresh, uint64_t key) {
    if constexpr (kValidity) b_.atomic_store(state_word(fresh), kPending);
    b_.put(&key_word(fresh), &key, sizeof key);
  }

  // 1: inserted; 0: present; -1: no node (try again after take_node()). Uses
  // `spare` (and zeroes it) when it needs a node and one was taken; returns
  // an unused node in `spare`.
  int try_insert(Handle& h, uint64_t key, uint64_t& spare) {
    const auto g = guard(h);
    uint64_t fresh = 0;
    for (;;) {
      uint64_t left = kHead;
      const uint64_t right = search(h, key, left);
      if (right != kTail && key_of(right) == key) {
        make_durable(right);
        spare = fresh;
        return 0;
      }
      if (fresh == 0) {
        fresh = spare != 0 ? std::exchange(spare, 0) : slab_->alloc(h.cursor_);
        if (fresh == 0) return -1;
        prepare(fresh, key);
      }
      lstore(fresh, link(right));
      if constexpr (K == ListKind::kTlog) {
        log(h, kLogInsert, key, fresh, false);
        b_.persist(slab_->raw(fresh), kNodeBytes);  // the log and the node before the link
      }
      uint64_t expected = link(right);
      if (lcas(left, expected, link(fresh))) {
        link_changed(left);
        if constexpr (K == ListKind::kLogfree) b_.drain();
        make_durable(fresh);
        return 1;
      }
    }
  }

  bool remove(Handle& h, uint64_t key) {
    const auto g = guard(h);
    uint64_t left = kHead, right, right_next;
    for (;;) {
      right = search(h, key, left);
      if (right == kTail || key_of(right) != key) {
        clear_log(h);
        return false;
      }
      right_next = lload(right);
      if (!marked(right_next)) {
        log(h, kLogDelete, key, right, true);
        uint64_t expected = right_next;
        if (lcas(right, expected, right_next | 1)) break;
      }
    }
    if constexpr (K == ListKind::kTlog) b_.persist(&next_word(right), sizeof(uint64_t));
    if constexpr (K == ListKind::kLogfree) b_.drain();
    make_deletion_durable(right);
    uint64_t expected = link(right);
    if (lcas(left, expected, right_next)) {
      link_changed(left);
      epochs_.retire(h.t_, right);
    } else {
      search(h, key, left);  // unlinks and retires it
    }
    clear_log(h);
    return true;
  }

  bool contains(Handle& h, uint64_t key) {
    const auto g = guard(h);
    uint64_t t = index(lload(kHead));
    while (t != kTail && key_of(t) < key) t = index(lload(t));
    if (t == kTail || key_of(t) != key) return false;
    if (marked(lload(t))) {
      make_deletion_durable(t);
      return false;
    }
    make_durable(t);
    return true;
  }

  // ---- recovery (durable kinds) ------------------------------------------------

  void reopen(const DsOptions& o) {
    root_->hdr.check_reopen(o, kName);
    if (root_->threads < n_) {
      throw UsageError(fmt::format("{}: pool was made for {} threads; the run asks {}", kName,
                                   root_->threads, n_));
    }
    n_ = static_cast<uint32_t>(root_->threads);
    slab_.emplace(root_->slab, root_->capacity, kNodeBytes);
    if constexpr (K == ListKind::kTlog)
      logs_ = reinterpret_cast<Log*>(align_line(root_->logs.get()));
    if constexpr (kValidity) {
      rebuild_from_members();
    } else {
      unlink_marked();
      if constexpr (K == ListKind::kTlog) redo_logs();
      slab_->rebuild([&](auto&& mark) {
        mark(kHead);
        mark(kTail);
        walk_durable([&](uint64_t, uint64_t x) { mark(x); });
      });
    }
  }

  // f(pred, x) for every node reachable from the head (sentinels excepted),
  // bounded by the slab (a cycle is an invariant violation).
  template <class F>
  void walk_durable(F&& f) {
    uint64_t steps = 0;
    for (uint64_t p = kHead, x = index(lload(kHead)); x != kTail; p = x, x = index(lload(x))) {
      if (x == 0 || x > slab_->capacity() || ++steps > slab_->capacity()) {
        throw InvariantViolation(fmt::format("{}: recovery found a broken link to {}", kName, x));
      }
      f(p, x);
    }
  }

  // tlog, logfree: every marked node still linked is unlinked at its
  // predecessor (never by rewriting the marked node's own link).
  void unlink_marked() {
    uint64_t p = kHead, steps = 0;
    for (uint64_t x = index(lload(kHead)); x != kTail;) {
      if (x == 0 || x > slab_->capacity() || ++steps > slab_->capacity()) {
        throw InvariantViolation(fmt::format("{}: recovery found a broken link to {}", kName, x));
      }
      const uint64_t next = lload(x);
      if (marked(next)) {
        b_.atomic_store(next_word(p), next & ~uint64_t{1});
        b_.persist(&next_word(p), sizeof(uint64_t));
      } else {
        p = x;
      }
      x = index(next);
    }
  }

  // tlog: each thread's logged update, redone where its effect is not durable.
  void redo_logs() {
    for (uint32_t t = 0; t < n_; ++t) {
      Log& l = logs_[t];
      const uint64_t op = load(l.op), key = load(l.key), node = load(l.node);
      if (op != kNoOp && node >= 3 && node <= slab_->capacity() && key_of(node) == key) {
        uint64_t pred = 0, right = kTail, found = 0;
        walk_durable([&](uint64_t p, uint64_t x) {
          if (x == node) found = p;
          if (key_of(x) < key) pred = x;
          if (key_of(x) >= key && right == kTail) right = x;
        });
        if (pred == 0) pred = kHead;
        const bool unmarked = !marked(lload(node));
        if (op == kLogInsert && found == 0 && unmarked &&
            (right == kTail || key_of(right) != key)) {
          b_.atomic_store(next_word(node), link(right));
          b_.persist(&next_word(node), sizeof(uint64_t));
          b_.atomic_store(next_word(pred), link(node));
          b_.persist(&next_word(pred), sizeof(uint64_t));
        } else if (op == kLogDelete && found != 0 && unmarked) {
          const uint64_t next = lload(node);
          b_.atomic_store(next_word(node), next | 1);
          b_.persist(&next_word(node), sizeof(uint64_t));
          b_.atomic_store(next_word(found), next);
          b_.persist(&next_word(found), sizeof(uint64_t));
        }
      }
      if (op != kNoOp) {
        b_.atomic_store(l.op, kNoOp);
        b_.persist(&l.op, sizeof(uint64_t));
      }
    }
  }

  // linkfree, soft: the members (valid, not deleted) relinked in key order.
  void rebuild_from_members() {
    if constexpr (K == ListKind::kSoft) links_.assign(slab_->capacity() + 1, 0);
    std::vector<std::pair<uint64_t, uint64_t>> members;  // key, node
    for (uint64_t x = 3; x <= slab_->capacity(); ++x) {
      const uint64_t s = load(state_word(x));
      const bool member = K == ListKind::kSoft ? (s & (kValid | kDeleted)) == kValid
                                               : (s & kValid) != 0 && !marked(load(next_word(x)));
      if (member) members.emplace_back(key_of(x), x);
    }
    std::sort(members.begin(), members.end());
    uint64_t prev = kHead;
    for (const auto& m : members) {
      lstore(prev, link(m.second));
      prev = m.second;
    }
    lstore(prev, link(kTail));
    slab_->rebuild([&](auto&& mark) {
      mark(kHead);
      mark(kTail);
      for (const auto& m : members) mark(m.second);
    });
  }

  B& b_;
  Root* root_ = nullptr;
  std::optional<Slab<B>> slab_;
  mutable Epochs epochs_;
  uint32_t n_;
  Log* logs_ = nullptr;
  std::vector<uint64_t> links_;  // soft: next links, in DRAM
};

template <Backend B>
using LfListHarris = LfList<B, ListKind::kHarris>;
template <Backend B>
using LfListTlog = LfList<B, ListKind::kTlog>;
template <Backend B>
using LfListLogfree = LfList<B, ListKind::kLogfree>;
template <Backend B>
using LfListLinkfree = LfList<B, ListKind::kLinkfree>;
template <Backend B>
using LfListSoft = LfList<B, ListKind::kSoft>;

}  // namespace pmemids
