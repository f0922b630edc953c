// B-tree with keys and values in every node (CLRS-style: top-down splitting on
// insert, top-down merging/borrowing on delete), one source for two layouts:
//
//   btree           values *referenced*: each node holds 8-byte keys and value
//                   pointers; each value is a separate `value_slot` object.
//   btree-embedded  values *embedded*: each node holds the value slots itself.
//
// Node: {n, leaf, keys[K], values[K], children[K+1]} with K keys at most
// (default 10, `node_keys`); leaves omit the children. Default sizes: btree 256
// bytes (DRAM) / 432 (PMEMoids); btree-embedded 1496 / 1584. A bigger node means
// fewer levels for reads but more bytes shifted per insert — in pmem-trans every
// shifted byte is logged, which is the effect of the paper's Figure 5.
//
// Every in-place change of a node writes each affected region (keys, values,
// children) with one backend call from a DRAM staging copy, all of them in one
// batch (written back, fenced once), then stores the node's count `n` last.
// It declares those regions and the count first (b.will_change), so that
// pmem-trans logs them as one range per node: the hull from the count to the
// last shifted byte.
//
// Durability (pmem-persist). Insert into a leaf with room: the new value object
// (btree), the shifted keys and the shifted values are written back in one
// batch, then `n` (a 4-byte store) makes the new key visible; it is durable
// when the insert returns. A crash before that store loses the new key *and*
// can hide the node's old last key (shifted past `n`) or show a key twice, the
// shifted regions being durable in any combination; node splits (new right
// node written back first, then the parent's shift, then the left node's `n`),
// merges and borrows are multi-word in-place changes that a crash can leave
// half done: keys duplicated in two nodes, or lost. Update overwrites the value
// in place (can tear); so does an insert that meets its key on the way down,
// after allocating a value object it then frees (a crash between leaks it).
// Value objects (btree) and nodes freed by a delete or merge can leak if a
// crash falls between unlinking and freeing. Under eADR nothing is written
// back and the fences are the same; stores become durable in program order,
// so the same in-place windows remain. pmem-trans: every insert, update and
// delete is one transaction logging, per node it changes in place, one range
// from the count to the last byte it shifts or overwrites (regions more than
// kTxMergeGapBytes apart, as in btree-embedded's replace_entry, separately);
// new nodes and values are not logged.
#pragma once

#include <array>
#include <cstring>
#include <unordered_set>
#include <vector>

#include "backend/backend.h"
#include "ds/common.h"
#include "ds/node_array.h"
#include "ds/node_search.h"
#include "ds/tree_root.h"

namespace pmemids {

template <Backend B, bool kEmbedded>
class BTreeImpl {
  struct Node {
    uint32_t n;  // keys in use: the last word an in-place change stores
    uint32_t leaf;
  };
  using NodePtr = typename B::template Ptr<Node>;
  using ValPtr = typename B::template Ptr<char>;
  // Where a value comes from when an entry is (re)written: bytes to copy
  // (embedded) or an existing value object to point at (referenced). `fresh`:
  // the referenced object was just filled and is written back (sealed) with the
  // node regions that publish it.
  struct Entry {
    const char* bytes = nullptr;
    ValPtr ref;
    const char* fresh = nullptr;
  };
  static constexpr uint32_t kNoKid = ~0u;

  static constexpr size_t round_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

  struct Layout {
    uint32_t keys = 0;    // K: maximum keys per node
    uint32_t stride = 0;  // bytes between value entries
    size_t vals = 0, kids = 0, bytes = 0;

    static Layout make(uint32_t k, uint32_t value_size) {
      Layout l;
      l.keys = k;
      l.stride = kEmbedded ? value_slot(value_size) : sizeof(ValPtr);
      const size_t key_end = sizeof(Node) + size_t{k} * sizeof(uint64_t);
      l.vals = kEmbedded ? round_up(key_end, 64) : round_up(key_end, alignof(ValPtr));
      l.kids = round_up(l.vals + size_t{k} * l.stride, alignof(NodePtr));
      l.bytes = l.kids + size_t{k + 1} * sizeof(NodePtr);
      return l;
    }
  };

