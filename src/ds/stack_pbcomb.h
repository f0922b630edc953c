// PBcomb (Fatourou, Kallimanis, Kosmas, PPoPP'22, seed 004), operation set
// `stack`, with the recovery its artifact lacks.
//
// Volatile: per-thread requests {type, arg, seq} (ds/combining.h
// RequestBoard; the seq's parity is the artifact's activate bit), the
// odd/even combiner lock, the pool's free bitmap. Persistent: one object
// holding the index of the current state copy (its own line) and two state
// copies; a copy is {top} on one line, then per thread {seq << 1 | ok, out}:
// the last operation of the thread that was applied (its seq is the
// deactivate bit's counterpart) and its response.
//
// Operation by thread t: post the request; wait until the current copy
// answers it, or take the lock and combine. Waiters read the current copy
// between two reads of the lock's value (a seqlock): a copy is only trusted
// when no session ran meanwhile, so an answer is never read before its
// session switched the index.
// Combining session (lock held, current copy c): copy c into the other copy
// word by word; up to `--combining-rounds` passes, each collecting the
// requests the copy has not answered, eliminating push/pop pairs and applying
// the rest to the stack (new nodes' lines recorded once each); then set the
// copy's top, flush the recorded node lines and the whole copy, fence, switch
// the index, flush it, fence; only then recycle the popped nodes (--recycle).
//
// Durable when: an operation is answered only through the current copy,
// which was persisted (with the nodes it reaches) before the index naming it.
// What a crash can leave: an index naming the old copy (the session is lost:
// its requests were volatile, their threads had not been answered, so they
// were not applied) or the new one (applied); nodes unreachable from the
// current copy's top (free after the bitmap rebuild). The copy not named is
// never read. Recovery: rebuild the bitmap from the current copy's top and
// take each thread's last applied seq from it; recovered(t) reports that
// operation (an operation the thread had begun later was not applied).
// Nothing is written, so a crash inside recovery changes nothing.
//
// Synchronisation: internal; worker t calls through handle(t). Modes dram,
// pmem-volatile and pmem-persist.
//
// The class is shared with stack-dfc-volreq (ds/stack_dfc_volreq.h: DFC's
// session over this split of volatile requests and persistent state): a
// Session policy gives the name, the passes per session and how new nodes
// are flushed; everything above holds for both.
#pragma once

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
namespace pbcomb {

// PBcomb's session: up to --combining-rounds passes, each new node's lines
// recorded and flushed once each at the end.
struct PbcombSession {
  static constexpr const char* kName = "stack-pbcomb";
  static constexpr const char* kDescription =
      "PBcomb (seed 004): volatile requests, two persistent state copies and a persisted index, "
      "deduplicated flushes, with recovery";
  static uint32_t passes(const CombiningOptions& o) { return o.rounds; }
  static constexpr const Knob* kKnobs[] = {&kWaitKnob, &kCombinerYieldKnob, &kEliminationKnob,
                                           &kRecycleKnob, &kCombiningRoundsKnob};
  static constexpr bool kDedupNodeFlushes = true;
};

}  // namespace pbcomb

template <Backend B, class Session>
class StateCopyStack {
  struct Root {
    RootHeader hdr;
    typename B::template Ptr<char> nodes;
    typename B::template Ptr<char> state;
    uint64_t capacity;
    uint64_t threads;
  };
  struct Entry {
    uint64_t word;  // seq << 1 | ok
    uint64_t out;
  };
  struct alignas(64) ThreadState {
    uint64_t seq = 0;  // the thread's last operation
  };

 public:
  static constexpr const char* kName = Session::kName;
  static constexpr const char* kDescription = Session::kDescription;
  static constexpr auto& kKnobs = Session::kKnobs;
  static constexpr auto& kMetrics = kCombiningMetrics;
  static constexpr OpSet kOpSet = OpSet::kStack;
  static constexpr Sync kSync = Sync::kInternal;
  static constexpr ModeSet kModes{Mode::kDram, Mode::kVolatile, Mode::kPersist};
  static constexpr DomainSet kDomains = kEveryDomain;
  static constexpr bool kHarness = false;
  enum : unsigned { kTypeNodes = 1, kTypeState = 2 };

