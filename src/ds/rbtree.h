// Red-black tree: a binary search tree whose node colours keep it balanced
// (the root is black, no red node has a red child, every root-to-null path
// holds the same number of black nodes), so its height stays at most
// 2*log2(n+1). Insert and delete restore the colours with the classic bottom-up
// fix-ups (recolouring, at most two rotations per insert and three per delete).
//
// Node: one allocation {value[value_slot], child[2], key, red}. The value comes
// first so that, in the cache-line-aligned pmemobj nodes, an update (100 bytes)
// persists 2 lines and a descent touches one line per node, the header. Header
// 32 bytes with 8-byte pointers (node 160 bytes; malloc aligns to 16, so a header
// may straddle two lines), 48 with PMEMoids (node 176 bytes, 3 cache lines, a
// 192-byte allocation unit). Keys are plain uint64_t: no sentinel values.
//
// No parent pointers. insert and remove record the path they descend (nodes and
// directions) in a DRAM array of at most kMaxDepth entries; a valid tree of n
// nodes is at most 2*log2(n+1) deep, far below it. A single rotation then
// changes three child links and nothing else; parent pointers would add a
// 16-byte store (a persist, or a logged range) for every node whose parent
// changes: up to three more per single rotation, five per double rotation and
// four per successor relink, and 16 bytes to every node.
//
// pmem-persist (no log: every store below is its own persisted store, a link
// published by its 8-byte offset; a change of several fields is not atomic).
// In every state a crash can leave, the tree is acyclic and a search finds every
// key still reachable from the root. Precisely:
//  - insert: the new node is written and sealed, then published by one link
//    store, the commit point: before it the key is absent (the node leaks),
//    after it the key is present with its whole value. When the new node z lands
//    as the inner child of a red parent p with a black uncle, z is sealed already
//    holding its final children (p and the grandparent g) and black, and is
//    published in g's place; then g drops its link to p and turns red. Between
//    those stores p is reachable twice (a scan lists it twice) and black heights
//    differ; no key is missing at any point. Otherwise the fix-up follows
//    publication, as below.
//  - recolourings are single-byte stores: a crash between them leaves a red node
//    with a red child, a red root, or unequal black heights; every key present.
//  - single rotation at g lifting its child p (stores: g's parent link -> p; g's
//    link to p -> p's inner subtree; p's inner link -> g): until the last store g
//    and its subtree on the side away from p are unreachable: the uncle's side in
//    insert, the short side in delete. The only other acyclic orders detach p
//    with its outer subtree instead (the one holding the new node, or the taller
//    side in delete).
//  - double rotation lifting z, the inner grandchild of g through p (p's link to
//    z -> z's subtree X; z's links -> p and g; g's parent link -> z; g's link to
//    p -> z's other subtree Y): after the first store z and Y are unreachable;
//    after the parent link moves, Y still is, and p's subtree is reachable twice
//    (under z and under g), until the last store.
//  - delete rebalances first, while the node that will leave its place (the
//    deleted node or its successor) is still linked, then unlinks. A red
//    sibling's rotation is merged with the step after it: the parent link moves
//    first (p and the short side unreachable), then the links below; with a red
//    near nephew, after three of six stores every key is reachable again and
//    the last three detach the sibling and its far subtree in passing. Then: a
//    node with at most one child is unlinked by one link store (atomic), its red
//    child is recoloured, and it is freed (a crash before the free leaks it). A
//    node x with two children is replaced by its successor s: s takes x's left
//    subtree (reachable twice for a moment); unless s is x's right child, s
//    leaves its place (its key unreachable) and takes x's right subtree; s takes
//    x's colour; the link to x swings to s (x gone, s back).
//  - update overwrites the value in place with one persist: a crash can tear it.
//  Unreachable nodes are leaked objects of type kTypeNode with their data intact,
//  which the leak-repair walk proposed for pmem-persist would find. Reopen does
//  no repair and check() reports a torn tree. Operations on one throw
//  RuntimeError when a path is deeper than kMaxDepth or a required sibling is
//  missing, but a shared subtree is not detected: deleting from it would free a
//  node still linked elsewhere, so a torn tree must be rebuilt before updates.
// pmem-trans: insert, update and delete are each one transaction that logs, for
// each node header it changes, the whole header once (48 bytes: both links and
// the colour, one cache line; declared before its first store, see put_link),
// the root link (16 bytes) if it changes, or the value bytes; a new node is not
// logged. The stores and their order are those of pmem-persist above.
#pragma once

