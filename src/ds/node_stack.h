// The node stack the stacks of seed 004 share (stack-dfc, stack-dfc-flat,
// stack-pbcomb, stack-fc-volatile, stack-lock): nodes {id, next} from a
// preallocated pool (ds/slab.h), linked by index (0 = empty), so a stack is
// one top index and the pool is position-independent.
//
// Nodes are immutable once linked: a push writes a fresh node whose next is
// the old top, a pop only moves the top. A stack reachable from an old top
// therefore stays intact while a new one is built, which is what lets a
// design keep two tops (DFC) or two state copies (PBcomb) and switch between
// them with one persisted word.
//
// Durability: make() writes a node with b.put (not flushed); the caller
// flushes it (flush(), or its lines through a LineSet) before it publishes a
// top that reaches it. The pool's free bitmap is volatile: recovery rebuilds
// it from the durable top (rebuild()), so a crash leaks no node; verify()
// checks that the nodes in use are exactly those reachable.
//
// Concurrency: the caller serialises make, release and every walk (a
// combiner, or the caller's lock); the bitmap itself is thread-safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "backend/backend.h"
#include "ds/common.h"
#include "ds/slab.h"

namespace pmemids {

template <Backend B>
class NodeStack {
 public:
  struct Node {
    uint64_t id;
    uint64_t next;  // index of the node below, 0 at the bottom
  };
  using Array = typename Slab<B>::Array;
  using Cursor = typename Slab<B>::Cursor;

  static uint64_t bytes(uint64_t capacity) { return Slab<B>::bytes(capacity, sizeof(Node)); }

  // A new pool of `capacity` free nodes in `b`.
  NodeStack(B& b, uint64_t capacity, unsigned type)
      : b_(b), slab_(b, capacity, sizeof(Node), type) {}
  // Attaches to an existing pool; every node is free until rebuild().
  NodeStack(B& b, Array array, uint64_t capacity) : b_(b), slab_(array, capacity, sizeof(Node)) {}

  Array array() const { return slab_.array(); }
  uint64_t capacity() const { return slab_.capacity(); }

  // A fresh node {id, next}, written but not flushed; 0 when the pool is
  // exhausted.
  uint64_t make(Cursor& c, uint64_t id, uint64_t next) {
    const uint64_t x = slab_.alloc(c);
    if (x == 0) return 0;
    const Node n{id, next};
    b_.put(&node(x), &n, sizeof n);
    return x;
  }
  const Node* address(uint64_t x) const { return &node(x); }
  void flush(uint64_t x) { b_.flush(&node(x), sizeof(Node)); }
  uint64_t id(uint64_t x) const { return node(x).id; }
  uint64_t next(uint64_t x) const { return node(x).next; }
  // x is no longer reachable from any top a recovery could choose.
  void release(uint64_t x) { slab_.free(x); }

  // f(index) from `top` down; InvariantViolation on an index outside the
  // pool or a walk longer than the pool (a cycle).
  template <class F>
  void walk(uint64_t top, F&& f, const char* who) const {
    uint64_t n = 0;
    for (uint64_t x = top; x != 0; x = node(x).next) {
      if (x > slab_.capacity() || ++n > slab_.capacity()) {
        throw InvariantViolation(fmt::format("{}: link to node {} (pool of {}) after {} nodes", who,
                                             x, slab_.capacity(), n));
      }
      f(x);
    }
  }
  // Recovery: the nodes reachable from `top` are in use, the others free.
  void rebuild(uint64_t top, const char* who) {
    slab_.rebuild([&](auto&& mark) { walk(top, mark, who); });
  }
  // InvariantViolation unless the nodes in use are exactly those reachable
  // from `top`, or, when a design holds `held` popped nodes back (not
  // recycled), those plus `held` others; returns the stack's size.
  uint64_t verify(uint64_t top, uint64_t held, const char* who) const {
    std::vector<uint64_t> used;
    walk(
        top, [&](uint64_t x) { used.push_back(x); }, who);
    if (held == 0) {
      slab_.verify(used, who);
      return used.size();
    }
    for (uint64_t x : used) {
      if (!slab_.in_use(x)) {
        throw InvariantViolation(fmt::format("{}: reachable node {} is free in the pool", who, x));
      }
    }
    if (slab_.in_use_count() != used.size() + held) {
      throw InvariantViolation(fmt::format("{}: {} nodes in use, {} reachable and {} held back",
                                           who, slab_.in_use_count(), used.size(), held));
    }
    return used.size();
  }

 private:
  Node& node(uint64_t x) const { return slab_.template at<Node>(x); }

  B& b_;
  Slab<B> slab_;
};

// Cache lines to flush once each (PBcomb's deduplicated node flushes): add()
// records the lines of a range, flush() writes each back once and forgets
// them. Capacity grows in set-up only (reserve()), never in a timed loop.
class LineSet {
 public:
  void reserve(size_t lines) { lines_.reserve(lines); }
  void add(const void* p, size_t n) {
    const auto a = reinterpret_cast<uintptr_t>(p);
    for (uintptr_t l = a / kCacheLine; l <= (a + n - 1) / kCacheLine; ++l) {
      if (std::find(lines_.begin(), lines_.end(), l) == lines_.end()) lines_.push_back(l);
    }
  }
  template <class Bk>
  void flush(Bk& b) {
    for (uintptr_t l : lines_) b.flush(reinterpret_cast<const void*>(l * kCacheLine), kCacheLine);
    lines_.clear();
  }

 private:
  std::vector<uintptr_t> lines_;
};

}  // namespace pmemids
