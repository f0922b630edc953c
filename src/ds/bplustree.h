// B+-tree: separator keys in inner nodes, values only in the leaves, leaves
// linked left to right for scans. Values are referenced: a leaf holds keys and
// pointers to separate `value_slot` objects, so every node is small.
//
// Inner: {n, leaf, keys[K], children[K+1]}; leaf: {n, leaf, next, keys[K],
// values[K]}. K = 15 by default (`node_keys`): 256-byte nodes with 8-byte
// pointers, 384 (inner) / 400 (leaf) with PMEMoids. Inserts split full nodes on
// the way down; deletes top up nodes at the minimum on the way down (borrow
// from a sibling, else merge), so each operation is one root-to-leaf pass.
// Keys in children[j] lie in [keys[j-1], keys[j]).
//
// Durability (pmem-persist). Insert into a leaf with room writes back the new
// value object and the shifted keys and value pointers in one batch (one fence
// for all three: their order among themselves does not matter), then stores
// the count `n` (4 bytes), which publishes the new key and is durable when the
// insert returns. A crash before that store loses the new key and can hide or
// duplicate the leaf's last key (the shifted regions may be durable in any
// combination). A leaf split writes back the new right leaf (one batch), then
// inserts the separator into the parent (its two regions in one batch, then
// its count), then links the new leaf into the chain, then shrinks the left
// leaf: a crash in between can leave keys in both leaves (seen twice by scans)
// or the parent's change half done. Borrows and merges are multi-word in-place
// changes with the same exposure. Update overwrites the value in place (can
// tear), and so does an insert whose key is present, after allocating a
// value object it then frees (a crash between leaks it); value objects and
// merged-away nodes can leak if a crash falls between unlinking and freeing.
// Under eADR nothing is written back, the fences are the same, and what a
// crash can leave is the same list (stores become durable in program order,
// so the in-place windows remain). pmem-trans: each operation is one
// transaction logging, per node it changes in place, one range from the count
// to the last byte it shifts or overwrites (declared with b.will_change before
// the batch); new nodes and values are not logged.
#pragma once

#include <cstring>
#include <new>
#include <unordered_set>
#include <vector>

#include "backend/backend.h"
#include "ds/common.h"
#include "ds/node_array.h"
#include "ds/node_search.h"
#include "ds/tree_root.h"

namespace pmemids {

template <Backend B>
class BPlusTree {
  struct Node {
    uint32_t n;  // keys in use: the last word an in-place change stores
    uint32_t leaf;
  };
  using NodePtr = typename B::template Ptr<Node>;
  using ValPtr = typename B::template Ptr<char>;
  static constexpr uint32_t kNoKid = ~0u;
  static constexpr size_t round_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

  struct Layout {
    uint32_t keys = 0;
    size_t inner_kids = 0, inner_bytes = 0;  // inner: keys at sizeof(Node)
    size_t leaf_next = 0, leaf_keys = 0, leaf_vals = 0, leaf_bytes = 0;

    static Layout make(uint32_t k) {
      Layout l;
      l.keys = k;
      l.inner_kids = round_up(sizeof(Node) + size_t{k} * sizeof(uint64_t), alignof(NodePtr));
      l.inner_bytes = l.inner_kids + size_t{k + 1} * sizeof(NodePtr);
      l.leaf_next = round_up(sizeof(Node), alignof(NodePtr));
      l.leaf_keys = l.leaf_next + sizeof(NodePtr);
      l.leaf_vals = round_up(l.leaf_keys + size_t{k} * sizeof(uint64_t), alignof(ValPtr));
      l.leaf_bytes = l.leaf_vals + size_t{k} * sizeof(ValPtr);
      return l;
    }
  };

 public:
  static constexpr const char* kName = "bplustree";
  static constexpr const char* kDescription =
      "B+-tree, keys in inner nodes, value references in linked leaves (256-byte nodes)";
  static constexpr OpSet kOpSet = OpSet::kOrderedKv;
  static constexpr Sync kSync = Sync::kExternal;
  static constexpr ModeSet kModes = kEveryMode;
  static constexpr DomainSet kDomains = kEveryDomain;
  static constexpr bool kHarness = false;
  static constexpr const Knob* kKnobs[] = {&kNodeKeys};
  // In-place node changes are multi-word (see above): not failure-atomic.
  static constexpr ModeSet kTornModes{Mode::kPersist};
  // Update overwrites the value in place under one persist (see above).
  static constexpr ModeSet kTornValueModes{Mode::kPersist};
  static constexpr uint32_t kDefaultKeys = 15;
  enum : unsigned { kTypeNode = 1, kTypeValue = kTypeBare };

