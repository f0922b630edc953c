// The lock-based baseline of seed 004's comparison, operation set `stack`: the
// shared node stack (ds/node_stack.h) with one persistent top, synchronised
// externally (concurrent mode's global lock).
//
// Durability (pmem-persist): push writes a fresh node {id, old top}, persists
// it, then stores and persists the top (one 8-byte word); pop stores and
// persists the top's successor as the top, then frees the node in the
// volatile bitmap. Each operation is durable when it returns. What a crash
// can leave: a persisted node not yet reachable (free after recovery's
// bitmap rebuild). Recovery rebuilds the bitmap from the top.
// Modes dram, pmem-volatile and pmem-persist.
#pragma once

#include <cstdint>
#include <optional>

#include "backend/backend.h"
#include "ds/common.h"
#include "ds/node_stack.h"

namespace pmemids {

template <Backend B>
class StackLock {
  struct Root {
    RootHeader hdr;
    typename B::template Ptr<char> nodes;
    uint64_t capacity;
    uint64_t top;
  };

 public:
  static constexpr const char* kName = "stack-lock";
  static constexpr const char* kDescription =
      "node stack with one persistent top, under the concurrent mode's lock (seed 004's "
      "baseline)";
  static constexpr OpSet kOpSet = OpSet::kStack;
  static constexpr Sync kSync = Sync::kExternal;
  static constexpr ModeSet kModes{Mode::kDram, Mode::kVolatile, Mode::kPersist};
  static constexpr DomainSet kDomains = kEveryDomain;
  static constexpr bool kHarness = false;
  enum : unsigned { kTypeNodes = 1 };

  static uint64_t element_bytes(uint32_t) { return sizeof(typename NodeStack<B>::Node); }
  static uint64_t pool_nodes(const DsOptions& o) {
    return o.combining.poolnodes != 0 ? o.combining.poolnodes : o.capacity + 64;
  }
  static uint64_t pool_bytes(const DsOptions& o) {
    return NodeStack<B>::bytes(pool_nodes(o)) + 4096;
  }

  StackLock(B& b, const DsOptions& o) : b_(b) {
    root_ = b.template root<Root>();
    if (b.created()) {
      nodes_.emplace(b, pool_nodes(o), kTypeNodes);
      b.tx([&] {
        b.store(root_->nodes, nodes_->array());
        b.store(root_->capacity, nodes_->capacity());
        b.store(root_->hdr, RootHeader::make(o, 0));
      });
      return;
    }
    root_->hdr.check_reopen(o, kName);
    nodes_.emplace(b, root_->nodes, root_->capacity);
    nodes_->rebuild(root_->top, kName);
  }
  ~StackLock() {
    if constexpr (!B::kDurable) {
      if (nodes_) b_.free(nodes_->array());
    }
  }
  StackLock(const StackLock&) = delete;
  StackLock& operator=(const StackLock&) = delete;

  bool push(uint64_t id) {
    const uint64_t x = nodes_->make(cursor_, id, root_->top);
    if (x == 0) return false;
    nodes_->flush(x);
    b_.drain();
    b_.store_word(root_->top, x);
    return true;
  }
  bool pop(uint64_t& id) {
    const uint64_t x = root_->top;
    if (x == 0) return false;
    id = nodes_->id(x);
    b_.store_word(root_->top, nodes_->next(x));
    nodes_->release(x);
    return true;
  }

  // The pool's bitmap equals the reachable nodes; returns the stack's size.
  uint64_t check() const { return nodes_->verify(root_->top, 0, kName); }
  template <class F>
  void for_each(F&& f) const {
    nodes_->walk(
        root_->top, [&](uint64_t x) { f(nodes_->id(x)); }, kName);
  }
  template <class F>
  void for_each_object(F&& visit) const {
    visit(static_cast<const void*>(root_->nodes.get()));
  }

 private:
  B& b_;
  Root* root_ = nullptr;
  std::optional<NodeStack<B>> nodes_;
  typename NodeStack<B>::Cursor cursor_;
};

}  // namespace pmemids
