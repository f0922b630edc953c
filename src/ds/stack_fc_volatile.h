// Flat combining without persistence (seed 004's baseline), operation set
// `stack`: threads post requests on a volatile board (ds/combining.h), one
// thread at a time takes the combiner lock and serves every posted request
// (up to --combining-rounds passes), with elimination, on the shared node
// stack (ds/node_stack.h), answering through the board.
//
// Synchronisation: internal; worker t calls through handle(t). Modes dram
// and pmem-volatile; nothing is durable, no recovery.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "backend/backend.h"
#include "ds/combining.h"
#include "ds/common.h"
#include "ds/node_stack.h"

namespace pmemids {

template <Backend B>
class StackFcVolatile {
  struct Root {
    RootHeader hdr;
    typename B::template Ptr<char> nodes;
  };
  struct alignas(64) ThreadState {
    uint64_t seq = 0;     // the thread's last operation
    uint64_t served = 0;  // combiners only: the last seq answered
  };

 public:
  static constexpr const char* kName = "stack-fc-volatile";
  static constexpr const char* kDescription =
      "flat-combining stack (seed 004's baseline): volatile requests, one combiner, elimination, "
      "no persistence";
  static constexpr OpSet kOpSet = OpSet::kStack;
  static constexpr Sync kSync = Sync::kInternal;
  static constexpr ModeSet kModes = kVolatileModes;
  static constexpr DomainSet kDomains = kEveryDomain;
  static constexpr bool kHarness = false;
  static constexpr const Knob* kKnobs[] = {&kWaitKnob, &kCombinerYieldKnob, &kEliminationKnob,
                                           &kCombiningRoundsKnob};
  static constexpr auto& kMetrics = kCombiningMetrics;
  enum : unsigned { kTypeNodes = 1 };

  static uint64_t element_bytes(uint32_t) { return sizeof(typename NodeStack<B>::Node); }
  static uint64_t pool_nodes(const DsOptions& o) {
    return o.combining.poolnodes != 0 ? o.combining.poolnodes
                                      : o.capacity + 64 * uint64_t{o.threads} + 64;
  }
  static uint64_t pool_bytes(const DsOptions& o) {
    return NodeStack<B>::bytes(pool_nodes(o)) + 4096;
  }

  using Handle = CombiningHandle<StackFcVolatile>;
  friend class CombiningHandle<StackFcVolatile>;

  StackFcVolatile(B& b, const DsOptions& o)
      : b_(b),
        n_(o.threads),
        opt_(o.combining),
        waiter_(o.combining, o.threads),
        board_(o.threads),
        states_(std::make_unique<ThreadState[]>(o.threads)) {
    root_ = b.template root<Root>();
    nodes_.emplace(b, pool_nodes(o), kTypeNodes);
    root_->nodes = nodes_->array();
    root_->hdr = RootHeader::make(o, n_);
    batch_.reserve(n_);
    popped_.reserve(size_t{n_} * opt_.rounds);
  }
  ~StackFcVolatile() {
    if (nodes_) b_.free(nodes_->array());
  }
  StackFcVolatile(const StackFcVolatile&) = delete;
  StackFcVolatile& operator=(const StackFcVolatile&) = delete;

  Handle handle(int t) { return combining_handle(this, n_, t); }

  // Quiescent callers only: the pool's bitmap equals the reachable nodes;
  // returns the stack's size.
  uint64_t check() const { return nodes_->verify(top_, 0, kName); }
  template <class F>
  void for_each(F&& f) const {
    nodes_->walk(
        top_, [&](uint64_t x) { f(nodes_->id(x)); }, kName);
  }
  template <class F>
  void for_each_object(F&& visit) const {
    visit(static_cast<const void*>(root_->nodes.get()));
  }

 private:
  bool op(uint32_t t, StackRequest::Type type, uint64_t arg, uint64_t& out) {
    const uint64_t seq = ++states_[t].seq;
    board_.post(t, type, arg, seq);
    for (;;) {
      const uint64_t r = board_.response(t);
      if (r >> 1 == seq) {
        out = board_.out(t);
        return (r & 1) != 0;
      }
      if (lock_.try_lock()) {
        combine();
        lock_.unlock();
        waiter_.after_session();
        continue;
      }
      waiter_.pause(b_);
    }
  }

  // One session; the lock is held.
  void combine() {
    popped_.clear();
    bool any = false;
    for (uint32_t round = 0; round < opt_.rounds; ++round) {
      batch_.clear();
      StackRequest q;
      for (uint32_t t = 0; t < n_; ++t) {
        if (board_.pending(t, states_[t].served, q)) batch_.push_back(q);
      }
      if (batch_.empty()) break;
      any = true;
      top_ = apply_batch(*nodes_, cursor_, top_, std::span(batch_), opt_.elimination, popped_,
                         [](uint64_t) {});
      for (const StackRequest& r : batch_) {
        states_[r.thread].served = r.seq;
        board_.answer(r);
      }
    }
    if (any) ++tl_costs.ds[kSessions];
    for (uint64_t x : popped_) nodes_->release(x);
  }

  B& b_;
  uint32_t n_;
  CombiningOptions opt_;
  Waiter waiter_;
  RequestBoard board_;
  std::unique_ptr<ThreadState[]> states_;
  Root* root_ = nullptr;
  std::optional<NodeStack<B>> nodes_;
  CombinerLock lock_;
  // The combiner's (one at a time).
  uint64_t top_ = 0;
  typename NodeStack<B>::Cursor cursor_;
  std::vector<StackRequest> batch_;
  std::vector<uint64_t> popped_;
};

}  // namespace pmemids
