// Append-only persistent linked list with a DRAM index.
//
// Elements {next, key, value[value_slot]} (144 bytes with 8-byte pointers, 152
// with PMEMoids) are appended at the tail. A DRAM hash index maps each key to
// its element and that element's predecessor, so lookups are one index probe
// plus one element access, and delete unlinks in O(1). The index is an
// open-addressing table (util/flat_map.h): a probe reads one slot holding the
// key and both pointers. The index and the tail are rebuilt by walking the
// list when a pool is reopened (recovery).
//
// Durability (pmem-persist): append writes and persists the element, then links
// it with one 8-byte store to the predecessor's `next` (or the root's head); a
// crash leaves it absent or complete, at worst leaking it. Update overwrites the
// value in place (a crash can tear it). Delete unlinks with one 8-byte store,
// then frees (a crash in between leaks). pmem-trans: each operation is one
// transaction logging exactly the link or value bytes it changes.
#pragma once

#include <cstring>

#include "backend/backend.h"
#include "ds/common.h"
#include "util/flat_map.h"

namespace pmemids {

template <Backend B>
class LinkedList {
  struct Elem;
  using ElemPtr = typename B::template Ptr<Elem>;
  struct Elem {
    ElemPtr next;
    uint64_t key;
    char* value() { return reinterpret_cast<char*>(&key + 1); }
    const char* value() const { return reinterpret_cast<const char*>(&key + 1); }
  };
  struct Root {
    RootHeader hdr;
    ElemPtr head;
  };
  struct Loc {
    ElemPtr elem;
    ElemPtr prev;  // null: elem is the head
  };
  static constexpr size_t kHeaderBytes = offsetof(Elem, key) + sizeof(uint64_t);

 public:
  static constexpr const char* kName = "linkedlist";
  static constexpr const char* kDescription = "append-only persistent list with a DRAM hash index";
  static constexpr OpSet kOpSet = OpSet::kKv;
  static constexpr Sync kSync = Sync::kExternal;
  static constexpr ModeSet kModes = kEveryMode;
  static constexpr DomainSet kDomains = kEveryDomain;
  static constexpr bool kHarness = false;
  // Update overwrites the value in place under one persist (see above).
  static constexpr ModeSet kTornValueModes{Mode::kPersist};
  enum : unsigned { kTypeElem = kTypeBare };

  static uint64_t element_bytes(uint32_t value_size) {
    return kHeaderBytes + value_slot(value_size);
  }
  static uint64_t pool_bytes(const DsOptions& o) {
    return o.capacity * (element_bytes(o.value_size) + 64);
  }

  LinkedList(B& b, const DsOptions& o)
      : b_(b), vsize_(o.value_size), elem_bytes_(element_bytes(o.value_size)) {
    root_ = b.template root<Root>();
    index_.reserve(o.capacity);
    if (b.created()) {
      b.tx([&] { b.store(root_->hdr, RootHeader::make(o, 0)); });
    } else {
      root_->hdr.check_reopen(o, kName);
      recover();
    }
  }

  // dram and pmem-volatile keep nothing past the run: free every element
  // (after measurement) so repetitions in one process do not accumulate memory.
  ~LinkedList() {
    if constexpr (!B::kDurable) {
      for (ElemPtr p = root_->head; p;) {
        const ElemPtr next = p.get()->next;
        b_.free(p);
        p = next;
      }
    }
  }

  bool read(uint64_t key, char* out) const {
    const Loc* l = index_.find(key);
    if (l == nullptr) return false;
    std::memcpy(out, l->elem.get()->value(), vsize_);
    return true;
  }

  bool update(uint64_t key, const char* v) {
    const Loc* l = index_.find(key);
    if (l == nullptr) return false;
    Elem* e = l->elem.get();
    b_.tx([&] { b_.write_value(e->value(), v, vsize_); });
    return true;
  }

