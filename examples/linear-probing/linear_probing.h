// LinearProbing: an open-addressing hash table with linear probing, written
// outside pmemids against include/pmemids/index.h and built in with
//   cmake -S . -B build -DPMEMIDS_EXTRA_DS=examples/linear-probing
// (the test suite builds it as `pmemids-examples` and runs it in every mode
// and under `pmemids crash`).
//
// Layout: one array of 2 x capacity slots allocated at creation; a slot is
// {state, key, value} with state empty (0), used (1) or deleted (2), in
// value_slot(value_size + 16) bytes. A key lives in the first used slot on the
// probe sequence from its home slot; lookups stop at the first empty slot;
// deleted slots are skipped by lookups and reused by inserts.
//
// Durability (pmem-persist): insert writes and persists the key and value of a
// free slot, then publishes it with one persisted 8-byte store of its state,
// so a new key is absent or complete. Update overwrites the value in place (a
// crash can tear it, as in the built-in hashtable). Delete is one 8-byte store
// of the state. Nothing is allocated after creation, so nothing can leak.
// pmem-trans: insert and update are one transaction each, logging the bytes
// they change; delete is a lone 8-byte store.
#pragma once

#include <pmemids/index.h>

#include <cstring>
#include <unordered_set>

namespace pmemids_example {

using pmemids::Backend;
using pmemids::DsOptions;
using pmemids::InvariantViolation;
using pmemids::RootHeader;

template <Backend B>
class LinearProbing {
  enum : uint64_t { kEmpty = 0, kUsed = 1, kDeleted = 2 };
  struct Slot {
    uint64_t state;
    uint64_t key;
    char* value() { return reinterpret_cast<char*>(&key + 1); }
    const char* value() const { return reinterpret_cast<const char*>(&key + 1); }
  };
  struct Root {
    RootHeader hdr;  // shape: the number of slots
    typename B::template Ptr<char> slots;
  };

 public:
  static constexpr const char* kName = "linear-probing";
  static constexpr bool kCanScan = false;
  enum : unsigned { kTypeSlots = 1 };

  static uint64_t element_bytes(uint32_t value_size) {
    return pmemids::value_slot(value_size + 2 * sizeof(uint64_t));
  }
  static uint64_t slot_count(const DsOptions& o) { return 2 * std::max<uint64_t>(o.capacity, 1); }
  static uint64_t pool_bytes(const DsOptions& o) {
    return slot_count(o) * element_bytes(o.value_size);
  }

  LinearProbing(B& b, const DsOptions& o)
      : b_(b), vsize_(o.value_size), stride_(element_bytes(o.value_size)) {
    root_ = b.template root<Root>();
    if (b.created()) {
      const uint64_t n = slot_count(o);
      b.tx([&] {
        b.store(root_->slots, b.template zalloc<char>(n * stride_, kTypeSlots));
        b.store(root_->hdr, RootHeader::make(o, n));
      });
    } else {
      root_->hdr.check_reopen(o, kName);
    }
    nslots_ = root_->hdr.shape;
    // Checked: on a reopened pool the root is not trusted yet (b.follow).
    base_ = b.follow(root_->slots, kTypeSlots, pmemids::bytes_of(nslots_, stride_),
                     "linear-probing: the slot array");
    if (!b.created()) recover();
  }

  // dram and pmem-volatile keep nothing past the run.
  ~LinearProbing() {
    if constexpr (!B::kDurable) b_.free(root_->slots);
  }

  bool read(uint64_t key, char* out) const {
    const Slot* s = find(key);
    if (s == nullptr) return false;
    std::memcpy(out, s->value(), vsize_);
    return true;
  }

  bool update(uint64_t key, const char* v) {
    Slot* s = find(key);
    if (s == nullptr) return false;
    b_.tx([&] { b_.write(s->value(), v, vsize_); });
    return true;
  }

  bool insert(uint64_t key, const char* v) {
    Slot* reuse = nullptr;  // the first deleted slot on the way
    for (uint64_t i = home(key), n = 0; n < nslots_; i = next(i), ++n) {
      Slot* s = at(i);
      if (s->state == kUsed && s->key == key) {
        b_.tx([&] { b_.write(s->value(), v, vsize_); });
        return false;
      }
      if (s->state == kDeleted && reuse == nullptr) reuse = s;
      if (s->state == kEmpty) {
        publish(reuse != nullptr ? reuse : s, key, v);
        return true;
      }
    }
    if (reuse == nullptr) {
      throw pmemids::RuntimeError(fmt::format("{}: all {} slots are used", kName, nslots_));
    }
    publish(reuse, key, v);
    return true;
  }

  bool remove(uint64_t key) {
    Slot* s = find(key);
    if (s == nullptr) return false;
    b_.store_word(s->state, kDeleted);
    return true;
  }

  template <class F>
  void for_each(F&& f) const {
    for (uint64_t i = 0; i < nslots_; ++i) {
      if (at(i)->state == kUsed) f(at(i)->key, at(i)->value());
    }
  }

  template <class F>
  void for_each_object(F&& visit) const {
    if (base_ != nullptr) visit(base_);
  }

  // No DRAM state but the array's address; the array is allocated with the
  // root in one step, so there is nothing to repair (repair_leaks checks).
  void recover() {
    if (base_ == nullptr || nslots_ == 0) {
      throw InvariantViolation(fmt::format("{}: no slot array", kName));
    }
    pmemids::repair_leaks(b_, *this);
  }

  // States are empty, used or deleted; every used key is reached by probing
  // from its home slot (no empty slot in between) and appears once.
  uint64_t check() const {
    std::unordered_set<uint64_t> seen;
    for (uint64_t i = 0; i < nslots_; ++i) {
      const Slot* s = at(i);
      if (s->state > kDeleted) {
        throw InvariantViolation(fmt::format("slot {}: state {:#x}", i, s->state));
      }
      if (s->state != kUsed) continue;
      for (uint64_t j = home(s->key); j != i; j = next(j)) {
        if (at(j)->state == kEmpty) {
          throw InvariantViolation(fmt::format(
              "key {:#x} in slot {} is cut off from its home slot by empty slot {}", s->key, i, j));
        }
      }
      if (!seen.insert(s->key).second) {
        throw InvariantViolation(fmt::format("key {:#x} is in two slots", s->key));
      }
    }
    return seen.size();
  }

 private:
  void publish(Slot* s, uint64_t key, const char* v) {
    b_.tx([&] {
      b_.write(s->value(), v, vsize_);
      b_.store(s->key, key);
      b_.store(s->state, uint64_t{kUsed});
    });
  }
  uint64_t home(uint64_t key) const {
    return pmemids::mulhi64(key * 0x9e3779b97f4a7c15ULL, nslots_);
  }
  uint64_t next(uint64_t i) const { return i + 1 == nslots_ ? 0 : i + 1; }
  Slot* at(uint64_t i) const { return reinterpret_cast<Slot*>(base_ + i * stride_); }
  Slot* find(uint64_t key) const {
    for (uint64_t i = home(key), n = 0; n < nslots_; i = next(i), ++n) {
      Slot* s = at(i);
      if (s->state == kEmpty) return nullptr;
      if (s->state == kUsed && s->key == key) return s;
    }
    return nullptr;
  }

  B& b_;
  uint32_t vsize_;
  uint64_t stride_;
  Root* root_;
  uint64_t nslots_ = 0;
  char* base_ = nullptr;  // translated once: the array never moves
};

PMEMIDS_REGISTER_INDEX(LinearProbing,
                       "example from examples/linear-probing: open addressing, linear probing");

}  // namespace pmemids_example
