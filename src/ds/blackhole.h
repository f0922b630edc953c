// Blackhole: accepts every operation and does nothing, so a run measures the
// harness alone (stream walk, dispatch, result counting). Each operation still
// consumes its key through an empty asm statement so the loop cannot be elided.
#pragma once

#include "backend/backend.h"
#include "ds/common.h"

namespace pmemids {

template <Backend B>
class Blackhole {
 public:
  static constexpr const char* kName = "blackhole";
  static constexpr const char* kDescription = "does nothing: measures the harness itself";
  static constexpr OpSet kOpSet = OpSet::kOrderedKv;
  static constexpr Sync kSync = Sync::kExternal;
  static constexpr ModeSet kModes = kEveryMode;
  static constexpr DomainSet kDomains = kEveryDomain;
  static constexpr bool kHarness = true;

  static uint64_t element_bytes(uint32_t) { return 0; }
  static uint64_t pool_bytes(const DsOptions&) { return 0; }

  // Claims a root record, as every structure does, so the backend's lock slot
  // exists for concurrent runs.
  Blackhole(B& b, const DsOptions&) { b.template root<RootHeader>(); }

  bool read(uint64_t key, char*) const { return sink(key); }
  bool update(uint64_t key, const char*) { return sink(key); }
  bool insert(uint64_t key, const char*) { return sink(key); }
  bool remove(uint64_t key) { return sink(key); }
  template <class F>
  uint32_t scan(uint64_t key, uint32_t n, F&&) const {
    return sink(key) ? n : 0;
  }

  template <class F>
  void for_each(F&&) const {}
  uint64_t check() const { return 0; }

 private:
  static bool sink(uint64_t key) {
    asm volatile("" : : "r"(key));
    return true;
  }
};

}  // namespace pmemids
