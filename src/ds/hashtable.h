// Chained hashtable: a fixed bucket array of node pointers, sized from the
// expected element count and the load factor; new nodes go at the head of their
// chain; lookups stop at the first match.
//
// Node: {next, key, value[value_slot]} — 144 bytes with 8-byte pointers, 152
// with PMEMoids (128-byte value slot).
//
// Durability (pmem-persist): insert writes and persists the whole new node, then
// publishes it with one 8-byte store to the bucket (or predecessor) link; a crash
// leaves the key either absent or fully present, at worst leaking the node if the
// crash falls between allocation and publication. Update overwrites the value in
// place and persists it: a crash mid-update can leave a torn value. Delete
// unlinks with one 8-byte store, then frees; a crash in between leaks the node.
// pmem-trans: insert, update and delete are each one transaction logging exactly
// the link (16 bytes) or the value bytes they change.
#pragma once

#include <cstring>
#include <unordered_set>

#include "backend/backend.h"
#include "ds/common.h"
#include "pmemids/mulhi.h"

namespace pmemids {

// --load-factor: elements per bucket, which sizes the bucket array.
inline constexpr Knob kLoadFactor{.name = "load_factor",
                                  .type = KnobType::kReal,
                                  .def = 0.75,
                                  .min = 0.01,
                                  .max = 100,
                                  .help = "Hashtable elements per bucket",
                                  .get = [](const DsOptions& o) { return o.load_factor; },
                                  .set = [](DsOptions& o, double v) { o.load_factor = v; }};

template <Backend B>
class HashTable {
  struct Node;
  using NodePtr = typename B::template Ptr<Node>;
  struct Node {
    NodePtr next;
    uint64_t key;
    char* value() { return reinterpret_cast<char*>(&key + 1); }
    const char* value() const { return reinterpret_cast<const char*>(&key + 1); }
  };
  struct Root {
    RootHeader hdr;
    typename B::template Ptr<NodePtr> buckets;
  };
  static constexpr size_t kHeaderBytes = offsetof(Node, key) + sizeof(uint64_t);

 public:
  static constexpr const char* kName = "hashtable";
  static constexpr const char* kDescription =
      "chained hashtable, fixed bucket array, insert at chain head";
  static constexpr OpSet kOpSet = OpSet::kKv;
  static constexpr Sync kSync = Sync::kExternal;
  static constexpr ModeSet kModes = kEveryMode;
  static constexpr DomainSet kDomains = kEveryDomain;
  static constexpr bool kHarness = false;
  static constexpr const Knob* kKnobs[] = {&kLoadFactor};
  // Update overwrites the value in place under one persist (see above).
  static constexpr ModeSet kTornValueModes{Mode::kPersist};
  enum : unsigned { kTypeBuckets = 1, kTypeNode = kTypeBare };

  static uint64_t element_bytes(uint32_t value_size) {
    return kHeaderBytes + value_slot(value_size);
  }
  static uint64_t bucket_count(const DsOptions& o) {
    return std::max<uint64_t>(
        1, static_cast<uint64_t>(static_cast<double>(o.expected) / o.load_factor));
  }
  static uint64_t pool_bytes(const DsOptions& o) {
    return bucket_count(o) * sizeof(NodePtr) + o.capacity * (element_bytes(o.value_size) + 64);
  }

  HashTable(B& b, const DsOptions& o)
      : b_(b), vsize_(o.value_size), node_bytes_(element_bytes(o.value_size)) {
    root_ = b.template root<Root>();
    if (b.created()) {
      const uint64_t n = bucket_count(o);
      b.tx([&] {
        b.store(root_->buckets, b.template zalloc<NodePtr>(n * sizeof(NodePtr), kTypeBuckets));
        b.store(root_->hdr, RootHeader::make(o, n));
      });
    } else {
      root_->hdr.check_reopen(o, kName);
    }
    nbuckets_ = root_->hdr.shape;
    buckets_ = b.follow(root_->buckets, kTypeBuckets, bytes_of(nbuckets_, sizeof(NodePtr)),
                        "hashtable: the bucket array");
    if (!b.created()) recover();
  }

