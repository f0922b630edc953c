// Structure traits: what each structure declares about itself, checked by the
// Structure concept and collected once into the descriptor list (ds/catalog.h,
// registry/registry.h), which drives `run`, `crash`, `list`, sweep validation and
// the report (through `pmemids list --json`).
//
// Every structure `template <Backend B> class X` declares, as static constexpr
// members:
//   kName         its --ds name
//   kDescription  one line for `pmemids list`
//   kOpSet        the operation set it implements (workload/op_set.h)
//   kSync         kExternal: callers serialise access (concurrent mode's global
//                 lock); kInternal: it synchronises itself, so N threads may
//                 call it at once (native mode) through per-thread handles
//   kModes        the persistence modes it supports (a volatile design:
//                 dram and pmem-volatile; a transactional one: durable modes)
//   kDomains      the persistence domains under which its durable modes are
//                 crash-consistent (an eADR-only design: eadr; run under adr
//                 only with --unsafe, as a negative control)
//   kHarness      true for structures that measure the harness (blackhole):
//                 never part of `--ds all`
// and, optionally,
//   kTornModes    the durable modes in which an operation a crash interrupts
//                 can be left half applied *by design*, in every domain (seed
//                 001's pmem-persist trees: multi-word in-place node changes,
//                 docs/crash.md). `pmemids crash` marks their violations as
//                 expected. Absent: none (every durable mode failure-atomic).
//   kKnobs        the knobs it reads (pmemids/knob.h), as an array of
//                 pointers to descriptors: `run`'s options, the record's
//                 config and `list --json` derive from them. Absent: none.
//   kMetrics      what it counts about itself (pmemids/metric.h), as an
//                 array of descriptors: a run record's metrics and `list
//                 --json` derive from them. Absent: none.
//   kTornValueModes  the durable modes in which an update overwrites a value
//                 of several lines in place, sealing it with one persist: the
//                 structure stays failure-atomic, but when some of the value's
//                 lines reach PMEM before the seal (a cache eviction; the
//                 power model's --survive random) the in-flight update's value
//                 is torn. `pmemids crash` counts those as torn_values, not as
//                 violations. Absent: none (every overwrite is atomic).
// and two static functions: element_bytes(value_size), the bytes of one
// element (node, slot) in backend B, and pool_bytes(DsOptions), the pool size
// it needs.
//
// Per-thread identity (kInternal): X is built with DsOptions::threads = N, the
// number of threads that will ever call it at once, and `x.handle(t)` (t in
// [0, N)) returns a small object, obtained once per worker in its untimed
// set-up, through which worker t calls the operations. Handles carry whatever
// per-thread state the design needs (its record in the structure, its epoch
// slot, its allocation cursor), so the timed loop does no lookup per
// operation. One thread per handle at a time. kExternal structures are called
// directly; `worker_target(x, t)` hides the difference.
//
// Operation-set contracts (the target: the structure, or its handle):
//   kv          bool read(key, char* out), update(key, const char* v),
//               insert(key, v) (false when present: then updated), remove(key)
//   ordered-kv  kv plus uint32_t scan(start, n, visit(key, const char* v))
//   set         bool insert(key) (false when present), remove(key),
//               contains(key); keys in [1, 2^64 - 2] (0 and ~0 are free for
//               sentinels)
//   queue       bool push(id, const char* payload) (false when full),
//               bool pop(uint64_t& id, char* payload_out) (false when empty)
//   stack       bool push(id) (false when full), bool pop(uint64_t& id)
//               (false when empty)
// A pop of an empty structure returns at once (counted as pop_not_found) and
// a push to a full one likewise: no operation waits for one that has not
// begun, so no run can block at its end (docs/design.md, "Blocking").
// What the checkers read (the structure itself, after recovery):
//   check()     walk everything, verify invariants, return the element count
//   for_each(f) kv: f(key, const char* value); set: f(key) ascending;
//               queue: f(id, const char* payload) oldest first; stack: f(id)
//               top first
#pragma once

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>
#include <type_traits>

#include "backend/backends.h"
#include "pmem/domain.h"
#include "pmemids/knob.h"
#include "pmemids/metric.h"
#include "workload/op_set.h"

namespace pmemids {

enum class Sync : uint8_t { kExternal, kInternal };
constexpr std::string_view sync_name(Sync s) {
  return s == Sync::kInternal ? "internal" : "external";
}

// A set of persistence modes or domains, as a bitmask.
template <class E>
class EnumSet {
 public:
  constexpr EnumSet() = default;
  constexpr EnumSet(std::initializer_list<E> items) {
    for (E e : items) add(e);
  }
  constexpr void add(E e) { bits_ |= bit(e); }
  constexpr bool has(E e) const { return (bits_ & bit(e)) != 0; }
  constexpr bool operator==(const EnumSet&) const = default;