#include <cstring>
#include <unordered_set>
#include <vector>

#include "backend/backend.h"
#include "ds/common.h"

namespace pmemids {

// Test-only access to a tree's nodes, to plant corruption for check(); defined
// in tests/unit/rbtree_test.cc and nowhere else.
struct RBTreeTestAccess;

template <Backend B>
class RBTree {
  struct Node;  // one allocation: vslot_ value bytes, then a Hdr
  using NodePtr = typename B::template Ptr<Node>;
  struct Hdr {
    NodePtr child[2];  // [0] smaller keys, [1] larger keys
    uint64_t key;
    uint8_t red;  // 0 black, 1 red; next to the links it changes with
  };
  struct Root {
    RootHeader hdr;
    NodePtr top;
  };

  // Deepest path an operation follows. A valid tree of n < 2^63 nodes is at most
  // 2*log2(n+1) <= 126 deep; only a corrupted one can reach this.
  static constexpr int kMaxDepth = 128;
  struct Path {
    Hdr* node[kMaxDepth];    // node[0] is the root
    uint8_t dir[kMaxDepth];  // node[i + 1] == node[i]->child[dir[i]]
  };

 public:
  static constexpr const char* kName = "rbtree";
  static constexpr const char* kDescription =
      "red-black tree without parent pointers, rebalanced on every insert and delete";
  static constexpr OpSet kOpSet = OpSet::kOrderedKv;
  static constexpr Sync kSync = Sync::kExternal;
  static constexpr ModeSet kModes = kEveryMode;
  static constexpr DomainSet kDomains = kEveryDomain;
  static constexpr bool kHarness = false;
  // Rotations and recolourings are several stores (see above): not failure-atomic.
  static constexpr ModeSet kTornModes{Mode::kPersist};
  // Update overwrites the value in place under one persist (see above).
  static constexpr ModeSet kTornValueModes{Mode::kPersist};
  enum : unsigned { kTypeNode = kTypeBare };

  static uint64_t element_bytes(uint32_t value_size) {
    return value_slot(value_size) + sizeof(Hdr);
  }
  static uint64_t pool_bytes(const DsOptions& o) {
    return o.capacity * (element_bytes(o.value_size) + 64);
  }

  RBTree(B& b, const DsOptions& o)
      : b_(b),
        vsize_(o.value_size),
        vslot_(value_slot(o.value_size)),
        node_bytes_(element_bytes(o.value_size)) {
    root_ = b.template root<Root>();
    if (b.created()) {
      b.tx([&] { b.store(root_->hdr, RootHeader::make(o, 0)); });
    } else {
      root_->hdr.check_reopen(o, kName);
      recover();
    }
  }

  // dram and pmem-volatile keep nothing past the run: free every element
  // (after measurement) so repetitions in one process do not accumulate memory.
  ~RBTree() {
    if constexpr (!B::kDurable) free_subtree(root_->top);
  }

  bool read(uint64_t key, char* out) const {
    const Hdr* h = find(key);
    if (h == nullptr) return false;
    std::memcpy(out, value(h), vsize_);
    return true;
  }

  bool update(uint64_t key, const char* v) {
    Hdr* h = find(key);
    if (h == nullptr) return false;
    b_.tx([&] { b_.write_value(value(h), v, vsize_); });
    return true;
  }