  static uint64_t element_bytes(uint32_t) { return Layout::make(kDefaultKeys).leaf_bytes; }
  static uint64_t pool_bytes(const DsOptions& o) {
    const Layout l = Layout::make(o.node_keys != 0 ? o.node_keys : kDefaultKeys);
    return o.capacity * (2 * l.leaf_bytes / l.keys + 64 + value_slot(o.value_size) + 64);
  }

  BPlusTree(B& b, const DsOptions& o)
      : b_(b), vsize_(o.value_size), root_(b, o, kName, kDefaultKeys) {
    set_layout(root_.keys());
    if (b.created()) {
      b.tx([&] { root_.init(new_node(true), o); });
    } else {
      recover();
    }
  }

  // dram and pmem-volatile keep nothing past the run: free every element
  // (after measurement) so repetitions in one process do not accumulate memory.
  ~BPlusTree() {
    if constexpr (!B::kDurable) free_subtree(root_.ptr());
  }

  bool read(uint64_t key, char* out) const {
    const auto [x, i] = find(key);
    if (x == nullptr) return false;
    std::memcpy(out, vals(x)[i].get(), vsize_);
    return true;
  }

  bool update(uint64_t key, const char* v) {
    const auto [x, i] = find(key);
    if (x == nullptr) return false;
    char* dst = vals(x)[i].get();
    b_.tx([&] { b_.write_value(dst, v, vsize_); });
    return true;
  }

  // One descent, inside the transaction: the new value object is allocated
  // and filled first (its misses can overlap the descent's); a present key is
  // updated in place at its leaf and the fresh object freed again.
  bool insert(uint64_t key, const char* v) {
    bool added = true;
    b_.tx([&] {
      const ValPtr val = b_.template alloc<char>(value_slot(vsize_), kTypeValue);
      char* dst = val.get();
      std::memcpy(dst, v, vsize_);  // sealed with the leaf regions that publish it
      if (root_.top()->n == L_.keys) grow(key);
      Node* x = root_.top();
      while (!x->leaf) {
        uint32_t i = child_index(x, key);
        Node* c = kids(x)[i].get();
        if (c->n == L_.keys) {
          split_child(x, i, c, key);
          if (key >= keys(x)[i]) ++i;
          c = kids(x)[i].get();
        }
        x = c;
      }
      const uint32_t i = node_lower_bound(keys(x), x->n, key);
      if (i < x->n && keys(x)[i] == key) {
        b_.write_value(vals(x)[i].get(), v, vsize_);
        b_.free(val);
        added = false;
        return;
      }
      leaf_insert(x, i, key, val, dst);
    });
    return added;
  }

  bool remove(uint64_t key) {
    if (find(key).first == nullptr) return false;
    b_.tx([&] {
      Node* x = root_.top();
      while (!x->leaf) {
        const uint32_t i = child_index(x, key);
        Node* c = kids(x)[i].get();
        x = c->n > min_ ? c : fill_child(x, i, c);
      }
      const uint32_t i = node_lower_bound(keys(x), x->n, key);
      const ValPtr gone = vals(x)[i];  // freed once unlinked: a crash leaks it at worst
      leaf_erase(x, i);
      b_.free(gone);
      if (!root_.top()->leaf && root_.top()->n == 0)
        root_.collapse(kids(root_.top())[0]);  // emptied by a merge
    });
    return true;
  }

  template <class F>
  uint32_t scan(uint64_t start, uint32_t n, F&& visit) const {
    return static_cast<uint32_t>(walk(start, n, visit));
  }

  template <class F>
  void for_each(F&& f) const {
    walk(0, ~uint64_t{0}, f);
  }

