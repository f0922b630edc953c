// Skip list (Pugh): a sorted linked list at level 0, with each node also linked
// on levels 1 .. height-1 of sparser express lists. Heights are drawn with a
// fair coin (P(height >= k) = 2^-(k-1)), capped at `max_height`, from an Rng
// seeded with the structure's seed (restarted on reopen), so a structure is a
// pure function of its seed and operation sequence. The head is a separate
// array of `max_height` links (no sentinel key: keys are arbitrary, 0 and
// UINT64_MAX included). The number of levels in use is kept in DRAM and
// recomputed from the head on reopen.
//
// Node: {key, height, value[value_slot], next[height]}, allocated with exactly
// the bytes its height needs: 16 + 128 + 8h bytes with 8-byte pointers (dram,
// pmem-volatile), 16 + 128 + 16h with PMEMoids (pmem-persist, pmem-trans), for
// the default 100-byte values. With the fair coin the expected height is 2, so
// the average node is 160 / 176 bytes: that is element_bytes().
//
// Durability (pmem-persist): insert writes the whole node, next pointers
// included, persists it (seal), then publishes it with one persisted pointer
// store on level 0 (its 8-byte offset is the commit point), then on levels
// 1 .. height-1, bottom-up, one persisted store each. Delete unlinks from the
// top level down, level 0 last, then frees. Update overwrites the value in place
// and persists it. What a crash can leave:
//   - a node allocated but never linked (crash between allocation and the level-0
//     store): the key is absent; the node leaks (type kTypeNode, for leak repair);
//   - a node linked on levels 0 .. j but not on j+1 .. height-1 (crash during an
//     insert's upper-level publication or a delete's unlinking): the key is
//     present and every search is correct, the upper levels are just sparser; its
//     next pointers above j are stale and never followed. Later deletes unlink
//     only the levels the node is actually on;
//   - a node unlinked from every level but not freed (crash between the level-0
//     unlink and the free): absent, leaked;
//   - a torn value (crash during an update's overwrite).
// check() accepts all of these: a node must be on level 0 and on a prefix
// 0 .. j of the levels its height allows, which is what both orders preserve.
// pmem-trans: insert, update and delete are each one transaction logging exactly
// the predecessor links (16 bytes per level; the links of consecutive levels
// through one predecessor as one range) or the value bytes they change, so a
// crash leaves each operation applied or not.
#pragma once

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <unordered_map>

#include "backend/backend.h"
#include "ds/common.h"
#include "workload/generators.h"

namespace pmemids {

// --max-height: the most levels a node links into.
inline constexpr Knob kMaxHeight{
    .name = "max_height",
    .type = KnobType::kUnsigned,
    .def = 16,
    .min = 1,
    .max = 64,
    .help = "Skiplist maximum height",
    .get = [](const DsOptions& o) { return static_cast<double>(o.max_height); },
    .set = [](DsOptions& o, double v) { o.max_height = static_cast<uint32_t>(v); }};

// Test-only access to the nodes, to plant corruption and crash states for
// check(); defined in tests/unit/skiplist_test.cc and nowhere else.
struct SkipListTestAccess;

template <Backend B>
class SkipList {
  struct Node;
  using NodePtr = typename B::template Ptr<Node>;
  struct Node {
    uint64_t key;
    uint32_t height;  // links allocated after the value slot, in [1, max_height]
    uint32_t unused;  // zero; places the value 16 bytes into the node
    char* value() { return reinterpret_cast<char*>(this + 1); }
    const char* value() const { return reinterpret_cast<const char*>(this + 1); }
  };
  struct Root {
    RootHeader hdr;  // shape: max_height
    typename B::template Ptr<NodePtr> head;
  };
  static constexpr uint32_t kMaxLevels = 64;

 public:
  static constexpr const char* kName = "skiplist";
  static constexpr const char* kDescription = "skiplist, fair coin, up to 16 levels (--max-height)";
  static constexpr OpSet kOpSet = OpSet::kOrderedKv;
  static constexpr Sync kSync = Sync::kExternal;
  static constexpr ModeSet kModes = kEveryMode;
  static constexpr DomainSet kDomains = kEveryDomain;
  static constexpr bool kHarness = false;
  static constexpr const Knob* kKnobs[] = {&kMaxHeight};
  // Update overwrites the value in place under one persist (see above).
  static constexpr ModeSet kTornValueModes{Mode::kPersist};
  enum : unsigned { kTypeHead = 1, kTypeNode = kTypeBare };

