// Detectable flat combining (DFC, seed 004), operation set `stack`, in two
// layouts of its announcement state: `stack-dfc` (one persistent object per
// thread, reached through a persistent pointer table, as the artifact does)
// and `stack-dfc-flat` (seed 004's change: every array in one flat persistent
// object, base + offset, the collected records flushed in one range). The
// algorithm and the node stack (ds/node_stack.h) are the same.
//
// Persistent state: an epoch word E (even at rest), two tops selected by
// (E / 2) % 2, per thread two announcement records {op | ok | seq, arg, out,
// sess} (32 bytes, never across a line) and a valid word (which record, and
// whether it is announced / collectable), and the node pool. Volatile: the
// combiner lock (ds/combining.h), the pool's free bitmap, per-thread cursors.
//
// Operation by thread t: fill its other record (sess = pending) and, with
// --persist-requests on, persist it; valid = that record | announced, persist;
// valid |= collectable. Then wait until the record is served (sess = s) and
// committed (E >= s + 2), or take the lock and combine.
// Combining session (lock held, E = e even): collect every collectable record
// not served by a committed session; answer push/pop pairs directly
// (--elimination); apply the rest to the stack of the current top, flushing
// each new node; write the new top into the other top slot and flush it; write
// each collected record's response with sess = e and flush the records (flat:
// one range; with --persist-requests off the valid words too); fence; E = e + 1,
// persist; E = e + 2, persist; only then recycle the popped nodes (--recycle).
//
// Durable when: an operation returns only after the session that applied it
// persisted E = e + 1, which follows (fence) the new nodes, the new top and
// its response; E = e + 1 selects the same top slot as e, so the session
// commits at E = e + 1 being durable, and recovery rounds an odd E up.
// What a crash can leave: an odd E (the session committed: rounded up);
// records with sess >= E (their session did not commit: they are collected
// again); announced, not collectable records; new nodes unreachable from the
// current top (free after the bitmap rebuild). Nodes are never changed once
// linked, so the current top's stack is intact whatever the other slot holds.
// Recovery: round E up to even, rebuild the free bitmap from the current top,
// make announced records collectable, run one combining session (it applies
// every announced, uncommitted operation). Then every thread's last announced
// operation has been applied and recovered(t) reports its response and its
// sequence number; an operation a thread had begun but not announced (its
// valid word still names the older record) was not applied. Recovery is
// idempotent (a crash inside it leaves the same kinds of state).
// With --persist-requests off, an announcement reaches PMEM only when a
// combiner persists it (records and valid words of what it collected); an
// operation whose announcement was lost is reported as not applied.
//
// Synchronisation: internal; worker t calls through handle(t). Modes dram,
// pmem-volatile (no persistence: flushes cost nothing) and pmem-persist.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "backend/backend.h"
#include "ds/combining.h"
#include "ds/common.h"
#include "ds/detectable.h"
#include "ds/node_stack.h"

namespace pmemids {
namespace dfc {

struct alignas(32) Rec {
  uint64_t op;  // StackRequest::Type | ok << 2 | seq << 3
  uint64_t arg;
  uint64_t out;
  uint64_t sess;  // epoch of the session that applied it; kPending before
};
inline constexpr uint64_t kPending = ~uint64_t{0};
inline constexpr uint64_t kIndex = 1, kAnnounced = 2, kCollectable = 4;

template <Backend B>
struct Root {
  RootHeader hdr;
  typename B::template Ptr<char> nodes;
  typename B::template Ptr<char> state;  // epoch, tops (flat: everything)
  typename B::template Ptr<char> table;  // split: per-thread objects
  uint64_t capacity;
  uint64_t threads;
};

// stack-dfc: epoch and tops in one object; per thread one object {valid,
// record 0, record 1} (a line each), reached through a table of persistent
// pointers, translated on every access (the artifact's persistent_ptr).
template <Backend B>
class SplitLayout {
  using Ptr = typename B::template Ptr<char>;

 public:
  static constexpr const char* kName = "stack-dfc";
  static constexpr const char* kDescription =
      "detectable flat combining (seed 004): per-thread announcement objects, two tops by epoch "
      "parity, node pool";
  static uint64_t bytes(uint64_t n) { return 4 * kCacheLine + n * (sizeof(Ptr) + 5 * kCacheLine); }