  // Every node reachable from the root or along the leaf chain, and the value
  // blocks of each leaf's first n entries; a node met twice is not followed again.
  template <class F>
  void for_each_object(F&& visit) const {
    std::vector<Node*> stack, leaves;
    if (Node* r = node(root_.ptr())) stack.push_back(r);
    while (!stack.empty()) {
      Node* x = stack.back();
      stack.pop_back();
      if (!visit(x)) continue;
      const uint32_t n = std::min(x->n, L_.keys);
      if (x->leaf) {
        leaves.push_back(x);
        for (uint32_t j = 0; j < n; ++j) {
          if (const char* v = value_object(x, j)) visit(v);
        }
        continue;
      }
      for (uint32_t j = 0; j <= n; ++j) {
        if (Node* c = node(kids(x)[j])) stack.push_back(c);
      }
    }
    // A leaf a crash left on the chain only (a merge that relinked the chain
    // before the parent dropped it is the reverse case) is still reachable.
    for (Node* l : leaves) {
      for (Node* x = node(next(l)); x != nullptr && x->leaf && visit(x); x = node(next(x))) {
        const uint32_t n = std::min(x->n, L_.keys);
        for (uint32_t j = 0; j < n; ++j) {
          if (const char* v = value_object(x, j)) visit(v);
        }
      }
    }
  }

  // No DRAM state beyond the root node's address (TreeRoot); pmem-persist frees
  // nodes and value blocks a crash left allocated but unlinked, or unlinked but
  // not freed.
  void recover() {
    if (node(root_.ptr()) == nullptr) {
      throw InvariantViolation(fmt::format("{}: no root node", kName));
    }
    repair_leaks(b_, *this);
  }

  // Order (ascending keys within every node and within the range its parent
  // gives it), fill (K >= n >= (K-1)/2 below the root, an inner root non-empty),
  // equal leaf depth, the leaf chain lists exactly the leaves in key order, no
  // node reached twice, no null child or value.
  uint64_t check() const {
    std::unordered_set<const Node*> seen;
    std::vector<Node*> leaves;
    int leaf_depth = -1;
    const uint64_t count =
        check_node(node(root_.ptr()), nullptr, nullptr, 0, seen, leaves, leaf_depth);
    for (size_t j = 0; j < leaves.size(); ++j) {
      Node* expected = j + 1 < leaves.size() ? leaves[j + 1] : nullptr;
      if (node(next(leaves[j])) != expected) {
        throw InvariantViolation(fmt::format(
            "leaf {} of {}: chain link does not lead to the next leaf", j, leaves.size()));
      }
    }
    return count;
  }

 private:
  void set_layout(uint32_t k) {
    L_ = Layout::make(k);
    min_ = (k - 1) / 2;
    stage_.assign(L_.inner_bytes / sizeof(uint64_t) + 8, 0);
  }

  uint64_t* keys(Node* x) const {
    return reinterpret_cast<uint64_t*>(reinterpret_cast<char*>(x) +
                                       (x->leaf ? L_.leaf_keys : sizeof(Node)));
  }
  NodePtr* kids(Node* x) const {
    return reinterpret_cast<NodePtr*>(reinterpret_cast<char*>(x) + L_.inner_kids);
  }
  ValPtr* vals(Node* x) const {
    return reinterpret_cast<ValPtr*>(reinterpret_cast<char*>(x) + L_.leaf_vals);
  }
  NodePtr& next(Node* x) const {
    return *reinterpret_cast<NodePtr*>(reinterpret_cast<char*>(x) + L_.leaf_next);
  }
  NodeArray key_array(Node* x) const {
    return {reinterpret_cast<char*>(keys(x)), sizeof(uint64_t), sizeof(uint64_t)};
  }
  NodeArray val_array(Node* x) const {
    return {reinterpret_cast<char*>(vals(x)), sizeof(ValPtr), sizeof(ValPtr)};
  }
  NodeArray kid_array(Node* x) const {
    return {reinterpret_cast<char*>(kids(x)), sizeof(NodePtr), sizeof(NodePtr)};
  }
  char* stage() { return reinterpret_cast<char*>(stage_.data()); }