  // The expected node size with the fair coin (expected height 2).
  static uint64_t element_bytes(uint32_t value_size) {
    return sizeof(Node) + value_slot(value_size) + 2 * sizeof(NodePtr);
  }
  // Generous: 128 bytes per node over the expected size cover the allocator's
  // header and size rounding and the tail of the height distribution.
  static uint64_t pool_bytes(const DsOptions& o) {
    return o.capacity * (element_bytes(o.value_size) + 128) + kMaxLevels * sizeof(NodePtr);
  }

  SkipList(B& b, const DsOptions& o)
      : b_(b),
        vsize_(o.value_size),
        next_off_(sizeof(Node) + value_slot(o.value_size)),
        max_height_(o.max_height),
        rng_(o.seed) {
    if (o.max_height < 1 || o.max_height > kMaxLevels) {
      throw UsageError(
          fmt::format("{}: max height {} outside [1, {}]", kName, o.max_height, kMaxLevels));
    }
    root_ = b.template root<Root>();
    if (b.created()) {
      b.tx([&] {
        b.store(root_->head, b.template zalloc<NodePtr>(max_height_ * sizeof(NodePtr), kTypeHead));
        b.store(root_->hdr, RootHeader::make(o, max_height_));
      });
    } else {
      root_->hdr.check_reopen(o, kName);
      if (root_->hdr.shape < 1 || root_->hdr.shape > kMaxLevels) {
        throw InvariantViolation(
            fmt::format("{}: the pool root holds max height {}, outside [1, {}]", kName,
                        root_->hdr.shape, kMaxLevels));
      }
      if (root_->hdr.shape != o.max_height) {
        throw UsageError(fmt::format("{}: pool was built with max height {}, options say {}", kName,
                                     root_->hdr.shape, o.max_height));
      }
    }
    head_ = b.follow(root_->head, kTypeHead, bytes_of(max_height_, sizeof(NodePtr)),
                     "skiplist: the head");
    if (b.created()) {
      top_ = 0;
    } else {
      recover();
    }
  }

  // dram and pmem-volatile keep nothing past the run: free every element
  // (after measurement) so repetitions in one process do not accumulate memory.
  ~SkipList() {
    if constexpr (!B::kDurable) {
      for (NodePtr p = head_[0]; p;) {
        const NodePtr next = next_of(p.get())[0];
        b_.free(p);
        p = next;
      }
      b_.free(root_->head);
    }
  }

  bool read(uint64_t key, char* out) const {
    const Node* n = find(key);
    if (n == nullptr) return false;
    std::memcpy(out, n->value(), vsize_);
    return true;
  }

  bool update(uint64_t key, const char* v) {
    Node* n = find(key);
    if (n == nullptr) return false;
    b_.tx([&] { b_.write_value(n->value(), v, vsize_); });
    return true;
  }

  bool insert(uint64_t key, const char* v) {
    NodePtr* preds[kMaxLevels];
    if (Node* n = descend<true>(key, preds); n != nullptr && n->key == key) {
      b_.tx([&] { b_.write_value(n->value(), v, vsize_); });
      return false;
    }
    const uint32_t h = random_height();
    for (uint32_t l = top_; l < h; ++l) preds[l] = &head_[l];
    const size_t bytes = node_bytes(h);
    b_.tx([&] {
      NodePtr fresh = b_.template alloc<Node>(bytes, kTypeNode);
      Node* n = fresh.get();
      n->key = key;
      n->height = h;
      n->unused = 0;
      std::memcpy(n->value(), v, vsize_);
      NodePtr* next = next_of(n);
      for (uint32_t l = 0; l < h; ++l) next[l] = *preds[l];
      b_.seal_value(n, bytes);
      will_change_links(preds, h);
      for (uint32_t l = 0; l < h; ++l) b_.store(*preds[l], fresh);  // level 0 commits
    });
    top_ = std::max(top_, h);
    return true;
  }

  bool remove(uint64_t key) {
    NodePtr* preds[kMaxLevels];
    Node* n = descend<false>(key, preds);
    if (n == nullptr || n->key != key) return false;
    const NodePtr victim = *preds[0];
    const NodePtr* next = next_of(n);
    // A node left partly linked by a crash is on levels 0 .. j only.
    const uint32_t levels = std::min(n->height, top_);
    b_.tx([&] {
      uint32_t linked = 0;  // the levels it is on: a prefix
      while (linked < levels && *preds[linked] == victim) ++linked;
      will_change_links(preds, linked);
      for (uint32_t l = levels; l-- > 0;) {  // top down: level 0 last
        if (*preds[l] == victim) b_.store(*preds[l], next[l]);
      }
      b_.free(victim);
    });
    while (top_ > 0 && !head_[top_ - 1]) --top_;
    return true;
  }