  void create(B& b, Root<B>& root, uint64_t n) {
    const Ptr state = b.template zalloc<char>(3 * kCacheLine, 2);
    const Ptr table = b.template zalloc<char>(n * sizeof(Ptr) + kCacheLine, 3);
    auto* slots = reinterpret_cast<Ptr*>(align_line(table.get()));
    for (uint64_t t = 0; t < n; ++t) {
      slots[t] = b.template zalloc<char>(4 * kCacheLine, 4);
      b.seal(slots[t].get(), 4 * kCacheLine);
    }
    b.seal(table.get(), n * sizeof(Ptr) + kCacheLine);
    b.seal(state.get(), 3 * kCacheLine);
    b.tx([&] {
      b.store(root.state, state);
      b.store(root.table, table);
    });
    attach(root, n);
  }
  void attach(const Root<B>& root, uint64_t n) {
    root_ = &root;
    state_ = align_line(root.state.get());
    table_ = reinterpret_cast<Ptr*>(align_line(root.table.get()));
    n_ = n;
  }

  uint64_t& epoch() const { return *reinterpret_cast<uint64_t*>(state_); }
  uint64_t& top(uint64_t parity) const {
    return reinterpret_cast<uint64_t*>(state_ + kCacheLine)[parity];
  }
  uint64_t& valid(uint64_t t) const { return *reinterpret_cast<uint64_t*>(thread(t)); }
  Rec& rec(uint64_t t, uint64_t i) const {
    return *reinterpret_cast<Rec*>(thread(t) + (1 + i) * kCacheLine);
  }
  // Writes back what a session collected: each record (with its valid word
  // when `valid_too`). `planted`: the artifact's defect, the thread's pointer
  // slot instead of its record.
  void flush_collected(B& b, std::span<const StackRequest> batch, bool valid_too,
                       bool planted) const {
    for (const StackRequest& q : batch) {
      if (planted) {
        b.flush(&table_[q.thread], sizeof(Ptr));
      } else {
        b.flush(&rec(q.thread, q.slot), sizeof(Rec));
      }
      if (valid_too) b.flush(&valid(q.thread), sizeof(uint64_t));
    }
  }
  template <class F>
  void for_each_object(F&& visit) const {
    visit(static_cast<const void*>(root_->state.get()));
    visit(static_cast<const void*>(root_->table.get()));
    for (uint64_t t = 0; t < n_; ++t) visit(static_cast<const void*>(table_[t].get()));
  }
  // Non-durable modes, when the stack is destroyed: frees the objects above.
  void release(B& b) const {
    for (uint64_t t = 0; t < n_; ++t) b.free(table_[t]);
    b.free(root_->table);
    b.free(root_->state);
  }

 private:
  char* thread(uint64_t t) const { return align_line(table_[t].get()); }

  const Root<B>* root_ = nullptr;
  char* state_ = nullptr;
  Ptr* table_ = nullptr;
  uint64_t n_ = 0;
};

// stack-dfc-flat: one object, base + offset: line 0 epoch, line 1 tops, then
// the valid words (contiguous), then the records (two per thread, two per
// line); the records a session collected are flushed as one range.
template <Backend B>
class FlatLayout {
 public:
  static constexpr const char* kName = "stack-dfc-flat";
  static constexpr const char* kDescription =
      "flat-object DFC (seed 004's change): announcement, valid, epoch and response arrays in one "
      "persistent object, bulk-flushed";
  static uint64_t valid_bytes(uint64_t n) { return (n * 8 + kCacheLine - 1) / kCacheLine * 64; }
  static uint64_t bytes(uint64_t n) {
    return 3 * kCacheLine + valid_bytes(n) + 2 * n * sizeof(Rec);
  }