  bool insert(uint64_t key, const char* v) {
    Path path;
    bool found;
    const int k = descend(key, path, found);
    if (found) {
      Hdr* h = path.node[k];
      b_.tx([&] { b_.write_value(value(h), v, vsize_); });
      return false;
    }
    b_.tx([&] {
      const NodePtr fresh = b_.template alloc<Node>(node_bytes_, kTypeNode);
      Hdr* z = hdr(fresh);
      std::memcpy(value(z), v, vsize_);
      z->child[0] = NodePtr();
      z->child[1] = NodePtr();
      z->key = key;
      z->red = k != 0;  // a new root is black
      link_new(path, k, fresh, z);
    });
    return true;
  }

  bool remove(uint64_t key) {
    Path path;
    bool found;
    const int k = descend(key, path, found);
    if (!found) return false;
    Hdr* x = path.node[k];
    // y leaves its position: x itself, or x's successor when x has two children.
    int m = k;
    if (x->child[0] && x->child[1]) {
      path.dir[k] = 1;
      const NodePtr* l = &x->child[1];
      for (m = k + 1;; ++m) {
        if (m == kMaxDepth - 1) too_deep();
        Hdr* h = hdr(*l);
        path.node[m] = h;
        if (!h->child[0]) break;
        path.dir[m] = 0;
        l = &h->child[0];
      }
    }
    Hdr* y = path.node[m];
    const NodePtr r = y->child[y->child[0] ? 0 : 1];  // y's only child, if any
    const bool y_red = y->red;
    b_.tx([&] {
      Link xlink = link(path, k);
      const NodePtr doomed = *xlink.at;
      // A black y without a child leaves its side one black short: rebalance
      // first, with y still in place (the rotations never move the link to y).
      if (!y_red && !r && m > 0) rebalance_for_removal(path, m, x, xlink);
      if (y == x) {
        put_link(xlink, r);
      } else {
        Hdr* yparent = path.node[m - 1];
        const NodePtr succ = yparent->child[path.dir[m - 1]];
        set_child(y, 0, x->child[0]);  // null if rebalancing emptied it
        if (yparent != x) {            // else y keeps its right subtree and is x's right child
          put_child(yparent, path.dir[m - 1], r);
          put_child(y, 1, x->child[1]);
        }
        set_red(y, x->red);
        put_link(xlink, succ);
      }
      if (!y_red && r) set_red(hdr(r), false);  // a black y's only child is red: it takes y's black
      b_.free(doomed);
    });
    return true;
  }

  template <class F>
  void for_each(F&& f) const {
    walk(0, UINT64_MAX, f);
  }

  template <class F>
  uint32_t scan(uint64_t start, uint32_t n, F&& visit) const {
    return static_cast<uint32_t>(walk(start, n, visit));
  }