  static uint64_t element_bytes(uint32_t) { return sizeof(typename NodeStack<B>::Node); }
  static uint64_t copy_bytes(uint64_t n) {
    return kCacheLine + (n * sizeof(Entry) + kCacheLine - 1) / kCacheLine * kCacheLine;
  }
  static uint64_t state_bytes(uint64_t n) { return 2 * kCacheLine + 2 * copy_bytes(n); }
  static uint64_t pool_nodes(const DsOptions& o) {
    return o.combining.poolnodes != 0 ? o.combining.poolnodes
                                      : o.capacity + 64 * uint64_t{o.threads} + 64;
  }
  static uint64_t pool_bytes(const DsOptions& o) {
    return NodeStack<B>::bytes(pool_nodes(o)) + state_bytes(o.threads) + 4096;
  }

  using Handle = CombiningHandle<StateCopyStack>;
  friend class CombiningHandle<StateCopyStack>;

  StateCopyStack(B& b, const DsOptions& o)
      : b_(b),
        n_(o.threads),
        opt_(o.combining),
        passes_(Session::passes(o.combining)),
        waiter_(o.combining, o.threads),
        board_(o.threads),
        states_(std::make_unique<ThreadState[]>(o.threads)) {
    root_ = b.template root<Root>();
    batch_.reserve(n_);
    popped_.reserve(size_t{n_} * passes_);
    lines_.reserve(size_t{n_} * passes_ + copy_bytes(n_) / kCacheLine);
    if (b.created()) {
      nodes_.emplace(b, pool_nodes(o), kTypeNodes);
      const auto state = b.template zalloc<char>(state_bytes(n_), kTypeState);
      b.seal(state.get(), state_bytes(n_));
      b.tx([&] {
        b.store(root_->nodes, nodes_->array());
        b.store(root_->state, state);
        b.store(root_->capacity, nodes_->capacity());
        b.store(root_->threads, uint64_t{n_});
        b.store(root_->hdr, RootHeader::make(o, n_));
      });
      base_ = align_line(root_->state.get());
      return;
    }
    root_->hdr.check_reopen(o, kName);
    if (root_->threads != n_) {
      throw UsageError(fmt::format("{}: the pool holds the state of {} threads, the run has {}",
                                   kName, root_->threads, n_));
    }
    nodes_.emplace(b, root_->nodes, root_->capacity);
    base_ = align_line(root_->state.get());
    recover();
  }
  ~StateCopyStack() {
    if constexpr (!B::kDurable) {
      if (root_ != nullptr && root_->state) b_.free(root_->state);
      if (nodes_) b_.free(nodes_->array());
    }
  }
  StateCopyStack(const StateCopyStack&) = delete;
  StateCopyStack& operator=(const StateCopyStack&) = delete;

  Handle handle(int t) { return combining_handle(this, n_, t); }

  // After recovery: thread t's last applied operation.
  RecoveredOp recovered(int t) const {
    const Entry& e = entry(current(), static_cast<uint32_t>(t));
    if (e.word >> 1 == 0) return {};
    return {.status = RecoveredOp::kApplied,
            .seq = e.word >> 1,
            .ok = (e.word & 1) != 0,
            .response = e.out};
  }

  // Quiescent callers only: the pool's bitmap equals the nodes reachable from
  // the current copy's top (plus popped nodes held back with --recycle off);
  // returns the stack's size.
  uint64_t check() const {
    const uint64_t c = index();
    if (c > 1) throw InvariantViolation(fmt::format("{}: state index {}", kName, c));
    return nodes_->verify(top(current()), held_, kName);
  }
  template <class F>
  void for_each(F&& f) const {
    nodes_->walk(
        top(current()), [&](uint64_t x) { f(nodes_->id(x)); }, kName);
  }
  template <class F>
  void for_each_object(F&& visit) const {
    visit(static_cast<const void*>(root_->nodes.get()));
    visit(static_cast<const void*>(root_->state.get()));
  }