 public:
  static constexpr const char* kName = kEmbedded ? "btree-embedded" : "btree";
  static constexpr const char* kDescription =
      kEmbedded ? "the same B-tree with the values inside the nodes (about 1.5 KB nodes)"
                : "B-tree, keys and value references in every node (about 256-byte nodes)";
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
  static constexpr uint32_t kDefaultKeys = 10;
  enum : unsigned { kTypeNode = 1, kTypeValue = kTypeBare };

  static uint64_t element_bytes(uint32_t value_size) {
    return Layout::make(kDefaultKeys, value_size).bytes;
  }
  static uint64_t pool_bytes(const DsOptions& o) {
    const Layout l = Layout::make(o.node_keys != 0 ? o.node_keys : kDefaultKeys, o.value_size);
    const uint64_t per_key = 2 * l.bytes / l.keys + 64;  // nodes at least half full
    return o.capacity * (per_key + (kEmbedded ? 0 : value_slot(o.value_size) + 64));
  }

  BTreeImpl(B& b, const DsOptions& o)
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
  ~BTreeImpl() {
    if constexpr (!B::kDurable) free_subtree(root_.ptr());
  }

  bool read(uint64_t key, char* out) const {
    const auto [x, i] = find(key);
    if (x == nullptr) return false;
    std::memcpy(out, value_of(x, i), vsize_);
    return true;
  }

  bool update(uint64_t key, const char* v) {
    const auto [x, i] = find(key);
    if (x == nullptr) return false;
    char* dst = value_of(x, i);
    b_.tx([&] { b_.write_value(dst, v, vsize_); });
    return true;
  }

  // One descent, inside the transaction: the new value object is allocated
  // and filled first (its misses can overlap the descent's), full nodes on the path
  // are split on the way down, and a key met on the way is updated in place
  // (the fresh value object is freed again: cancelled in pmem-trans, leaked by
  // a crash before the free elsewhere, which leak repair frees).
  bool insert(uint64_t key, const char* v) {
    bool added = true;
    b_.tx([&] {
      const Entry e = new_entry(v);
      if (root_.top()->n == L_.keys) grow(key);
      Node* x = root_.top();
      for (;;) {
        const uint32_t i = node_lower_bound(keys(x), x->n, key);
        if (i < x->n && keys(x)[i] == key) {
          b_.write_value(value_of(x, i), v, vsize_);
          release_value(e);
          added = false;
          return;
        }
        if (x->leaf) {
          insert_at(x, i, key, e, nullptr, kNoKid);
          return;
        }
        Node* c = kids(x)[i].get();
        if (c->n == L_.keys) {
          split_child(x, i, c, key);
          continue;  // x gained c's median at i: search x again
        }
        x = c;
      }
    });
    return added;
  }