  // Walks every node once (explicit stack, no recursion) and verifies: each link
  // translates; no node is reached twice (cycle or shared subtree); keys respect
  // the bounds of every ancestor, not just the parent; colour bytes are 0 or 1;
  // the root is black; no red node has a red parent; every path to a null link
  // holds the same number of black nodes. Returns the node count.
  uint64_t check() const {
    struct Frame {
      NodePtr p;
      uint64_t lo, hi;  // exclusive bounds, when has_lo / has_hi
      bool has_lo, has_hi;
      bool parent_red;
      uint8_t side;     // which child of its parent (for messages)
      uint32_t blacks;  // black nodes above this link
      uint32_t depth;
      uint64_t parent_key;
    };
    std::vector<Frame> stack;
    std::unordered_set<const Hdr*> seen;
    int64_t black_height = -1;
    uint64_t n = 0;
    if (root_->top) {
      const Hdr* r = translate_checked(root_->top, "root link");
      if (r->red) throw InvariantViolation(fmt::format("root (key {:#x}) is red", r->key));
    }
    stack.push_back(Frame{root_->top, 0, 0, false, false, false, 0, 0, 0, 0});
    while (!stack.empty()) {
      const Frame f = stack.back();
      stack.pop_back();
      if (!f.p) {
        if (black_height < 0) {
          black_height = f.blacks;
        } else if (f.blacks != black_height) {
          throw InvariantViolation(fmt::format(
              "black height: the path to the null {} child of key {:#x} (depth {}) holds {} black "
              "nodes, earlier paths hold {}",
              f.side ? "right" : "left", f.parent_key, f.depth - 1, f.blacks, black_height));
        }
        continue;
      }
      const Hdr* h = translate_checked(f.p, "child link");
      if (!seen.insert(h).second) {
        throw InvariantViolation(fmt::format(
            "node with key {:#x} reached twice, again at depth {} under key {:#x} (cycle or shared "
            "subtree)",
            h->key, f.depth, f.parent_key));
      }
      if ((f.has_lo && h->key <= f.lo) || (f.has_hi && h->key >= f.hi)) {
        throw InvariantViolation(fmt::format(
            "order: key {:#x} at depth {} ({} child of {:#x}) lies outside its ancestors' range "
            "({}, {})",
            h->key, f.depth, f.side ? "right" : "left", f.parent_key,
            f.has_lo ? fmt::format("{:#x}", f.lo) : "-inf",
            f.has_hi ? fmt::format("{:#x}", f.hi) : "+inf"));
      }
      if (h->red > 1) {
        throw InvariantViolation(fmt::format("key {:#x} has colour byte {}", h->key, h->red));
      }
      if (h->red && f.parent_red) {
        throw InvariantViolation(fmt::format("red node {:#x} at depth {} has a red parent {:#x}",
                                             h->key, f.depth, f.parent_key));
      }
      ++n;
      const uint32_t blacks = f.blacks + (h->red ? 0 : 1);
      stack.push_back(Frame{h->child[1], h->key, f.hi, true, f.has_hi, h->red != 0, 1, blacks,
                            f.depth + 1, h->key});
      stack.push_back(Frame{h->child[0], f.lo, h->key, f.has_lo, true, h->red != 0, 0, blacks,
                            f.depth + 1, h->key});
    }
    return n;
  }

  // Every node reachable from the root; a node met twice (a shared subtree a
  // crash can leave) is not descended again.
  template <class F>
  void for_each_object(F&& visit) const {
    std::vector<NodePtr> stack;
    if (root_->top) stack.push_back(root_->top);
    while (!stack.empty()) {
      const NodePtr p = stack.back();
      stack.pop_back();
      Node* raw = b_.follow(p, kTypeNode, node_bytes_, "rbtree: a child link");
      if (raw == nullptr || !visit(raw)) continue;
      const Hdr* h = hdr(p);
      for (const NodePtr& c : h->child) {
        if (c) stack.push_back(c);
      }
    }
  }

  // No DRAM state; pmem-persist frees nodes a crash left unlinked (an insert
  // before its commit point, a delete before its free, or a node a rotation
  // left detached). A torn tree is not rebuilt: check() reports it.
  void recover() { repair_leaks(b_, *this); }

  // For tests and diagnostics: nodes on the longest root-to-leaf path (0 when
  // empty). Assumes an acyclic tree.
  uint32_t height() const {
    uint32_t best = 0;
    std::vector<std::pair<NodePtr, uint32_t>> stack;
    if (root_->top) stack.emplace_back(root_->top, 1);
    while (!stack.empty()) {
      const auto [p, d] = stack.back();
      stack.pop_back();
      best = std::max(best, d);
      const Hdr* h = hdr(p);
      for (const NodePtr& c : h->child) {
        if (c) stack.emplace_back(c, d + 1);
      }
    }
    return best;
  }

 private:
  friend struct RBTreeTestAccess;

  // Translates a link (one get(), one translation in pmem modes) to the node's header.
  void free_subtree(const NodePtr& p) {
    if (!p) return;
    const Hdr* h = hdr(p);
    free_subtree(h->child[0]);
    free_subtree(h->child[1]);
    b_.free(p);
  }