  // Links followed by walks over a pool not trusted yet (B::follow): a node
  // must be a node object of its kind's size, a value a value slot.
  Node* node(const NodePtr& p) const {
    constexpr const char* kWhat = "bplustree: a node link";
    Node* x = b_.follow(p, kTypeNode, std::min(L_.leaf_bytes, L_.inner_bytes), kWhat);
    if (x == nullptr) return x;
    if (x->leaf > 1) throw InvariantViolation(fmt::format("{}: leaf flag {}", kWhat, x->leaf));
    return b_.follow(p, kTypeNode, x->leaf ? L_.leaf_bytes : L_.inner_bytes, kWhat);
  }
  const char* value_object(Node* x, uint32_t i) const {
    return b_.follow(vals(x)[i], kTypeValue, value_slot(vsize_), "bplustree: a value link");
  }

  // The child whose range [keys[i-1], keys[i]) holds key.
  uint32_t child_index(Node* x, uint64_t key) const {
    const uint32_t n = x->n;
    uint32_t i = node_lower_bound(keys(x), n, key);
    if (i < n && keys(x)[i] == key) ++i;
    return i;
  }

  void free_subtree(const NodePtr& p) {
    Node* x = p.get();
    for (uint32_t j = 0; x->leaf && j < x->n; ++j) b_.free(vals(x)[j]);
    for (uint32_t j = 0; !x->leaf && j <= x->n; ++j) free_subtree(kids(x)[j]);
    b_.free(p);
  }

  std::pair<Node*, uint32_t> find(uint64_t key) const {
    Node* x = root_.top();
    while (!x->leaf) x = kids(x)[child_index(x, key)].get();
    const uint32_t n = x->n;
    const uint32_t i = node_lower_bound(keys(x), n, key);
    if (i < n && keys(x)[i] == key) return {x, i};
    return {nullptr, 0};
  }

  NodePtr new_node(bool leaf) {
    const NodePtr p = b_.template alloc<Node>(leaf ? L_.leaf_bytes : L_.inner_bytes, kTypeNode);
    Node* x = p.get();
    x->n = 0;
    x->leaf = leaf ? 1 : 0;
    if (leaf) new (&next(x)) NodePtr();
    b_.seal(x, leaf ? L_.leaf_keys : sizeof(Node));
    return p;
  }

  // Inserts separator `key` at i of inner node x with `kid` at child position
  // kid_pos (i + 1: right of the separator; i: left of it). Both regions in one
  // batch, the count last.
  void inner_insert(Node* x, uint32_t i, uint64_t key, const NodePtr& kid, uint32_t kid_pos) {
    const uint32_t n = x->n;
    b_.will_change({{&x->n, sizeof x->n},
                    key_array(x).insert_region(n, i),
                    kid_array(x).insert_region(n + 1, kid_pos)});
    b_.batch([&] {
      std::memcpy(stage(), &key, sizeof key);
      key_array(x).insert(b_, n, i, stage());
      std::memcpy(stage(), static_cast<const void*>(&kid), sizeof kid);
      kid_array(x).insert(b_, n + 1, kid_pos, stage());
    });
    b_.store(x->n, n + 1);
  }
  // Removes key i and child kid_pos of inner node x.
  void inner_erase(Node* x, uint32_t i, uint32_t kid_pos) {
    const uint32_t n = x->n;
    b_.will_change({{&x->n, sizeof x->n},
                    key_array(x).erase_region(n, i),
                    kid_array(x).erase_region(n + 1, kid_pos)});
    b_.batch([&] {
      key_array(x).erase(b_, n, i);
      kid_array(x).erase(b_, n + 1, kid_pos);
    });
    b_.store(x->n, n - 1);
  }
  // Inserts (key, val) at i of leaf x; `fresh`: val's object, just filled, is
  // sealed in the same batch as the regions that publish it.
  void leaf_insert(Node* x, uint32_t i, uint64_t key, const ValPtr& val,
                   const char* fresh = nullptr) {
    const uint32_t n = x->n;
    b_.will_change(
        {{&x->n, sizeof x->n}, key_array(x).insert_region(n, i), val_array(x).insert_region(n, i)});
    b_.batch([&] {
      if (fresh != nullptr) b_.seal_value(fresh, vsize_);
      std::memcpy(stage(), &key, sizeof key);
      key_array(x).insert(b_, n, i, stage());
      std::memcpy(stage(), static_cast<const void*>(&val), sizeof val);
      val_array(x).insert(b_, n, i, stage());
    });
    b_.store(x->n, n + 1);
  }
  void leaf_erase(Node* x, uint32_t i) {
    const uint32_t n = x->n;
    b_.will_change(
        {{&x->n, sizeof x->n}, key_array(x).erase_region(n, i), val_array(x).erase_region(n, i)});
    b_.batch([&] {
      key_array(x).erase(b_, n, i);
      val_array(x).erase(b_, n, i);
    });
    b_.store(x->n, n - 1);
  }