  void create(B& b, Root<B>& root, uint64_t n) {
    const auto state = b.template zalloc<char>(bytes(n), 2);
    b.seal(state.get(), bytes(n));
    b.tx([&] { b.store(root.state, state); });
    attach(root, n);
  }
  void attach(const Root<B>& root, uint64_t n) {
    root_ = &root;
    base_ = align_line(root.state.get());
    valid_ = reinterpret_cast<uint64_t*>(base_ + 2 * kCacheLine);
    recs_ = reinterpret_cast<Rec*>(base_ + 2 * kCacheLine + valid_bytes(n));
  }

  uint64_t& epoch() const { return *reinterpret_cast<uint64_t*>(base_); }
  uint64_t& top(uint64_t parity) const {
    return reinterpret_cast<uint64_t*>(base_ + kCacheLine)[parity];
  }
  uint64_t& valid(uint64_t t) const { return valid_[t]; }
  Rec& rec(uint64_t t, uint64_t i) const { return recs_[2 * t + i]; }
  // One flush over the collected records' range (and one over their valid
  // words); `planted`: the valid words instead of the records.
  void flush_collected(B& b, std::span<const StackRequest> batch, bool valid_too,
                       bool planted) const {
    uint64_t lo = ~uint64_t{0}, hi = 0;
    for (const StackRequest& q : batch) {
      lo = std::min<uint64_t>(lo, 2 * q.thread + q.slot);
      hi = std::max<uint64_t>(hi, 2 * q.thread + q.slot);
    }
    if (planted || valid_too) b.flush(&valid_[lo / 2], (hi / 2 - lo / 2 + 1) * sizeof(uint64_t));
    if (!planted) b.flush(&recs_[lo], (hi - lo + 1) * sizeof(Rec));
  }
  template <class F>
  void for_each_object(F&& visit) const {
    visit(static_cast<const void*>(root_->state.get()));
  }
  // Non-durable modes, when the stack is destroyed: frees the one object.
  void release(B& b) const { b.free(root_->state); }

 private:
  const Root<B>* root_ = nullptr;
  char* base_ = nullptr;
  uint64_t* valid_ = nullptr;
  Rec* recs_ = nullptr;
};

}  // namespace dfc

template <Backend B, template <class> class Layout>
class Dfc {
  using L = Layout<B>;
  using Root = dfc::Root<B>;
  using Rec = dfc::Rec;
  struct alignas(64) ThreadState {
    uint64_t seq = 0;  // the thread's last announced operation
    uint64_t idx = 0;  // the record the valid word names
  };

 public:
  static constexpr const char* kName = L::kName;
  static constexpr const char* kDescription = L::kDescription;
  static constexpr const Knob* kKnobs[] = {&kWaitKnob, &kCombinerYieldKnob, &kPersistRequestsKnob,
                                           &kEliminationKnob, &kRecycleKnob};
  static constexpr auto& kMetrics = kCombiningMetrics;
  static constexpr OpSet kOpSet = OpSet::kStack;
  static constexpr Sync kSync = Sync::kInternal;
  static constexpr ModeSet kModes{Mode::kDram, Mode::kVolatile, Mode::kPersist};
  static constexpr DomainSet kDomains = kEveryDomain;
  static constexpr bool kHarness = false;
  enum : unsigned { kTypeNodes = 1 };

  static uint64_t element_bytes(uint32_t) { return sizeof(typename NodeStack<B>::Node); }
  static uint64_t pool_nodes(const DsOptions& o) {
    return o.combining.poolnodes != 0 ? o.combining.poolnodes
                                      : o.capacity + 64 * uint64_t{o.threads} + 64;
  }
  static uint64_t pool_bytes(const DsOptions& o) {
    return NodeStack<B>::bytes(pool_nodes(o)) + L::bytes(o.threads) + 4096;
  }

  using Handle = CombiningHandle<Dfc>;
  friend class CombiningHandle<Dfc>;