  template <class F>
  void for_each(F&& f) const {
    for (NodePtr p = head_[0]; p;) {
      const Node* n = p.get();
      f(n->key, n->value());
      p = next_of(n)[0];
    }
  }

  // Out of line: inlined into the timed loop beside read, its walk took the
  // registers of the read path (docs/performance.md, the instruction grid).
  template <class F>
  [[gnu::noinline]] uint32_t scan(uint64_t start, uint32_t n, F&& visit) const {
    if (n == 0) return 0;
    const Node* x = descend<true>(start, nullptr);  // the first node with key >= start
    if (x == nullptr) return 0;
    for (uint32_t done = 1;; ++done) {
      visit(x->key, x->value());
      if (done == n) return done;
      const NodePtr p = next_of(x)[0];
      if (!p) return done;
      x = p.get();
    }
  }

  // Every level is strictly ascending (so acyclic, with distinct keys); every
  // node has a height in [1, max_height], is on level 0, and is linked on a
  // prefix 0 .. j of its levels (what an insert or delete cut short by a crash
  // leaves); the DRAM top level matches the head. Returns the level-0 count.
  uint64_t check() const {
    std::unordered_map<const Node*, uint32_t> linked;  // node -> levels found on so far
    for (uint32_t lvl = 0; lvl < max_height_; ++lvl) {
      const Node* prev = nullptr;
      for (NodePtr p = head_[lvl]; p;) {
        const Node* n = node(p);
        if (n == nullptr) {
          throw InvariantViolation(
              fmt::format("level {}: dangling link after {}", lvl, where(prev)));
        }
        if (prev != nullptr && n->key <= prev->key) {
          throw InvariantViolation(fmt::format(
              "level {}: key {:#x} follows key {:#x} (not strictly ascending: misordered, "
              "duplicate or cycle)",
              lvl, n->key, prev->key));
        }
        if (n->height < 1 || n->height > max_height_) {
          throw InvariantViolation(fmt::format("level {}: key {:#x} has height {}, outside [1, {}]",
                                               lvl, n->key, n->height, max_height_));
        }
        if (lvl == 0) {
          linked.emplace(n, 1);
        } else {
          auto it = linked.find(n);
          if (it == linked.end()) {
            throw InvariantViolation(
                fmt::format("level {}: key {:#x} is not on level 0", lvl, n->key));
          }
          if (n->height <= lvl) {
            throw InvariantViolation(
                fmt::format("level {}: key {:#x} has height {}", lvl, n->key, n->height));
          }
          if (it->second != lvl) {
            throw InvariantViolation(fmt::format("level {}: key {:#x} is missing from level {}",
                                                 lvl, n->key, it->second));
          }
          it->second = lvl + 1;
        }
        prev = n;
        p = next_of(n)[lvl];
      }
      if (lvl >= top_ && head_[lvl]) {
        throw InvariantViolation(
            fmt::format("level {} is linked but only {} levels are in use", lvl, top_));
      }
      if (lvl + 1 == top_ && !head_[lvl]) {
        throw InvariantViolation(
            fmt::format("level {} is empty but {} levels are in use", lvl, top_));
      }
    }
    return linked.size();
  }

  // The head array and every node on any level (a node is on level 0 in every
  // state a crash can leave; the upper levels are walked too, bounded, so that
  // leak repair never frees a node some link still reaches).
  template <class F>
  void for_each_object(F&& visit) const {
    if (head_ == nullptr || !visit(head_)) return;
    uint64_t count = 0;
    for (NodePtr p = head_[0]; p; ++count) {
      Node* n = node(p);
      if (n == nullptr || !visit(n)) break;
      p = next_of(n)[0];
    }
    for (uint32_t lvl = 1; lvl < max_height_; ++lvl) {
      uint64_t steps = 0;
      for (NodePtr p = head_[lvl]; p && steps <= count; ++steps) {
        Node* n = node(p);
        if (n == nullptr || n->height <= lvl || n->height > max_height_) break;
        visit(n);
        p = next_of(n)[lvl];
      }
    }
  }

  // Recomputes the levels in use from the head; pmem-persist frees a node a
  // crash left allocated but unlinked, or unlinked but not freed.
  void recover() {
    if (head_ == nullptr) throw InvariantViolation("skiplist: the root holds no head");
    top_ = max_height_;
    while (top_ > 0 && !head_[top_ - 1]) --top_;
    repair_leaks(b_, *this);
  }