  bool remove(uint64_t key) {
    if (find(key).first == nullptr) return false;
    b_.tx([&] {
      remove_from(root_.top(), key);
      if (root_.top()->n == 0 && !root_.top()->leaf)
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

  // Every node reachable from the root and (btree) the value blocks of its
  // first n entries. Iterative, bounded by the path stack; a node met twice is
  // not descended again.
  template <class F>
  void for_each_object(F&& visit) const {
    std::vector<Node*> stack;
    if (Node* r = node(root_.ptr())) stack.push_back(r);
    while (!stack.empty()) {
      Node* x = stack.back();
      stack.pop_back();
      if (!visit(x)) continue;
      const uint32_t n = std::min(x->n, L_.keys);
      if constexpr (!kEmbedded) {
        for (uint32_t j = 0; j < n; ++j) {
          if (const char* v = value_object(x, j)) visit(v);
        }
      }
      for (uint32_t j = 0; !x->leaf && j <= n; ++j) {
        if (Node* c = node(kids(x)[j])) stack.push_back(c);
      }
    }
  }

  // No DRAM state beyond the root node's address (TreeRoot); pmem-persist frees
  // nodes and value blocks a crash left allocated but unlinked, or unlinked but
  // not freed (also a value hidden past a node's count by an interrupted shift).
  void recover() {
    if (node(root_.ptr()) == nullptr) {
      throw InvariantViolation(fmt::format("{}: no root node", kName));
    }
    repair_leaks(b_, *this);
  }

  // Order (keys strictly ascending within a node and within the bounds its
  // parent sets), fill (K >= n >= (K-1)/2 below the root, root non-empty unless
  // a leaf), equal leaf depth, no node reached twice, no null child or value.
  uint64_t check() const {
    std::unordered_set<const Node*> seen;
    int leaf_depth = -1;
    return check_node(node(root_.ptr()), nullptr, nullptr, 0, seen, leaf_depth);
  }

 private:
  void set_layout(uint32_t k) {
    L_ = Layout::make(k, vsize_);
    min_ = (k - 1) / 2;
    stage_.assign((L_.bytes + 64) / sizeof(uint64_t) + 1, 0);
  }

  uint64_t* keys(Node* x) const { return reinterpret_cast<uint64_t*>(x + 1); }
  char* val_at(Node* x, uint32_t i) const {
    return reinterpret_cast<char*>(x) + L_.vals + size_t{i} * L_.stride;
  }
  ValPtr& vref(Node* x, uint32_t i) const { return *reinterpret_cast<ValPtr*>(val_at(x, i)); }
  NodePtr* kids(Node* x) const {
    return reinterpret_cast<NodePtr*>(reinterpret_cast<char*>(x) + L_.kids);
  }
  size_t node_bytes(bool leaf) const { return leaf ? L_.kids : L_.bytes; }
  NodeArray key_array(Node* x) const {
    return {reinterpret_cast<char*>(keys(x)), sizeof(uint64_t), sizeof(uint64_t)};
  }
  NodeArray val_array(Node* x) const {
    return {val_at(x, 0), L_.stride, kEmbedded ? vsize_ : L_.stride};
  }
  NodeArray kid_array(Node* x) const {
    return {reinterpret_cast<char*>(kids(x)), sizeof(NodePtr), sizeof(NodePtr)};
  }
  char* stage() { return reinterpret_cast<char*>(stage_.data()); }

  // Links followed by walks over a pool not trusted yet (B::follow): a node
  // must be a node object of its kind's size, a value a value slot.
  Node* node(const NodePtr& p) const {
    constexpr const char* kWhat = "btree: a node link";
    Node* x = b_.follow(p, kTypeNode, node_bytes(true), kWhat);
    if (x == nullptr || x->leaf == 1) return x;
    if (x->leaf != 0) throw InvariantViolation(fmt::format("{}: leaf flag {}", kWhat, x->leaf));
    return b_.follow(p, kTypeNode, node_bytes(false), kWhat);
  }
  const char* value_object(Node* x, uint32_t i) const {
    return b_.follow(vref(x, i), kTypeValue, value_slot(vsize_), "btree: a value link");
  }

  char* value_of(Node* x, uint32_t i) const {
    if constexpr (kEmbedded) {
      return val_at(x, i);
    } else {
      return vref(x, i).get();
    }
  }
  Entry entry_of(Node* x, uint32_t i) const {
    if constexpr (kEmbedded) {
      return Entry{val_at(x, i), ValPtr()};
    } else {
      return Entry{nullptr, vref(x, i)};
    }
  }
  Entry new_entry(const char* v) {
    if constexpr (kEmbedded) {
      return Entry{v, ValPtr()};
    } else {
      const ValPtr p = b_.template alloc<char>(value_slot(vsize_), kTypeValue);
      char* dst = p.get();
      std::memcpy(dst, v, vsize_);
      return Entry{nullptr, p, dst};
    }
  }
  void put_entry(char* dst, const Entry& e) const {
    if constexpr (kEmbedded) {
      std::memcpy(dst, e.bytes, vsize_);
    } else {
      std::memcpy(dst, &e.ref, sizeof(ValPtr));
    }
  }
  // Frees the value object of an entry no node links any more (btree): freed
  // only after the unlink, so a crash leaks it, never leaves it linked.
  void release_value(const Entry& gone) {
    if constexpr (!kEmbedded) b_.free(gone.ref);
  }

  NodePtr new_node(bool leaf) {
    const NodePtr p = b_.template alloc<Node>(node_bytes(leaf), kTypeNode);
    Node* x = p.get();
    x->n = 0;
    x->leaf = leaf ? 1 : 0;
    b_.seal(x, sizeof(Node));
    return p;
  }

  void free_subtree(const NodePtr& p) {
    Node* x = p.get();
    for (uint32_t j = 0; j < x->n; ++j) release_value(entry_of(x, j));
    for (uint32_t j = 0; !x->leaf && j <= x->n; ++j) free_subtree(kids(x)[j]);
    b_.free(p);
  }

  std::pair<Node*, uint32_t> find(uint64_t key) const {
    Node* x = root_.top();
    for (;;) {
      const uint32_t n = x->n;
      const uint32_t i = node_lower_bound(keys(x), n, key);
      if (i < n && keys(x)[i] == key) return {x, i};
      if (x->leaf) return {nullptr, 0};
      x = kids(x)[i].get();
    }
  }

  // Opens a gap at entry i of x for (key, e); if kid_pos != kNoKid, also inserts
  // `kid` at child position kid_pos (i for a new leftmost child, i + 1 for a new
  // right child). Each region is written once, in one batch with a fresh value
  // object's seal; the count n last, ordered after all of them.
  void insert_at(Node* x, uint32_t i, uint64_t key, const Entry& e, const NodePtr* kid,
                 uint32_t kid_pos) {
    const uint32_t n = x->n;
    b_.will_change({{&x->n, sizeof x->n},
                    key_array(x).insert_region(n, i),
                    val_array(x).insert_region(n, i),
                    kid_pos != kNoKid ? kid_array(x).insert_region(n + 1, kid_pos) : ByteRange{}});
    b_.batch([&] {
      if (e.fresh != nullptr) b_.seal_value(e.fresh, vsize_);
      std::memcpy(stage(), &key, sizeof key);
      key_array(x).insert(b_, n, i, stage());
      put_entry(stage(), e);
      val_array(x).insert(b_, n, i, stage());
      if (kid_pos != kNoKid) {
        std::memcpy(stage(), static_cast<const void*>(kid), sizeof(NodePtr));
        kid_array(x).insert(b_, n + 1, kid_pos, stage());
      }
    });
    b_.store(x->n, n + 1);
  }

  // Closes entry i of x; if kid_pos != kNoKid, also removes that child pointer.
  void erase_at(Node* x, uint32_t i, uint32_t kid_pos) {
    const uint32_t n = x->n;
    b_.will_change({{&x->n, sizeof x->n},
                    key_array(x).erase_region(n, i),
                    val_array(x).erase_region(n, i),
                    kid_pos != kNoKid ? kid_array(x).erase_region(n + 1, kid_pos) : ByteRange{}});
    b_.batch([&] {
      key_array(x).erase(b_, n, i);
      val_array(x).erase(b_, n, i);
      if (kid_pos != kNoKid) kid_array(x).erase(b_, n + 1, kid_pos);
    });
    b_.store(x->n, n - 1);
  }

  void replace_entry(Node* x, uint32_t i, uint64_t key, const Entry& e) {
    b_.will_change({{&keys(x)[i], sizeof(uint64_t)}, val_array(x).put_region(i, 1)});
    b_.batch([&] {
      b_.store(keys(x)[i], key);
      if constexpr (kEmbedded) {
        b_.write(val_at(x, i), e.bytes, vsize_);
      } else {
        b_.store(vref(x, i), e.ref);
      }
    });
  }

  // A full root gets a new empty root above it, then is split (for `key`).
  void grow(uint64_t key) {
    const NodePtr r = new_node(false);
    Node* nr = r.get();
    b_.store(kids(nr)[0], root_.ptr());
    split_child(nr, 0, root_.top(), key);
    root_.replace(r);
  }

  // Splits the full child y = kids(x)[i] on the way down to insert `key`: its
  // upper half moves to a new right node (persisted before anything points at
  // it), its median moves up into x. When y is a leaf and the key lands in its
  // lower half, the insert into y follows: it is declared with y's count, so
  // that y is logged once.
  void split_child(Node* x, uint32_t i, Node* y, uint64_t key) {
    const uint32_t m = L_.keys / 2, rn = L_.keys - m - 1;
    const bool leaf = y->leaf != 0;
    const NodePtr zp = b_.template alloc<Node>(node_bytes(leaf), kTypeNode);
    Node* z = zp.get();
    z->n = rn;
    z->leaf = y->leaf;
    std::memcpy(keys(z), keys(y) + m + 1, size_t{rn} * sizeof(uint64_t));
    std::memcpy(val_at(z, 0), val_at(y, m + 1), val_array(y).span(rn));
    if (!leaf) {
      std::memcpy(static_cast<void*>(kids(z)), kids(y) + m + 1, size_t{rn + 1} * sizeof(NodePtr));
    }
    b_.batch([&] {
      b_.seal(z, sizeof(Node) + size_t{rn} * sizeof(uint64_t));
      b_.seal(val_at(z, 0), val_array(y).span(rn));
      if (!leaf) b_.seal(kids(z), size_t{rn + 1} * sizeof(NodePtr));
    });
    insert_at(x, i, keys(y)[m], entry_of(y, m), &zp, i + 1);
    const bool lands = leaf && key < keys(y)[m];
    const uint32_t at = lands ? node_lower_bound(keys(y), m, key) : 0;
    b_.will_change({{&y->n, sizeof y->n},
                    lands ? key_array(y).insert_region(m, at) : ByteRange{},
                    lands ? val_array(y).insert_region(m, at) : ByteRange{}});
    b_.store(y->n, m);
  }

  // Deletes `key` from the subtree of x (the key is known to be present),
  // making sure every node it descends into has more than the minimum keys.
  void remove_from(Node* x, uint64_t key) {
    bool free_value = true;  // false once the key's value was moved up into an inner node
    for (;;) {
      const uint32_t n = x->n;
      const uint32_t i = node_lower_bound(keys(x), n, key);
      const bool here = i < n && keys(x)[i] == key;
      if (x->leaf) {
        const Entry gone = entry_of(x, i);
        erase_at(x, i, kNoKid);
        if (free_value) release_value(gone);
        return;
      }
      if (here) {
        Node* y = kids(x)[i].get();
        Node* z = kids(x)[i + 1].get();
        if (y->n > min_ || z->n > min_) {
          // Replace the key by its predecessor (or successor), then delete that
          // one from the leaf it came from; its value moves up with it.
          const bool pred = y->n > min_;
          Node* p = pred ? y : z;
          while (!p->leaf) p = kids(p)[pred ? p->n : 0].get();
          const uint32_t j = pred ? p->n - 1 : 0;
          const uint64_t moved = keys(p)[j];
          const Entry gone = entry_of(x, i);
          replace_entry(x, i, moved, entry_of(p, j));
          release_value(gone);
          key = moved;
          free_value = false;
          x = pred ? y : z;
        } else {
          merge(x, i, y, z);
          x = y;
        }
        continue;
      }
      Node* c = kids(x)[i].get();
      x = c->n > min_ ? c : fill_child(x, i, c);
    }
  }

  // Child c = kids(x)[i] has the minimum key count: borrow a key through x from
  // a sibling that can spare one, else merge with a sibling. Returns the node
  // that now holds c's keys.
  Node* fill_child(Node* x, uint32_t i, Node* c) {
    if (i > 0) {
      Node* l = kids(x)[i - 1].get();
      if (l->n > min_) {
        const uint32_t ln = l->n;
        insert_at(c, 0, keys(x)[i - 1], entry_of(x, i - 1), c->leaf ? nullptr : &kids(l)[ln],
                  c->leaf ? kNoKid : 0);
        replace_entry(x, i - 1, keys(l)[ln - 1], entry_of(l, ln - 1));
        b_.store(l->n, ln - 1);
        return c;
      }
    }
    if (i < x->n) {
      Node* r = kids(x)[i + 1].get();
      if (r->n > min_) {
        insert_at(c, c->n, keys(x)[i], entry_of(x, i), c->leaf ? nullptr : &kids(r)[0],
                  c->leaf ? kNoKid : c->n + 1);
        replace_entry(x, i, keys(r)[0], entry_of(r, 0));
        erase_at(r, 0, r->leaf ? kNoKid : 0);
        return c;
      }
      merge(x, i, c, r);
      return c;
    }
    Node* l = kids(x)[i - 1].get();
    merge(x, i - 1, l, c);
    return l;
  }

  // y = kids(x)[i] absorbs x's key i and all of z = kids(x)[i + 1]; z is freed.
  void merge(Node* x, uint32_t i, Node* y, Node* z) {
    const uint32_t yn = y->n, zn = z->n;
    b_.will_change({{&y->n, sizeof y->n},
                    key_array(y).put_region(yn, zn + 1),
                    val_array(y).put_region(yn, zn + 1),
                    y->leaf ? ByteRange{} : kid_array(y).put_region(yn + 1, zn + 1)});
    b_.batch([&] {
      std::memcpy(stage(), &keys(x)[i], sizeof(uint64_t));
      std::memcpy(stage() + sizeof(uint64_t), keys(z), size_t{zn} * sizeof(uint64_t));
      key_array(y).put(b_, yn, stage(), zn + 1);
      put_entry(stage(), entry_of(x, i));
      std::memcpy(stage() + L_.stride, val_at(z, 0), val_array(z).span(zn));
      val_array(y).put(b_, yn, stage(), zn + 1);
      if (!y->leaf) kid_array(y).put(b_, yn + 1, kids(z), zn + 1);
    });
    b_.store(y->n, yn + zn + 1);
    const NodePtr zp = kids(x)[i + 1];
    erase_at(x, i, i + 1);
    b_.free(zp);
  }

  // In-order walk from the first key >= start, visiting at most `limit` entries.
  template <class F>
  uint64_t walk(uint64_t start, uint64_t limit, F& visit) const {
    struct Frame {
      Node* node;
      uint32_t i;
    };
    std::array<Frame, 64> stack;
    int top = -1;
    for (Node* x = root_.top();;) {
      const uint32_t i = node_lower_bound(keys(x), x->n, start);
      stack[++top] = {x, i};
      if (x->leaf) break;
      x = kids(x)[i].get();
    }
    uint64_t count = 0;
    while (top >= 0 && count < limit) {
      Frame& f = stack[top];
      if (f.i >= f.node->n) {
        --top;
        continue;
      }
      const uint32_t i = f.i++;
      visit(keys(f.node)[i], static_cast<const char*>(value_of(f.node, i)));
      ++count;
      if (!f.node->leaf) {
        for (Node* c = kids(f.node)[i + 1].get();; c = kids(c)[0].get()) {
          stack[++top] = {c, 0};
          if (c->leaf) break;
        }
      }
    }
    return count;
  }

  uint64_t check_node(Node* x, const uint64_t* lo, const uint64_t* hi, int depth,
                      std::unordered_set<const Node*>& seen, int& leaf_depth) const {
    if (x == nullptr) throw InvariantViolation(fmt::format("null child at depth {}", depth));
    if (!seen.insert(x).second)
      throw InvariantViolation("a node is reached twice (cycle or shared child)");
    const uint32_t n = x->n;
    check_node_keys(keys(x), n, x->leaf != 0, depth, L_.keys, min_, lo, /*lo_inclusive=*/false, hi);
    if constexpr (!kEmbedded) {
      for (uint32_t j = 0; j < n; ++j) {
        if (value_object(x, j) == nullptr)
          throw InvariantViolation(fmt::format("key {:#x} has a null value", keys(x)[j]));
      }
    }
    if (x->leaf) {
      if (leaf_depth < 0) leaf_depth = depth;
      if (leaf_depth != depth)
        throw InvariantViolation(fmt::format("leaves at depths {} and {}", leaf_depth, depth));
      return n;
    }
    uint64_t count = n;
    for (uint32_t j = 0; j <= n; ++j) {
      count += check_node(node(kids(x)[j]), j > 0 ? &keys(x)[j - 1] : lo, j < n ? &keys(x)[j] : hi,
                          depth + 1, seen, leaf_depth);
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

template <Backend B>
using BTree = BTreeImpl<B, false>;
template <Backend B>
using BTreeEmbedded = BTreeImpl<B, true>;

}  // namespace pmemids