  Hdr* hdr(const NodePtr& p) const {
    return reinterpret_cast<Hdr*>(reinterpret_cast<char*>(p.get()) + vslot_);
  }
  char* value(Hdr* h) const { return reinterpret_cast<char*>(h) - vslot_; }
  const char* value(const Hdr* h) const { return reinterpret_cast<const char*>(h) - vslot_; }
  // A link and the header that holds it (nullptr: the root record's top link).
  struct Link {
    NodePtr* at;
    Hdr* in;
  };
  // The link that holds path.node[i]: the root link or a child link of its parent.
  Link link(Path& path, int i) {
    if (i == 0) return {&root_->top, nullptr};
    Hdr* parent = path.node[i - 1];
    return {&parent->child[path.dir[i - 1]], parent};
  }

  [[noreturn]] static void too_deep() {
    throw RuntimeError(fmt::format(
        "rbtree: a path is deeper than {} nodes, impossible in a balanced tree (corrupt pool?)",
        kMaxDepth - 1));
  }

  const Hdr* translate_checked(NodePtr p, const char* what) const {
    Node* raw = b_.follow(p, kTypeNode, node_bytes_, what);
    if (raw == nullptr) throw InvariantViolation(fmt::format("dangling {}", what));
    return reinterpret_cast<const Hdr*>(reinterpret_cast<const char*>(raw) + vslot_);
  }

  // Loops follow links in place (a pointer to the link, not a copy of it): g++
  // moves a copied 16-byte PMEMoid through a vector register and a stack slot,
  // on the pointer-chasing path.
  Hdr* find(uint64_t key) const {
    for (const NodePtr* l = &root_->top; *l;) {
      Hdr* h = hdr(*l);
      if (key == h->key) return h;
      l = &h->child[key > h->key];
    }
    return nullptr;
  }

  // Descends towards key recording the path. Returns the depth of the node
  // holding key (found) or the depth at which key would be inserted.
  int descend(uint64_t key, Path& path, bool& found) const {
    int d = 0;
    for (const NodePtr* l = &root_->top; *l; ++d) {
      if (d == kMaxDepth - 1) too_deep();
      Hdr* h = hdr(*l);
      path.node[d] = h;
      if (key == h->key) {
        found = true;
        return d;
      }
      const bool right = key > h->key;
      path.dir[d] = right;
      l = &h->child[right];
    }
    found = false;
    return d;
  }

  // Every store into a node's header goes through these: the header is
  // declared first (b.will_change), so pmem-trans logs each header a
  // transaction changes once, whole (48 bytes, one line), however many of its
  // links and its colour change; a no-op in the other modes.
  void changing(Hdr* h) { b_.will_change({{h, sizeof(Hdr)}}); }
  void put_link(Link l, NodePtr v) {
    if (l.in != nullptr) changing(l.in);
    b_.store(*l.at, v);
  }
  void put_child(Hdr* h, int side, NodePtr v) {
    changing(h);
    b_.store(h->child[side], v);
  }
  void put_red(Hdr* h, bool red) {
    changing(h);
    b_.store(h->red, uint8_t{red});
  }
  // Store a colour or a link only when it changes.
  void set_red(Hdr* h, bool red) {
    if (h->red != red) put_red(h, red);
  }
  void set_child(Hdr* h, int side, NodePtr v) {
    if (!(h->child[side] == v)) put_child(h, side, v);
  }

  // Single rotation at g, held by `link`: its child p = g->child[d] takes g's
  // place and g becomes p's child on the other side. Store order: see the header
  // comment (g and its far subtree are unreachable until the last store).
  void rotate1(Link link, Hdr* g, int d, Hdr* p) {
    const NodePtr gp = *link.at, pp = g->child[d], inner = p->child[!d];
    put_link(link, pp);
    put_child(g, d, inner);
    put_child(p, !d, gp);
  }