  Dfc(B& b, const DsOptions& o)
      : b_(b),
        n_(o.threads),
        opt_(o.combining),
        waiter_(o.combining, o.threads),
        states_(std::make_unique<ThreadState[]>(o.threads)) {
    root_ = b.template root<Root>();
    batch_.reserve(n_);
    popped_.reserve(n_);
    if (b.created()) {
      nodes_.emplace(b, pool_nodes(o), kTypeNodes);
      lay_.create(b, *root_, n_);
      b.tx([&] {
        b.store(root_->nodes, nodes_->array());
        b.store(root_->capacity, nodes_->capacity());
        b.store(root_->threads, uint64_t{n_});
        b.store(root_->hdr, RootHeader::make(o, n_));
      });
      return;
    }
    root_->hdr.check_reopen(o, kName);
    if (root_->threads != n_) {
      throw UsageError(fmt::format("{}: the pool holds announcements of {} threads, the run has {}",
                                   kName, root_->threads, n_));
    }
    nodes_.emplace(b, root_->nodes, root_->capacity);
    lay_.attach(*root_, n_);
    recover();
  }
  ~Dfc() {
    if constexpr (!B::kDurable) {
      if (root_ != nullptr && root_->state) lay_.release(b_);
      if (nodes_) b_.free(nodes_->array());
    }
  }
  Dfc(const Dfc&) = delete;
  Dfc& operator=(const Dfc&) = delete;

  Handle handle(int t) { return combining_handle(this, n_, t); }

  // After recovery: thread t's last announced operation (ds/traits.h,
  // ds/detectable.h).
  RecoveredOp recovered(int t) const {
    const uint64_t v = lay_.valid(static_cast<uint64_t>(t));
    if ((v & dfc::kAnnounced) == 0) return {};
    const Rec& r = lay_.rec(static_cast<uint64_t>(t), v & dfc::kIndex);
    if (r.sess == dfc::kPending) return {.status = RecoveredOp::kNotApplied, .seq = r.op >> 3};
    return {.status = RecoveredOp::kApplied,
            .seq = r.op >> 3,
            .ok = (r.op >> 2 & 1) != 0,
            .response = r.out};
  }

  // Quiescent callers only: E even, every announced operation served by a
  // committed session, the pool's bitmap equal to the reachable nodes (plus
  // popped nodes held back with --recycle off); returns the stack's size.
  uint64_t check() const {
    const uint64_t e = lay_.epoch();
    if (e & 1) throw InvariantViolation(fmt::format("{}: odd epoch {} at rest", kName, e));
    for (uint64_t t = 0; t < n_; ++t) {
      const uint64_t v = lay_.valid(t);
      if ((v & dfc::kAnnounced) == 0) continue;
      const Rec& r = lay_.rec(t, v & dfc::kIndex);
      if (r.sess == dfc::kPending || r.sess >= e) {
        throw InvariantViolation(
            fmt::format("{}: thread {}'s announced operation is not served at rest", kName, t));
      }
    }
    return nodes_->verify(current_top(), held_, kName);
  }
  template <class F>
  void for_each(F&& f) const {
    nodes_->walk(
        current_top(), [&](uint64_t x) { f(nodes_->id(x)); }, kName);
  }
  template <class F>
  void for_each_object(F&& visit) const {
    visit(static_cast<const void*>(root_->nodes.get()));
    lay_.for_each_object(visit);
  }

 private:
  uint64_t current_top() const { return lay_.top(lay_.epoch() / 2 % 2); }

  bool op(uint32_t t, StackRequest::Type type, uint64_t arg, uint64_t& out) {
    ThreadState& s = states_[t];
    const uint64_t seq = ++s.seq;
    const uint64_t i = s.idx ^ 1;
    Rec& r = lay_.rec(t, i);
    const Rec fresh{type | seq << 3, arg, 0, dfc::kPending};
    b_.put(&r, &fresh, sizeof fresh);
    if (opt_.persist_requests) b_.persist(&r, sizeof r);
    uint64_t& v = lay_.valid(t);
    b_.atomic_store(v, i | dfc::kAnnounced);
    if (opt_.persist_requests) b_.persist(&v, sizeof v);
    b_.atomic_store(v, i | dfc::kAnnounced | dfc::kCollectable);
    s.idx = i;
    for (;;) {
      const uint64_t sess = b_.load(r.sess);
      if (sess != dfc::kPending) {
        if (b_.load(lay_.epoch()) >= sess + 2) break;
      } else if (lock_.try_lock()) {
        combine();
        lock_.unlock();
        waiter_.after_session();
        continue;
      }
      waiter_.pause(b_);
    }
    const uint64_t word = b_.load(r.op);
    out = b_.load(r.out);
    return (word >> 2 & 1) != 0;
  }

