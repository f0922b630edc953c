// A slab of fixed-size nodes for concurrent structures (the lock-free lists'
// and the combining stacks' node pools): `capacity` nodes allocated once from
// the backend as one object at creation, addressed by index 1..capacity (0 is
// null, so an index fits a link word with room for mark bits), and a volatile
// lock-free bitmap of the nodes in use, in DRAM.
//
// Durability: only the node array is persistent; the bitmap is not, so a
// crash can leak nothing. At recovery the structure rebuilds the bitmap from
// the nodes it reaches (rebuild()); verify() checks that the bitmap holds
// exactly a given set (the crash checker's "bitmap equals reachable nodes").
//
// Concurrency: alloc() and free() may be called by many threads at once, each
// with its own Cursor (an allocation hint, obtained once per thread). A node
// is handed out by one atomic fetch-or on its bit; free() clears it with a
// fetch-and (release), so the next owner's writes follow every access of the
// previous one that happened before the free (the caller's reclamation scheme,
// e.g. ds/epochs.h, must make sure no reader still holds the node).
// rebuild(), verify() and the counts are for quiescent callers only.
#pragma once

#include <atomic>
#include <bit>
#include <cstdint>
#include <memory>
#include <vector>

#include "backend/backend.h"
#include "counters/cost_counters.h"
#include "ds/common.h"
#include "errors.h"

namespace pmemids {

template <Backend B>
class Slab {
 public:
  using Array = typename B::template Ptr<char>;
  struct Cursor {
    uint64_t word = 0;  // bitmap word to try first
  };

  // Bytes of backend memory a slab of `capacity` nodes of `node_bytes` takes.
  static uint64_t bytes(uint64_t capacity, uint32_t node_bytes) {
    return capacity * node_bytes + kCacheLine;
  }

  // Creates the node array (zeroed) in `b`; every node is free.
  Slab(B& b, uint64_t capacity, uint32_t node_bytes, unsigned type)
      : Slab(b.template zalloc<char>(bytes(capacity, node_bytes), type), capacity, node_bytes) {}
  // Attaches to an existing array (a reopened pool): every node is free until
  // rebuild().
  Slab(Array array, uint64_t capacity, uint32_t node_bytes)
      : array_(array),
        base_(align_line(array.get())),
        capacity_(capacity),
        node_bytes_(node_bytes),
        words_((capacity + 63) / 64),
        bits_(std::make_unique<std::atomic<uint64_t>[]>(words_)) {
    if (capacity == 0) throw UsageError("slab: capacity 0");
  }

  Array array() const { return array_; }
  uint64_t capacity() const { return capacity_; }
  uint32_t node_bytes() const { return node_bytes_; }

  template <class Node>
  Node& at(uint64_t index) const {
    return *reinterpret_cast<Node*>(base_ + (index - 1) * node_bytes_);
  }
  char* raw(uint64_t index) const { return base_ + (index - 1) * node_bytes_; }

  // A free node's index, now in use; 0 when every node is in use.
  uint64_t alloc(Cursor& c) {
    for (uint64_t tries = 0; tries < words_; ++tries) {
      const uint64_t w = c.word;
      std::atomic<uint64_t>& word = bits_[w];
      uint64_t v = word.load(std::memory_order_relaxed);
      while (~v != 0) {
        const int bit = std::countr_one(v);
        const uint64_t index = w * 64 + static_cast<uint64_t>(bit) + 1;
        if (index > capacity_) break;
        const uint64_t mask = uint64_t{1} << bit;
        v = word.fetch_or(mask, std::memory_order_acquire);
        if ((v & mask) == 0) return index;
      }
      c.word = w + 1 == words_ ? 0 : w + 1;
    }
    return 0;
  }
  void free(uint64_t index) {
    bits_[(index - 1) / 64].fetch_and(~(uint64_t{1} << ((index - 1) % 64)),
                                      std::memory_order_release);
  }
  bool in_use(uint64_t index) const {
    return (bits_[(index - 1) / 64].load(std::memory_order_acquire) >> ((index - 1) % 64) & 1) != 0;
  }
  uint64_t in_use_count() const {
    uint64_t n = 0;
    for (uint64_t w = 0; w < words_; ++w) n += std::popcount(bits_[w].load());
    return n;
  }

  // Recovery: exactly the indices `each(mark)` reports are in use.
  template <class Each>
  void rebuild(Each&& each) {
    for (uint64_t w = 0; w < words_; ++w) bits_[w].store(0, std::memory_order_relaxed);
    each([&](uint64_t index) { mark(index); });
  }
  // InvariantViolation unless the nodes in use are exactly `expected` (which
  // must not repeat an index).
  void verify(const std::vector<uint64_t>& expected, const char* who) const {
    std::vector<uint64_t> want(words_, 0);
    for (uint64_t i : expected) {
      if (i == 0 || i > capacity_) {
        throw InvariantViolation(fmt::format("{}: node index {} outside the slab", who, i));
      }
      want[(i - 1) / 64] |= uint64_t{1} << ((i - 1) % 64);
    }
    for (uint64_t w = 0; w < words_; ++w) {
      const uint64_t have = bits_[w].load();
      if (have == want[w]) continue;
      const uint64_t diff = have ^ want[w];
      const uint64_t i = w * 64 + static_cast<uint64_t>(std::countr_zero(diff)) + 1;
      throw InvariantViolation(
          fmt::format("{}: slab bitmap says node {} is {}, the structure "
                      "says {}",
                      who, i, (have >> (i - 1) % 64 & 1) ? "in use" : "free",
                      (want[w] >> (i - 1) % 64 & 1) ? "in use" : "free"));
    }
  }

 private:
  void mark(uint64_t index) {
    if (index == 0 || index > capacity_) {
      throw InvariantViolation(
          fmt::format("slab: node index {} outside [1, {}]", index, capacity_));
    }
    bits_[(index - 1) / 64].fetch_or(uint64_t{1} << ((index - 1) % 64), std::memory_order_relaxed);
  }

  Array array_;
  char* base_;
  uint64_t capacity_;
  uint32_t node_bytes_;
  uint64_t words_;
  std::unique_ptr<std::atomic<uint64_t>[]> bits_;
};

}  // namespace pmemids