  void grow(uint64_t key) {
    const NodePtr r = new_node(false);
    Node* nr = r.get();
    b_.store(kids(nr)[0], root_.ptr());
    split_child(nr, 0, root_.top(), key);
    root_.replace(r);
  }

  // Splits the full child y = kids(x)[i] on the way down to insert `key`. A
  // leaf keeps its lower half and the new right leaf's first key is copied up;
  // an inner node's median moves up. The new node is persisted before anything
  // points at it. When y is a leaf and the key lands in its lower half, the
  // insert into y follows: it is declared with y's count and link, so that y
  // is logged once.
  void split_child(Node* x, uint32_t i, Node* y, uint64_t key) {
    const uint32_t K = L_.keys, m = K / 2;
    const bool leaf = y->leaf != 0;
    const uint32_t rn = leaf ? K - m : K - m - 1;
    const uint32_t from = leaf ? m : m + 1;
    const NodePtr zp = b_.template alloc<Node>(leaf ? L_.leaf_bytes : L_.inner_bytes, kTypeNode);
    Node* z = zp.get();
    z->n = rn;
    z->leaf = y->leaf;
    std::memcpy(keys(z), keys(y) + from, size_t{rn} * sizeof(uint64_t));
    if (leaf) {
      new (&next(z)) NodePtr(next(y));
      std::memcpy(static_cast<void*>(vals(z)), vals(y) + from, size_t{rn} * sizeof(ValPtr));
      b_.batch([&] {
        b_.seal(z, L_.leaf_keys + size_t{rn} * sizeof(uint64_t));
        b_.seal(vals(z), size_t{rn} * sizeof(ValPtr));
      });
    } else {
      std::memcpy(static_cast<void*>(kids(z)), kids(y) + from, size_t{rn + 1} * sizeof(NodePtr));
      b_.batch([&] {
        b_.seal(z, sizeof(Node) + size_t{rn} * sizeof(uint64_t));
        b_.seal(kids(z), size_t{rn + 1} * sizeof(NodePtr));
      });
    }
    inner_insert(x, i, leaf ? keys(z)[0] : keys(y)[m], zp, i + 1);
    const bool lands = leaf && key < keys(y)[m];
    const uint32_t at = lands ? node_lower_bound(keys(y), m, key) : 0;
    b_.will_change({{&y->n, sizeof y->n},
                    leaf ? ByteRange{&next(y), sizeof(NodePtr)} : ByteRange{},
                    lands ? key_array(y).insert_region(m, at) : ByteRange{},
                    lands ? val_array(y).insert_region(m, at) : ByteRange{}});
    if (leaf) b_.store(next(y), zp);
    b_.store(y->n, m);
  }

  // Child c = kids(x)[i] is at the minimum: borrow through x from a sibling that
  // can spare an entry, else merge with a sibling. Returns the node now holding
  // c's keys.
  Node* fill_child(Node* x, uint32_t i, Node* c) {
    const bool leaf = c->leaf != 0;
    if (i > 0) {
      Node* l = kids(x)[i - 1].get();
      if (l->n > min_) {
        const uint32_t ln = l->n;
        if (leaf) {
          leaf_insert(c, 0, keys(l)[ln - 1], vals(l)[ln - 1]);
          b_.store(keys(x)[i - 1], keys(c)[0]);
          b_.store(l->n, ln - 1);
        } else {
          inner_insert(c, 0, keys(x)[i - 1], kids(l)[ln], 0);
          b_.store(keys(x)[i - 1], keys(l)[ln - 1]);
          b_.store(l->n, ln - 1);
        }
        return c;
      }
    }
    if (i < x->n) {
      Node* r = kids(x)[i + 1].get();
      if (r->n > min_) {
        if (leaf) {
          leaf_insert(c, c->n, keys(r)[0], vals(r)[0]);
          leaf_erase(r, 0);
          b_.store(keys(x)[i], keys(r)[0]);
        } else {
          inner_insert(c, c->n, keys(x)[i], kids(r)[0], c->n + 1);
          b_.store(keys(x)[i], keys(r)[0]);
          inner_erase(r, 0, 0);
        }
        return c;
      }
      merge(x, i, c, r);
      return c;
    }
    Node* l = kids(x)[i - 1].get();
    merge(x, i - 1, l, c);
    return l;
  }