  // Double rotation at g, held by `link`: z = p->child[!d], the inner grandchild
  // through p = g->child[d], takes g's place with p and g as its children, which
  // receive z's two subtrees. Store order: see the header comment (no cycle at
  // any point; z is detached while its own links are rewritten).
  void rotate2(Link link, Hdr* g, int d, Hdr* p, Hdr* z) {
    const NodePtr gp = *link.at, pp = g->child[d], zp = p->child[!d];
    const NodePtr zin = z->child[d], zout = z->child[!d];
    put_child(p, !d, zin);
    put_child(z, d, pp);
    put_child(z, !d, gp);
    put_link(link, zp);
    put_child(g, d, zout);
  }

  // Publishes the filled, unsealed node z (pointer zp) at depth k of `path` and
  // restores the colour invariants bottom-up. Colours are written only when they
  // change: a grandparent recoloured red by a colour flip that later ends black
  // (lifted by a double rotation) is never stored red.
  void link_new(Path& path, const int k, NodePtr zp, Hdr* z) {
    bool published = false;
    const auto publish = [&] {
      b_.seal_value(value(z), node_bytes_);
      put_link(link(path, k), zp);  // commit point
      published = true;
    };
    bool z_stored_black = false;  // z is logically red, still black in memory
    for (int i = k; i >= 2 && path.node[i - 1]->red;) {
      Hdr* p = path.node[i - 1];
      Hdr* g = path.node[i - 2];  // black: p is red
      const int dp = path.dir[i - 2], dz = path.dir[i - 1];
      const NodePtr up = g->child[!dp];
      Hdr* u = up ? hdr(up) : nullptr;
      if (u != nullptr && u->red) {  // red uncle: colour flip, continue from g
        if (!published) publish();
        set_red(p, false);
        set_red(u, false);
        if (z_stored_black) put_red(z, true);
        if (i == 2) return;  // g is the root: it stays black
        z = g;
        z_stored_black = true;
        i -= 2;
        continue;
      }
      const Link glink = link(path, i - 2);
      if (dz != dp) {  // z is the inner grandchild: it rises above p and g
        if (!published) {
          // z is still private: give it its final links and colour, publish it in
          // g's place, then cut g's old link to p (z's inner subtrees are null).
          z->child[dp] = g->child[dp];
          z->child[!dp] = *glink.at;
          z->red = 0;
          b_.seal_value(value(z), node_bytes_);
          put_link(glink, zp);  // commit point
          put_child(g, dp, NodePtr());
          set_red(g, true);
          return;
        }
        rotate2(glink, g, dp, p, z);
        set_red(z, false);  // a no-op: z is a flipped grandparent, still black in memory
        set_red(g, true);
      } else {  // z is the outer grandchild: p rises above g
        if (!published) publish();
        rotate1(glink, g, dp, p);
        set_red(p, false);
        set_red(g, true);
        if (z_stored_black) put_red(z, true);
      }
      return;
    }
    if (!published) publish();
    if (z_stored_black) put_red(z, true);
  }