 private:
  static constexpr uint32_t bit(E e) { return uint32_t{1} << static_cast<unsigned>(e); }
  uint32_t bits_ = 0;
};
using ModeSet = EnumSet<Mode>;
using DomainSet = EnumSet<Domain>;

// Every mode of the backend list (backend/backends.h), its volatile ones
// (dram, pmem-volatile), and every persistence domain (pmem/domain.h).
inline constexpr ModeSet kEveryMode = [] {
  ModeSet s;
  for (const ModeInfo& i : kModeInfo) s.add(i.mode);
  return s;
}();
inline constexpr ModeSet kVolatileModes = [] {
  ModeSet s;
  for (const ModeInfo& i : kModeInfo) {
    if (!i.durable) s.add(i.mode);
  }
  return s;
}();
inline constexpr DomainSet kEveryDomain = [] {
  DomainSet s;
  for (Domain d : kAllDomains) s.add(d);
  return s;
}();

namespace detail {
struct KvVisit {
  void operator()(uint64_t, const char*) const {}
};
}  // namespace detail

template <class T>
concept KvTarget = requires(T& t, uint64_t k, char* out, const char* v) {
  { t.read(k, out) } -> std::same_as<bool>;
  { t.update(k, v) } -> std::same_as<bool>;
  { t.insert(k, v) } -> std::same_as<bool>;
  { t.remove(k) } -> std::same_as<bool>;
};
template <class T>
concept OrderedKvTarget = KvTarget<T> && requires(T& t, uint64_t k, uint32_t n) {
  { t.scan(k, n, detail::KvVisit{}) } -> std::same_as<uint32_t>;
};
template <class T>
concept SetTarget = requires(T& t, uint64_t k) {
  { t.insert(k) } -> std::same_as<bool>;
  { t.remove(k) } -> std::same_as<bool>;
  { t.contains(k) } -> std::same_as<bool>;
};
template <class T>
concept QueueTarget = requires(T& t, uint64_t id, uint64_t& out_id, const char* v, char* out) {
  { t.push(id, v) } -> std::same_as<bool>;
  { t.pop(out_id, out) } -> std::same_as<bool>;
};
template <class T>
concept StackTarget = requires(T& t, uint64_t id, uint64_t& out_id) {
  { t.push(id) } -> std::same_as<bool>;
  { t.pop(out_id) } -> std::same_as<bool>;
};

// Whether T implements operation set S's contract.
template <class T, OpSet S>
constexpr bool implements() {
  if constexpr (S == OpSet::kKv) return KvTarget<T>;
  if constexpr (S == OpSet::kOrderedKv) return OrderedKvTarget<T>;
  if constexpr (S == OpSet::kSet) return SetTarget<T>;
  if constexpr (S == OpSet::kQueue) return QueueTarget<T>;
  if constexpr (S == OpSet::kStack) return StackTarget<T>;
  return false;
}

// What one worker calls: the structure's handle for thread t (kInternal) or
// the structure itself (kExternal).
template <class DS>
decltype(auto) worker_target(DS& ds, int t) {
  if constexpr (DS::kSync == Sync::kInternal) {
    return ds.handle(t);
  } else {
    return (ds);
  }
}
template <class DS>
using TargetOf = std::remove_reference_t<decltype(worker_target(std::declval<DS&>(), 0))>;

// The structure's kTornModes, none when it declares none.
template <class DS>
constexpr ModeSet torn_modes() {
  if constexpr (requires { DS::kTornModes; }) {
    return DS::kTornModes;
  } else {
    return ModeSet{};
  }
}

// The structure's kTornValueModes, none when it declares none.
template <class DS>
constexpr ModeSet torn_value_modes() {
  if constexpr (requires { DS::kTornValueModes; }) {
    return DS::kTornValueModes;
  } else {
    return ModeSet{};
  }
}

// The structure's kKnobs, none when it declares none.
template <class DS>
constexpr std::span<const Knob* const> knobs_of() {
  if constexpr (requires { DS::kKnobs; }) {
    return DS::kKnobs;
  } else {
    return {};
  }
}

// The structure's kMetrics, none when it declares none.
template <class DS>
constexpr std::span<const Metric> metrics_of() {
  if constexpr (requires { DS::kMetrics; }) {
    return DS::kMetrics;
  } else {
    return {};
  }
}

struct DsOptions;

template <class DS>
concept Structure = requires(uint32_t value_size, const DsOptions& o) {
  { DS::kName } -> std::convertible_to<const char*>;
  { DS::kDescription } -> std::convertible_to<const char*>;
  { DS::kOpSet } -> std::convertible_to<OpSet>;
  { DS::kSync } -> std::convertible_to<Sync>;
  { DS::kModes } -> std::convertible_to<ModeSet>;
  { DS::kDomains } -> std::convertible_to<DomainSet>;
  { DS::kHarness } -> std::convertible_to<bool>;
  { DS::element_bytes(value_size) } -> std::convertible_to<uint64_t>;
  { DS::pool_bytes(o) } -> std::convertible_to<uint64_t>;
}
&&implements<TargetOf<DS>, DS::kOpSet>();

}  // namespace pmemids