  // y = kids(x)[i] absorbs z = kids(x)[i + 1] (and, for inner nodes, x's
  // separator i); z is unlinked from x and the leaf chain, then freed.
  void merge(Node* x, uint32_t i, Node* y, Node* z) {
    const uint32_t yn = y->n, zn = z->n;
    if (y->leaf) {
      b_.will_change({{&y->n, sizeof y->n},
                      {&next(y), sizeof(NodePtr)},
                      key_array(y).put_region(yn, zn),
                      val_array(y).put_region(yn, zn)});
      b_.batch([&] {
        key_array(y).put(b_, yn, keys(z), zn);
        val_array(y).put(b_, yn, vals(z), zn);
      });
      b_.store(next(y), next(z));
      b_.store(y->n, yn + zn);
    } else {
      b_.will_change({{&y->n, sizeof y->n},
                      key_array(y).put_region(yn, zn + 1),
                      kid_array(y).put_region(yn + 1, zn + 1)});
      b_.batch([&] {
        std::memcpy(stage(), &keys(x)[i], sizeof(uint64_t));
        std::memcpy(stage() + sizeof(uint64_t), keys(z), size_t{zn} * sizeof(uint64_t));
        key_array(y).put(b_, yn, stage(), zn + 1);
        kid_array(y).put(b_, yn + 1, kids(z), zn + 1);
      });
      b_.store(y->n, yn + zn + 1);
    }
    const NodePtr zp = kids(x)[i + 1];
    inner_erase(x, i, i + 1);
    b_.free(zp);
  }

  template <class F>
  uint64_t walk(uint64_t start, uint64_t limit, F& visit) const {
    Node* x = root_.top();
    while (!x->leaf) x = kids(x)[child_index(x, start)].get();
    uint32_t i = node_lower_bound(keys(x), x->n, start);
    uint64_t count = 0;
    while (count < limit) {
      if (i < x->n) {
        visit(keys(x)[i], static_cast<const char*>(vals(x)[i].get()));
        ++count;
        ++i;
        continue;
      }
      x = next(x).get();
      if (x == nullptr) break;
      i = 0;
    }
    return count;
  }

  uint64_t check_node(Node* x, const uint64_t* lo, const uint64_t* hi, int depth,
                      std::unordered_set<const Node*>& seen, std::vector<Node*>& leaves,
                      int& leaf_depth) const {
    if (x == nullptr) throw InvariantViolation(fmt::format("null child at depth {}", depth));
    if (!seen.insert(x).second)
      throw InvariantViolation("a node is reached twice (cycle or shared child)");
    const uint32_t n = x->n;
    check_node_keys(keys(x), n, x->leaf != 0, depth, L_.keys, min_, lo, /*lo_inclusive=*/true, hi);
    for (uint32_t j = 0; x->leaf && j < n; ++j) {
      if (value_object(x, j) == nullptr)
        throw InvariantViolation(fmt::format("key {:#x} has a null value", keys(x)[j]));
    }
    if (x->leaf) {
      if (leaf_depth < 0) leaf_depth = depth;
      if (leaf_depth != depth)
        throw InvariantViolation(fmt::format("leaves at depths {} and {}", leaf_depth, depth));
      leaves.push_back(x);
      return n;
    }
    uint64_t count = 0;
    for (uint32_t j = 0; j <= n; ++j) {
      count += check_node(node(kids(x)[j]), j > 0 ? &keys(x)[j - 1] : lo, j < n ? &keys(x)[j] : hi,
                          depth + 1, seen, leaves, leaf_depth);
    }
    return count;
  }

  B& b_;
  uint32_t vsize_;
  Layout L_;
  uint32_t min_ = 0;
  TreeRoot<B, Node> root_;
  std::vector<uint64_t> stage_;  // DRAM staging for node region rewrites
};

}  // namespace pmemids