  // dram and pmem-volatile keep nothing past the run: free every element
  // (after measurement) so repetitions in one process do not accumulate memory.
  ~HashTable() {
    if constexpr (!B::kDurable) {
      for (uint64_t i = 0; i < nbuckets_; ++i) {
        for (NodePtr p = buckets_[i]; p;) {
          const NodePtr next = p.get()->next;
          b_.free(p);
          p = next;
        }
      }
      b_.free(root_->buckets);
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
    if (Node* n = find(key)) {
      b_.tx([&] { b_.write_value(n->value(), v, vsize_); });
      return false;
    }
    NodePtr& head = buckets_[bucket(key)];
    b_.tx([&] {
      NodePtr fresh = b_.template alloc<Node>(node_bytes_, kTypeNode);
      Node* n = fresh.get();
      n->next = head;
      n->key = key;
      std::memcpy(n->value(), v, vsize_);
      b_.seal_value(n, kHeaderBytes + vsize_);
      b_.store(head, fresh);
    });
    return true;
  }

  bool remove(uint64_t key) {
    NodePtr* link = &buckets_[bucket(key)];
    for (NodePtr p = *link; p;) {
      Node* n = p.get();
      if (n->key == key) {
        b_.tx([&] {
          b_.store(*link, n->next);
          b_.free(p);
        });
        return true;
      }
      link = &n->next;
      p = n->next;
    }
    return false;
  }

  template <class F>
  void for_each(F&& f) const {
    for (uint64_t i = 0; i < nbuckets_; ++i) {
      for (NodePtr p = buckets_[i]; p;) {
        Node* n = p.get();
        f(n->key, n->value());
        p = n->next;
      }
    }
  }

  template <class F>
  void for_each_object(F&& visit) const {
    if (buckets_ == nullptr || !visit(buckets_)) return;
    for (uint64_t i = 0; i < nbuckets_; ++i) {
      for (NodePtr p = buckets_[i]; p;) {
        Node* n = node(p);
        if (n == nullptr || !visit(n)) break;
        p = n->next;
      }
    }
  }

  // No DRAM state beyond the bucket array's address; pmem-persist frees a node
  // a crash left allocated but unpublished, or unlinked but not freed.
  void recover() {
    if (buckets_ == nullptr || nbuckets_ == 0) {
      throw InvariantViolation("hashtable: the root holds no buckets");
    }
    repair_leaks(b_, *this);
  }

  // Every node hangs off the bucket its key hashes to, and no key appears twice
  // (which also rules out cycles).
  uint64_t check() const {
    std::unordered_set<uint64_t> seen;
    for (uint64_t i = 0; i < nbuckets_; ++i) {
      for (NodePtr p = buckets_[i]; p;) {
        Node* n = node(p);
        if (n == nullptr) throw InvariantViolation(fmt::format("bucket {}: dangling link", i));
        if (bucket(n->key) != i) {
          throw InvariantViolation(
              fmt::format("key {:#x} in bucket {}, hashes to {}", n->key, i, bucket(n->key)));
        }
        if (!seen.insert(n->key).second) {
          throw InvariantViolation(
              fmt::format("key {:#x} reached twice (duplicate or cycle)", n->key));
        }
        p = n->next;
      }
    }
    return seen.size();
  }

 private:
  // A chain link followed by a walk over a pool not trusted yet (B::follow).
  Node* node(const NodePtr& p) const {
    return b_.follow(p, kTypeNode, node_bytes_, "hashtable: a chain link");
  }

  // Fibonacci hashing, then a multiply-shift range reduction.
  uint64_t bucket(uint64_t key) const { return mulhi64(key * 0x9e3779b97f4a7c15ULL, nbuckets_); }
  Node* find(uint64_t key) const {
    for (NodePtr p = buckets_[bucket(key)]; p;) {
      Node* n = p.get();
      if (n->key == key) return n;
      p = n->next;
    }
    return nullptr;
  }

  B& b_;
  uint32_t vsize_;
  uint64_t node_bytes_;
  Root* root_;
  uint64_t nbuckets_ = 0;
  NodePtr* buckets_ = nullptr;  // translated once: the array never moves
};

}  // namespace pmemids