  // For tests and diagnostics: the height of the node holding `key`, 0 if absent.
  uint32_t height_of(uint64_t key) const {
    const Node* n = find(key);
    return n == nullptr ? 0 : n->height;
  }

 private:
  // The links preds[0 .. h) are about to change: one region per run of
  // adjacent slots (consecutive levels through the same predecessor, or the
  // head), so pmem-trans logs each run as one range.
  void will_change_links(NodePtr* const* preds, uint32_t h) {
    for (uint32_t l = 0; l < h;) {
      uint32_t e = l + 1;
      while (e < h && preds[e] == preds[e - 1] + 1) ++e;
      b_.will_change({{preds[l], (e - l) * sizeof(NodePtr)}});
      l = e;
    }
  }

  friend struct SkipListTestAccess;

  size_t node_bytes(uint32_t height) const { return next_off_ + height * sizeof(NodePtr); }
  NodePtr* next_of(Node* n) const {
    return reinterpret_cast<NodePtr*>(reinterpret_cast<char*>(n) + next_off_);
  }
  const NodePtr* next_of(const Node* n) const {
    return reinterpret_cast<const NodePtr*>(reinterpret_cast<const char*>(n) + next_off_);
  }
  static std::string where(const Node* n) {
    return n == nullptr ? std::string("the head") : fmt::format("key {:#x}", n->key);
  }

  // A node reached by a walk over a pool not trusted yet (B::follow): checked
  // as a node of height 1 (its level-0 link included), then, when its height
  // is in range, as a node of that height. Callers refuse other heights
  // before they read links above level 0.
  Node* node(const NodePtr& p) const {
    constexpr const char* kWhat = "skiplist: a link";
    Node* n = b_.follow(p, kTypeNode, node_bytes(1), kWhat);
    if (n == nullptr || n->height < 1 || n->height > max_height_) return n;
    return b_.follow(p, kTypeNode, node_bytes(n->height), kWhat);
  }

  Node* find(uint64_t key) const {
    Node* n = descend<true>(key, nullptr);
    return n != nullptr && n->key == key ? n : nullptr;
  }

  // Walks from the top level down towards `key`, translating each node once.
  // On every level, records in preds[lvl] (if preds is given) the link that
  // points at the first node with key >= `key`; returns that node on level 0
  // (nullptr: none). kEarly returns as soon as a node holding `key` is met on
  // any level — it is also the first node >= key, but preds stay incomplete.
  template <bool kEarly>
  Node* descend(uint64_t key, NodePtr** preds) const {
    NodePtr* links = head_;
    NodePtr stop;  // the node that ended the level above: known to be >= key
    Node* found = nullptr;
    for (uint32_t lvl = top_; lvl-- > 0;) {
      for (;;) {
        const NodePtr p = links[lvl];
        if (!p) {
          found = nullptr;
          break;
        }
        if (p == stop) break;
        Node* n = p.get();
        // The key and the links are on different lines (the value lies between):
        // fetch the link we follow if the key is smaller while the key loads.
        __builtin_prefetch(&next_of(n)[lvl]);
        if (n->key >= key) {
          if (kEarly && n->key == key) return n;
          stop = p;
          found = n;
          break;
        }
        links = next_of(n);
      }
      if (preds != nullptr) preds[lvl] = &links[lvl];
    }
    return found;
  }

  // 1 + the number of heads before the first tail, capped at max_height; each
  // 64-bit draw serves for many coin flips.
  uint32_t random_height() {
    uint32_t h = 1;
    for (;;) {
      if (nbits_ == 0) {
        bits_ = rng_.next();
        nbits_ = 64;
      }
      const auto heads = static_cast<uint32_t>(std::countr_zero(bits_));  // 64 when bits_ == 0
      if (heads < nbits_) {
        h += heads;
        bits_ = heads + 1 < 64 ? bits_ >> (heads + 1) : 0;
        nbits_ -= heads + 1;
        break;
      }
      h += nbits_;  // every remaining flip was heads
      nbits_ = 0;
      if (h >= max_height_) break;
    }
    return std::min(h, max_height_);
  }

  B& b_;
  uint32_t vsize_;
  uint32_t next_off_;  // sizeof(Node) + value slot: where a node's links start
  uint32_t max_height_;
  uint32_t top_ = 0;  // levels in use (DRAM, recomputed from the head on reopen)
  Root* root_ = nullptr;
  NodePtr* head_ = nullptr;  // max_height_ links, translated once: the array never moves
  Rng rng_;
  uint64_t bits_ = 0;  // unused coin flips from the last draw, lowest bit next
  uint32_t nbits_ = 0;
};

}  // namespace pmemids