  // One session; the lock is held (or recovery runs alone).
  void combine() {
    uint64_t& epoch = lay_.epoch();
    const uint64_t e = b_.load(epoch);
    batch_.clear();
    for (uint32_t t = 0; t < n_; ++t) {
      const uint64_t v = b_.load(lay_.valid(t));
      if ((v & dfc::kCollectable) == 0) continue;
      Rec& r = lay_.rec(t, v & dfc::kIndex);
      const uint64_t sess = b_.load(r.sess);
      if (sess != dfc::kPending && sess < e) continue;  // served by a committed session
      const uint64_t word = b_.load(r.op);
      batch_.push_back({.thread = t,
                        .type = static_cast<StackRequest::Type>(word & 3),
                        .arg = b_.load(r.arg),
                        .seq = word >> 3,
                        .slot = static_cast<uint32_t>(v & dfc::kIndex)});
    }
    if (batch_.empty()) return;
    ++tl_costs.ds[kSessions];
    const uint64_t cur = e / 2 % 2;
    uint64_t& next = lay_.top(cur ^ 1);
    popped_.clear();
    const uint64_t top =
        apply_batch(*nodes_, cursor_, b_.load(lay_.top(cur)), std::span(batch_), opt_.elimination,
                    popped_, [&](uint64_t x) {
                      if (opt_.planted_misflush) {
                        b_.flush(&next, sizeof next);  // the artifact: not the node
                      } else {
                        nodes_->flush(x);
                      }
                    });
    b_.atomic_store(next, top);
    b_.flush(&next, sizeof next);
    for (const StackRequest& q : batch_) {
      Rec& r = lay_.rec(q.thread, q.slot);
      b_.atomic_store(r.op, q.type | uint64_t{q.ok} << 2 | q.seq << 3);
      b_.atomic_store(r.out, q.out);
      b_.atomic_store(r.sess, e);
    }
    lay_.flush_collected(b_, batch_, !opt_.persist_requests, opt_.planted_misflush);
    b_.drain();
    b_.atomic_store(epoch, e + 1);
    b_.persist(&epoch, sizeof epoch);
    b_.atomic_store(epoch, e + 2);
    b_.persist(&epoch, sizeof epoch);
    if (opt_.recycle) {
      for (uint64_t x : popped_) nodes_->release(x);
    } else {
      held_ += popped_.size();
    }
  }

  void recover() {
    uint64_t& epoch = lay_.epoch();
    const uint64_t e = b_.load(epoch);
    if (e & 1) {
      b_.atomic_store(epoch, e + 1);
      b_.persist(&epoch, sizeof epoch);
    }
    nodes_->rebuild(current_top(), kName);
    for (uint32_t t = 0; t < n_; ++t) {
      uint64_t& v = lay_.valid(t);
      const uint64_t w = b_.load(v);
      if ((w & dfc::kAnnounced) != 0 && (w & dfc::kCollectable) == 0) {
        b_.atomic_store(v, w | dfc::kCollectable);
      }
      states_[t].idx = w & dfc::kIndex;
      states_[t].seq = lay_.rec(t, w & dfc::kIndex).op >> 3;
    }
    combine();
  }

  B& b_;
  uint32_t n_;
  CombiningOptions opt_;
  Waiter waiter_;
  std::unique_ptr<ThreadState[]> states_;
  Root* root_ = nullptr;
  L lay_;
  std::optional<NodeStack<B>> nodes_;
  CombinerLock lock_;
  // The combiner's scratch (one combiner at a time).
  typename NodeStack<B>::Cursor cursor_;
  std::vector<StackRequest> batch_;
  std::vector<uint64_t> popped_;
  uint64_t held_ = 0;  // popped nodes not recycled (--recycle off)
};

template <Backend B>
using StackDfc = Dfc<B, dfc::SplitLayout>;
template <Backend B>
using StackDfcFlat = Dfc<B, dfc::FlatLayout>;

}  // namespace pmemids
