// A DRAM hash map from uint64_t keys to small trivially copyable values, for
// indexes on the timed path (the linked list's key -> element index).
//
// Open addressing with linear probing over one power-of-two array of
// {key, value} slots, 64-byte aligned: a lookup reads the slot its key hashes
// to and, at the load kept here (at most 3/4), rarely more than the next one,
// so on an index larger than the caches it costs one miss, where
// std::unordered_map costs three dependent ones (its bucket, the node before
// the key's, which the bucket points to, and the key's node). None of
// pmemids' dependencies offers such a table: the standard library's hash maps
// are node-based, and open-addressing ones (abseil, tsl, sparsehash) are not
// among its Debian packages.
//
// Any uint64_t is a key: one value marks an empty slot, and that key, when a
// caller stores it, is kept beside the array. erase() moves later slots of
// the probe run back (no tombstones), so lookups stay as short after erases
// as after inserts. The array doubles when an insert would fill it past 3/4;
// reserve(n) sizes it for n keys up front, so a table that never exceeds its
// reservation never allocates after construction. A pointer returned by
// find() stays valid until the next emplace() or erase() (either may move
// slots). Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>

namespace pmemids {

template <class V>
class FlatMap {
  static_assert(std::is_trivially_copyable_v<V> && std::is_default_constructible_v<V>);

 public:
  FlatMap() { resize(kMinSlots); }

  // Room for n keys without growing (never shrinks).
  void reserve(size_t n) {
    size_t slots = kMinSlots;
    while (too_full(n, slots)) slots *= 2;
    if (slots > mask_ + 1) resize(slots);
  }

  V* find(uint64_t key) {
    if (key == kEmpty) [[unlikely]]
      return has_empty_key_ ? &empty_key_value_ : nullptr;
    for (size_t i = home(key);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.key == key) return &s.value;
      if (s.key == kEmpty) return nullptr;
    }
  }
  const V* find(uint64_t key) const { return const_cast<FlatMap*>(this)->find(key); }

  // Adds key -> v unless key is present (then nothing changes): whether it added.
  bool emplace(uint64_t key, const V& v) {
    if (key == kEmpty) [[unlikely]] {
      if (has_empty_key_) return false;
      has_empty_key_ = true;
      empty_key_value_ = v;
      ++size_;
      return true;
    }
    if (too_full(size_ + 1, mask_ + 1)) resize((mask_ + 1) * 2);
    size_t i = home(key);
    for (; slots_[i].key != kEmpty; i = (i + 1) & mask_) {
      if (slots_[i].key == key) return false;
    }
    slots_[i] = Slot{key, v};
    ++size_;
    return true;
  }

  // Removes key: whether it was present.
  bool erase(uint64_t key) {
    if (key == kEmpty) [[unlikely]] {
      if (!has_empty_key_) return false;
      has_empty_key_ = false;
      --size_;
      return true;
    }
    size_t hole = home(key);
    for (; slots_[hole].key != key; hole = (hole + 1) & mask_) {
      if (slots_[hole].key == kEmpty) return false;
    }
    // Backward shift: a later slot of the run moves into the hole unless its
    // home lies after the hole (cyclically), where a lookup would not pass it.
    for (size_t j = (hole + 1) & mask_; slots_[j].key != kEmpty; j = (j + 1) & mask_) {
      if (((j - home(slots_[j].key)) & mask_) >= ((j - hole) & mask_)) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole].key = kEmpty;
    --size_;
    return true;
  }

  size_t size() const { return size_; }

  // Removes every key, keeping the array.
  void clear() {
    for (size_t i = 0; i <= mask_; ++i) slots_[i].key = kEmpty;
    has_empty_key_ = false;
    size_ = 0;
  }

 private:
  struct Slot {
    uint64_t key;
    V value;
  };
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  static constexpr size_t kMinSlots = 16;
  static constexpr size_t kAlign = 64;
  struct Free {
    void operator()(Slot* p) const { ::operator delete (p, std::align_val_t{kAlign}); }
  };

  static bool too_full(size_t keys, size_t slots) { return keys * 4 > slots * 3; }

  // Fibonacci hashing on the key folded once: sequential and structured keys
  // spread over the whole array.
  size_t home(uint64_t key) const {
    return static_cast<size_t>(((key ^ (key >> 32)) * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  void resize(size_t slots) {
    std::unique_ptr<Slot[], Free> old(std::move(slots_));
    const size_t old_slots = old ? mask_ + 1 : 0;
    slots_.reset(
        static_cast<Slot*>(::operator new (slots * sizeof(Slot), std::align_val_t{kAlign})));
    mask_ = slots - 1;
    shift_ = 64 - static_cast<unsigned>(__builtin_ctzll(slots));
    for (size_t i = 0; i < slots; ++i) slots_[i].key = kEmpty;
    for (size_t i = 0; i < old_slots; ++i) {
      if (old[i].key == kEmpty) continue;
      size_t j = home(old[i].key);
      while (slots_[j].key != kEmpty) j = (j + 1) & mask_;
      slots_[j] = old[i];
    }
  }

  std::unique_ptr<Slot[], Free> slots_;
  size_t mask_ = 0;
  unsigned shift_ = 64;
  size_t size_ = 0;  // keys, the empty-slot key included
  bool has_empty_key_ = false;
  V empty_key_value_{};
};

}  // namespace pmemids