 private:
  uint64_t& index() const { return *reinterpret_cast<uint64_t*>(base_); }
  // Line 0 the index, then the two copies (state_bytes keeps a line of slack
  // for align_line).
  char* copy(uint64_t c) const { return base_ + kCacheLine + c * copy_bytes(n_); }
  char* current() const { return copy(index() & 1); }
  static uint64_t& top(char* cp) { return *reinterpret_cast<uint64_t*>(cp); }
  Entry& entry(char* cp, uint32_t t) const { return reinterpret_cast<Entry*>(cp + kCacheLine)[t]; }

  bool op(uint32_t t, StackRequest::Type type, uint64_t arg, uint64_t& out) {
    const uint64_t seq = ++states_[t].seq;
    board_.post(t, type, arg, seq);
    for (;;) {
      const uint64_t seen = lock_.value();
      if ((seen & 1) == 0) {
        Entry& e = entry(copy(b_.load(index()) & 1), t);
        const uint64_t word = b_.load(e.word);
        const uint64_t o = b_.load(e.out);
        if (lock_.value() == seen) {
          if (word >> 1 == seq) {
            out = o;
            return (word & 1) != 0;
          }
          if (lock_.try_lock_from(seen)) {
            combine();
            lock_.unlock();
            waiter_.after_session();
            continue;
          }
        }
      }
      waiter_.pause(b_);
    }
  }

  // One session; the lock is held.
  void combine() {
    const uint64_t c = b_.load(index()) & 1;
    char* from = copy(c);
    char* to = copy(c ^ 1);
    StackRequest q;
    uint32_t first = 0;
    while (first < n_ && !board_.pending(first, entry(from, first).word >> 1, q)) ++first;
    if (first == n_) return;  // nothing to answer: no copy, the index stays
    const auto* src = reinterpret_cast<uint64_t*>(from);
    auto* dst = reinterpret_cast<uint64_t*>(to);
    for (uint64_t w = 0; w < copy_bytes(n_) / sizeof(uint64_t); ++w) {
      b_.atomic_store(dst[w], b_.load(src[w]));
    }
    uint64_t stack = top(to);
    popped_.clear();
    for (uint32_t round = 0; round < passes_; ++round) {
      batch_.clear();
      for (uint32_t t = 0; t < n_; ++t) {
        if (board_.pending(t, entry(to, t).word >> 1, q)) batch_.push_back(q);
      }
      if (batch_.empty()) break;
      stack = apply_batch(*nodes_, cursor_, stack, std::span(batch_), opt_.elimination, popped_,
                          [&](uint64_t x) {
                            if constexpr (Session::kDedupNodeFlushes) {
                              lines_.add(nodes_->address(x), sizeof(typename NodeStack<B>::Node));
                            } else {
                              nodes_->flush(x);
                            }
                          });
      for (const StackRequest& r : batch_) {
        Entry& e = entry(to, r.thread);
        b_.atomic_store(e.out, r.out);
        b_.atomic_store(e.word, r.seq << 1 | uint64_t{r.ok});
      }
    }
    ++tl_costs.ds[kSessions];
    b_.atomic_store(top(to), stack);
    lines_.flush(b_);
    b_.flush(to, copy_bytes(n_));
    b_.drain();
    b_.atomic_store(index(), c ^ 1);
    b_.persist(&index(), sizeof(uint64_t));
    if (opt_.recycle) {
      for (uint64_t x : popped_) nodes_->release(x);
    } else {
      held_ += popped_.size();
    }
  }

  void recover() {
    char* cp = current();
    nodes_->rebuild(top(cp), kName);
    for (uint32_t t = 0; t < n_; ++t) states_[t].seq = entry(cp, t).word >> 1;
  }

  B& b_;
  uint32_t n_;
  CombiningOptions opt_;
  uint32_t passes_;
  Waiter waiter_;
  RequestBoard board_;
  std::unique_ptr<ThreadState[]> states_;
  Root* root_ = nullptr;
  char* base_ = nullptr;
  std::optional<NodeStack<B>> nodes_;
  CombinerLock lock_;
  // The combiner's scratch (one combiner at a time).
  typename NodeStack<B>::Cursor cursor_;
  std::vector<StackRequest> batch_;
  std::vector<uint64_t> popped_;
  LineSet lines_;
  uint64_t held_ = 0;  // popped nodes not recycled (--recycle off)
};

template <Backend B>
using StackPbcomb = StateCopyStack<B, pbcomb::PbcombSession>;

}  // namespace pmemids
