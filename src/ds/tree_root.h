// What the node-based trees (btree, btree-embedded, bplustree) share: the
// persistent root record with its checked keys-per-node setting, the DRAM
// cache of the translated root node, root replacement when the tree grows or
// collapses, and the per-node fill and order check.
#pragma once

#include "backend/backend.h"
#include "ds/common.h"

namespace pmemids {

// --node-keys: keys per node; 0, each tree's own default.
inline constexpr Knob kNodeKeys{
    .name = "node_keys",
    .type = KnobType::kUnsigned,
    .def = 0,
    .min = 3,
    .max = 1024,
    .help = "B-tree / B+-tree keys per node",
    .default_text = "btree 10, bplustree 15",
    .get = [](const DsOptions& o) { return static_cast<double>(o.node_keys); },
    .set = [](DsOptions& o, double v) { o.node_keys = static_cast<uint32_t>(v); }};

// Whether a tree can have `keys` keys per node: kNodeKeys's range, for a
// request and for what a reopened pool holds (written from an accepted
// request, so the same range).
constexpr bool node_keys_in_range(uint64_t keys) {
  return keys >= kNodeKeys.min && keys <= kNodeKeys.max;
}
inline std::string node_keys_range() {
  return fmt::format("[{}, {}]", static_cast<uint64_t>(kNodeKeys.min),
                     static_cast<uint64_t>(kNodeKeys.max));
}

template <Backend B, class Node>
class TreeRoot {
 public:
  using NodePtr = typename B::template Ptr<Node>;

  // Attaches to the root record. On a reopened pool the keys-per-node setting is
  // the pool's (an explicit different request is a UsageError); on a new pool it
  // is the request or `default_keys`, and nothing is written until init().
  TreeRoot(B& b, const DsOptions& o, const char* name, uint32_t default_keys) : b_(b) {
    if (o.node_keys != 0 && !node_keys_in_range(o.node_keys)) {
      throw UsageError(fmt::format("{}: {} {} out of range {}", name, kNodeKeys.name, o.node_keys,
                                   node_keys_range()));
    }
    rec_ = b.template root<Record>();
    if (b.created()) {
      keys_ = o.node_keys != 0 ? o.node_keys : default_keys;
      return;
    }
    rec_->hdr.check_reopen(o, name);
    if (!node_keys_in_range(rec_->hdr.shape)) {
      throw InvariantViolation(fmt::format("{}: the pool root holds {} keys per node, outside {}",
                                           name, rec_->hdr.shape, node_keys_range()));
    }
    keys_ = static_cast<uint32_t>(rec_->hdr.shape);
    if (o.node_keys != 0 && o.node_keys != keys_) {
      throw UsageError(fmt::format("{}: pool was built with {} keys per node, not {}", name, keys_,
                                   o.node_keys));
    }
    top_ = rec_->root.get();
  }

  uint32_t keys() const { return keys_; }

  // New pool only, inside b.tx: makes `first` the root and writes the header.
  void init(const NodePtr& first, const DsOptions& o) {
    replace(first);
    b_.store(rec_->hdr, RootHeader::make(o, keys_));
  }

  Node* top() const { return top_; }
  const NodePtr& ptr() const { return rec_->root; }

  // Publishes a new root (a node that already holds the old root as a child).
  void replace(const NodePtr& p) {
    b_.store(rec_->root, p);
    top_ = p.get();
  }
  // The root lost its last key to a merge: its only child becomes the root.
  void collapse(const NodePtr& only_child) {
    const NodePtr old = rec_->root;
    replace(only_child);
    b_.free(old);
  }

 private:
  struct Record {
    RootHeader hdr;
    NodePtr root;
  };
  B& b_;
  Record* rec_ = nullptr;
  Node* top_ = nullptr;  // DRAM copy of the translated root node pointer
  uint32_t keys_ = 0;
};

// Checks one node's fill and key order: n <= max_keys, n >= min_keys below the
// root, an inner root non-empty, keys strictly ascending and inside the bounds
// the parent gives (lo inclusive when `lo_inclusive`, else exclusive; hi
// exclusive; null for none). Throws InvariantViolation.
inline void check_node_keys(const uint64_t* keys, uint32_t n, bool leaf, int depth,
                            uint32_t max_keys, uint32_t min_keys, const uint64_t* lo,
                            bool lo_inclusive, const uint64_t* hi) {
  if (n > max_keys)
    throw InvariantViolation(
        fmt::format("node at depth {} holds {} > {} keys", depth, n, max_keys));
  if (depth > 0 && n < min_keys) {
    throw InvariantViolation(
        fmt::format("node at depth {} holds {} < {} keys", depth, n, min_keys));
  }
  if (depth == 0 && !leaf && n == 0) throw InvariantViolation("empty inner root");
  for (uint32_t j = 0; j < n; ++j) {
    const uint64_t k = keys[j];
    const bool below_lo = lo != nullptr && (lo_inclusive ? k < *lo : k <= *lo);
    if ((j > 0 && keys[j - 1] >= k) || below_lo || (hi != nullptr && k >= *hi)) {
      throw InvariantViolation(fmt::format("key {:#x} out of order at depth {}", k, depth));
    }
  }
}

}  // namespace pmemids