  bool insert(uint64_t key, const char* v) {
    if (update(key, v)) return false;
    ElemPtr fresh;
    b_.tx([&] {
      fresh = b_.template alloc<Elem>(elem_bytes_, kTypeElem);
      Elem* e = fresh.get();
      e->next = ElemPtr();
      e->key = key;
      std::memcpy(e->value(), v, vsize_);
      b_.seal_value(e, kHeaderBytes + vsize_);
      b_.store(link_to(tail_), fresh);
    });
    index_.emplace(key, Loc{fresh, tail_});
    tail_ = fresh;
    return true;
  }

  bool remove(uint64_t key) {
    const Loc* l = index_.find(key);
    if (l == nullptr) return false;
    const Loc loc = *l;
    const ElemPtr next = loc.elem.get()->next;
    b_.tx([&] {
      b_.store(link_to(loc.prev), next);
      b_.free(loc.elem);
    });
    index_.erase(key);
    if (next) {
      index_.find(next.get()->key)->prev = loc.prev;
    } else {
      tail_ = loc.prev;
    }
    return true;
  }

  template <class F>
  void for_each(F&& f) const {
    for (ElemPtr p = root_->head; p;) {
      Elem* e = p.get();
      f(e->key, e->value());
      p = e->next;
    }
  }

  template <class F>
  void for_each_object(F&& visit) const {
    for (ElemPtr p = root_->head; p;) {
      Elem* e = elem(p);
      if (e == nullptr || !visit(e)) return;
      p = e->next;
    }
  }

  // Rebuilds the DRAM index and tail by walking the persistent list (a key met
  // twice means a cycle or a corrupt list: InvariantViolation), then frees what
  // a crash leaked (pmem-persist): an element allocated but never linked, or
  // unlinked but not freed.
  void recover() {
    index_.clear();
    ElemPtr prev;
    for (ElemPtr p = root_->head; p;) {
      Elem* e = elem(p);
      if (e == nullptr) throw InvariantViolation("recovery: a link does not translate");
      if (!index_.emplace(e->key, Loc{p, prev})) {
        throw InvariantViolation(fmt::format("recovery: key {:#x} appears twice", e->key));
      }
      prev = p;
      p = e->next;
    }
    tail_ = prev;
    repair_leaks(b_, *this);
  }

  // The list is acyclic with distinct keys, and the DRAM index and tail agree
  // with it exactly.
  uint64_t check() const {
    uint64_t n = 0;
    ElemPtr prev;
    for (ElemPtr p = root_->head; p; ++n) {
      Elem* e = elem(p);
      if (e == nullptr) throw InvariantViolation(fmt::format("element {}: dangling link", n));
      const Loc* l = index_.find(e->key);
      if (l == nullptr || !(l->elem == p) || !(l->prev == prev)) {
        throw InvariantViolation(
            fmt::format("element {} (key {:#x}) disagrees with the index", n, e->key));
      }
      if (n > index_.size()) throw InvariantViolation("list longer than its index (cycle?)");
      prev = p;
      p = e->next;
    }
    if (n != index_.size()) {
      throw InvariantViolation(fmt::format("list holds {} elements, index {}", n, index_.size()));
    }
    if (!(prev == tail_)) throw InvariantViolation("tail does not point at the last element");
    return n;
  }

 private:
  // A link followed by a walk over a pool not trusted yet (B::follow).
  Elem* elem(const ElemPtr& p) const {
    return b_.follow(p, kTypeElem, elem_bytes_, "linkedlist: a link");
  }

  // The link that points at the element after `prev` (the head when prev is null).
  ElemPtr& link_to(ElemPtr prev) { return prev ? prev.get()->next : root_->head; }

  B& b_;
  uint32_t vsize_;
  uint64_t elem_bytes_;
  Root* root_;
  FlatMap<Loc> index_;  // DRAM, rebuilt on reopen
  ElemPtr tail_;        // DRAM, rebuilt on reopen
};

}  // namespace pmemids
