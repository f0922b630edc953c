// Arraylist: one array allocated up front for `capacity` record ids; the element
// for a key lives at the index of its record id (the key codec's inverse).
// Element: {present, value} in a slot of value_slot(value_size + 8) bytes — 128
// for the default 100-byte values, so elements are cache-line aligned.
//
// Durability (pmem-persist): insert writes and persists the value, then sets
// `present` with one persisted 8-byte store, so a new key is absent or complete.
// Update overwrites the value in place (a crash can tear it). Delete clears
// `present` with one 8-byte store. pmem-trans: insert and update are one
// transaction each logging exactly the bytes they change (an insert's
// `present` and value as one range); delete is a lone 8-byte store and needs
// none.
#pragma once

#include <cstring>

#include "backend/backend.h"
#include "ds/common.h"

namespace pmemids {

template <Backend B>
class ArrayList {
  struct Elem {
    uint64_t present;
    char* value() { return reinterpret_cast<char*>(&present + 1); }
    const char* value() const { return reinterpret_cast<const char*>(&present + 1); }
  };
  struct Root {
    RootHeader hdr;
    typename B::template Ptr<char> slots;
  };

 public:
  static constexpr const char* kName = "arraylist";
  static constexpr const char* kDescription = "fixed array of value slots addressed by record id";
  static constexpr OpSet kOpSet = OpSet::kKv;
  static constexpr Sync kSync = Sync::kExternal;
  static constexpr ModeSet kModes = kEveryMode;
  static constexpr DomainSet kDomains = kEveryDomain;
  static constexpr bool kHarness = false;
  // Update overwrites the value in place under one persist (see above).
  static constexpr ModeSet kTornValueModes{Mode::kPersist};
  enum : unsigned { kTypeArray = 1 };

  static uint64_t element_bytes(uint32_t value_size) {
    return value_slot(value_size + sizeof(uint64_t));
  }
  static uint64_t pool_bytes(const DsOptions& o) {
    return o.capacity * element_bytes(o.value_size);
  }

  ArrayList(B& b, const DsOptions& o)
      : b_(b), codec_(o.codec), vsize_(o.value_size), stride_(element_bytes(o.value_size)) {
    root_ = b.template root<Root>();
    if (b.created()) {
      b.tx([&] {
        b.store(root_->slots, b.template zalloc<char>(o.capacity * stride_, kTypeArray));
        b.store(root_->hdr, RootHeader::make(o, o.capacity));
      });
    } else {
      root_->hdr.check_reopen(o, kName);
    }
    capacity_ = root_->hdr.shape;
    base_ =
        b.follow(root_->slots, kTypeArray, bytes_of(capacity_, stride_), "arraylist: the slots");
    if (!b.created()) recover();
  }

  // dram and pmem-volatile keep nothing past the run: free every element
  // (after measurement) so repetitions in one process do not accumulate memory.
  ~ArrayList() {
    if constexpr (!B::kDurable) b_.free(root_->slots);
  }

  bool read(uint64_t key, char* out) const {
    const Elem* e = find(key);
    if (e == nullptr) return false;
    std::memcpy(out, e->value(), vsize_);
    return true;
  }

  bool update(uint64_t key, const char* v) {
    Elem* e = find(key);
    if (e == nullptr) return false;
    b_.tx([&] { b_.write_value(e->value(), v, vsize_); });
    return true;
  }

  bool insert(uint64_t key, const char* v) {
    Elem* e = slot(key);
    if (e == nullptr) {
      throw RuntimeError(fmt::format("arraylist: key {:#x} maps to record id {} beyond capacity {}",
                                     key, codec_.decode(key), capacity_));
    }
    const bool fresh = e->present == 0;
    b_.tx([&] {
      b_.will_change({{&e->present, fresh ? sizeof e->present : 0}, {e->value(), vsize_}});
      b_.write_value(e->value(), v, vsize_);
      if (fresh) b_.store(e->present, uint64_t{1});
    });
    return fresh;
  }

  bool remove(uint64_t key) {
    Elem* e = find(key);
    if (e == nullptr) return false;
    b_.store_word(e->present, 0);
    return true;
  }

  template <class F>
  void for_each(F&& f) const {
    for (uint64_t id = 0; id < capacity_; ++id) {
      auto* e = reinterpret_cast<Elem*>(base_ + id * stride_);
      if (e->present != 0) f(codec_.encode(id), e->value());
    }
  }

  template <class F>
  void for_each_object(F&& visit) const {
    if (base_ != nullptr) visit(base_);
  }

  // The array is allocated with the root in one transaction (pmem-persist: before
  // the header is stored): nothing else can leak. No DRAM state.
  void recover() {
    if (base_ == nullptr) throw InvariantViolation("arraylist: the root holds no array");
    repair_leaks(b_, *this);
  }

  // `present` is exactly 0 or 1 everywhere.
  uint64_t check() const {
    uint64_t count = 0;
    for (uint64_t id = 0; id < capacity_; ++id) {
      const uint64_t p = reinterpret_cast<const Elem*>(base_ + id * stride_)->present;
      if (p > 1) throw InvariantViolation(fmt::format("slot {}: present word is {:#x}", id, p));
      count += p;
    }
    return count;
  }

 private:
  Elem* slot(uint64_t key) const {
    const uint64_t id = codec_.decode(key);
    return id < capacity_ ? reinterpret_cast<Elem*>(base_ + id * stride_) : nullptr;
  }
  Elem* find(uint64_t key) const {
    Elem* e = slot(key);
    return e != nullptr && e->present != 0 ? e : nullptr;
  }

  B& b_;
  KeyCodec codec_;
  uint32_t vsize_;
  uint64_t stride_;
  Root* root_;
  uint64_t capacity_ = 0;
  char* base_ = nullptr;  // translated once: the array never moves
};

}  // namespace pmemids