  // y = path.node[m], black and childless, is about to be unlinked, which would
  // leave its parent's side one black node short. Rebalances with y still in
  // place. x is the node being deleted; when a rotation moves x, xlink follows
  // the link that holds it.
  void rebalance_for_removal(Path& path, int m, const Hdr* x, Link& xlink) {
    int i = m - 1;
    Hdr* p = path.node[i];
    int d = path.dir[i];  // p's short side
    Link plink = link(path, i);
    for (;;) {
      Hdr* s = child(p, !d);
      bool p_red = p->red;
      // A red sibling (p is then black) must rotate above p, leaving p red with a
      // black sibling, the red one's near child. That rotation is merged into the
      // step that follows, which would otherwise rewrite two of its links; p ends
      // black in every such step, so its colour is never stored.
      Hdr* red_sib = nullptr;
      if (s->red) {
        red_sib = s;
        s = child(red_sib, d);
        p_red = true;
      }
      const NodePtr np = s->child[d], fp = s->child[!d];
      Hdr* near = np ? hdr(np) : nullptr;
      Hdr* far = fp ? hdr(fp) : nullptr;
      const bool near_red = near != nullptr && near->red;
      const bool far_red = far != nullptr && far->red;
      if (!near_red && !far_red) {  // black sibling with black children: make it red
        if (red_sib != nullptr) {
          rotate1(plink, p, !d, red_sib);
          put_red(red_sib, false);
          put_red(s, true);  // p, red after the rotation, absorbs the shortage
          if (p == x) xlink = {&red_sib->child[d], red_sib};
          return;
        }
        put_red(s, true);
        if (p_red) {  // a red p absorbs the shortage
          put_red(p, false);
          return;
        }
        if (i == 0) return;  // p is the root: every path lost one black node
        --i;                 // p's whole subtree is one black short: move up
        p = path.node[i];
        d = path.dir[i];
        plink = link(path, i);
        continue;
      }
      Hdr* top;
      if (far_red) {  // s rises above p and takes p's colour; p and far turn black
        if (red_sib != nullptr) {
          // red_sib takes p's place, s stays its child and takes p as its own.
          const NodePtr pp = *plink.at, rp = p->child[!d];
          put_link(plink, rp);
          put_child(p, !d, np);
          put_child(s, d, pp);
          put_red(red_sib, false);
        } else {
          rotate1(plink, p, !d, s);
        }
        set_red(s, p_red);
        set_red(far, false);
        top = s;
      } else {  // near red, far black: near rises above p and s, taking p's colour
        if (red_sib != nullptr) {
          // red_sib takes p's place, near becomes its child with p and s below.
          const NodePtr pp = *plink.at, rp = p->child[!d], sp = red_sib->child[d];
          const NodePtr nin = near->child[d], nout = near->child[!d];
          put_link(plink, rp);
          put_child(p, !d, nin);
          put_child(near, d, pp);
          put_child(red_sib, d, np);
          put_child(s, d, nout);
          put_child(near, !d, sp);
          put_red(red_sib, false);
        } else {
          rotate2(plink, p, !d, s, near);
        }
        set_red(near, p_red);
        top = near;
      }
      set_red(p, false);
      if (p == x) xlink = {&top->child[d], top};
      return;
    }
  }

  // n's child on `side`, which the black heights require to exist.
  Hdr* child(const Hdr* n, int side) const {
    const NodePtr c = n->child[side];
    if (!c) {
      throw RuntimeError(fmt::format(
          "rbtree: key {:#x} lacks a child its black height requires (corrupt pool?)", n->key));
    }
    return hdr(c);
  }

  // In-order walk over keys >= start, at most n of them; returns how many.
  template <class F>
  uint64_t walk(uint64_t start, uint64_t n, F& visit) const {
    if (n == 0) return 0;
    const Hdr* stack[kMaxDepth];
    int top = 0;
    const auto push = [&](const Hdr* h) {
      if (top == kMaxDepth) too_deep();
      stack[top++] = h;
    };
    for (const NodePtr* l = &root_->top; *l;) {
      const Hdr* h = hdr(*l);
      const bool right = h->key < start;
      if (!right) push(h);
      l = &h->child[right];
    }
    uint64_t got = 0;
    while (top > 0) {
      const Hdr* h = stack[--top];
      visit(h->key, value(h));
      if (++got == n) break;
      for (const NodePtr* l = &h->child[1]; *l;) {
        const Hdr* c = hdr(*l);
        push(c);
        l = &c->child[0];
      }
    }
    return got;
  }

  B& b_;
  uint32_t vsize_;
  uint32_t vslot_;  // the Hdr follows the value slot
  uint64_t node_bytes_;
  Root* root_;
};

}  // namespace pmemids
