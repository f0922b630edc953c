// The backend list: one entry per persistence mode, in Mode's order, and the
// one place that says what a mode is. An entry holds
//
//   type          the benchmarked backend (its kMode is the mode; kDurable:
//                 what it writes survives the process, so it reopens pools
//                 and `pmemids crash` tests it; RepairsLeaks,
//                 include/pmemids/backend.h: recovery frees what a crash
//                 leaked, so only a leak left after repair is a violation)
//   checking      the checking ("shadow") backend `pmemids crash` runs in its
//                 place (backend/shadow.h): durable modes only, void elsewhere
//   name          --mode's spelling, and the records'
//   default_lock  the concurrent mode's lock when --lock is not given (the
//                 paper's placement, run/locks.h)
//   min_pool_bytes  the smallest pool file it creates; 0: it opens none
//   lib_flushes   when libpmemobj writes lines back on its own, out of sight
//                 of pmemids' flush counters (run/result.cc)
//
// and everything per mode derives from it: mode_name, find_mode, durable(),
// kAllModes and the durable modes; the registry's run, size and crash
// functions of every structure in every mode (registry/entry.h,
// registry/crash_entry.h), ds/traits.h's kEveryMode and kVolatileModes, the
// lock placements, `list`, `completion` and the crash command's modes. A new
// mode is its value in Mode (include/pmemids/backend.h), its backend, and its
// entry here. The list is a compile-time tuple: a run still dispatches once,
// through the registry's per-mode function pointers.
#pragma once

#include <libpmemobj.h>
#include <memkind.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "backend/lock_kind.h"
#include "backend/obj.h"
#include "backend/plain.h"
#include "backend/shadow.h"
#include "util/names.h"

namespace pmemids {

// When libpmemobj writes back lines on its own (its undo log, commits, new
// objects, allocator metadata): never, when a phase allocates or frees, or in
// every phase.
enum class LibFlushes : uint8_t { kNever, kOnAllocation, kAlways };

template <class B, class Checking = void>
struct BackendEntry {
  using type = B;
  using checking = Checking;
  static_assert(B::kDurable == !std::is_void_v<Checking>,
                "a durable mode has a checking backend, a volatile one none");

  std::string_view name;
  LockKind default_lock;
  uint64_t min_pool_bytes;
  LibFlushes lib_flushes;
};

inline constexpr std::tuple kBackendList{
    BackendEntry<DramBackend>{.name = "dram",
                              .default_lock = LockKind::kPthreadDram,
                              .min_pool_bytes = 0,
                              .lib_flushes = LibFlushes::kNever},
    BackendEntry<VolatileBackend>{.name = "pmem-volatile",
                                  .default_lock = LockKind::kPthreadDram,
                                  .min_pool_bytes = MEMKIND_PMEM_MIN_SIZE,
                                  .lib_flushes = LibFlushes::kNever},
    BackendEntry<PersistBackend, ShadowPersistBackend>{.name = "pmem-persist",
                                                       .default_lock = LockKind::kPmemobj,
                                                       .min_pool_bytes = PMEMOBJ_MIN_POOL,
                                                       .lib_flushes = LibFlushes::kOnAllocation},
    BackendEntry<TransBackend, ShadowTransBackend>{.name = "pmem-trans",
                                                   .default_lock = LockKind::kPmemobj,
                                                   .min_pool_bytes = PMEMOBJ_MIN_POOL,
                                                   .lib_flushes = LibFlushes::kAlways},
};

inline constexpr size_t kModeCount = std::tuple_size_v<decltype(kBackendList)>;

// Calls f(entry) for every entry, in the list's order (at compile time when
// f allows it); f reads the entry's types as
// std::remove_cvref_t<decltype(entry)>::type and ::checking.
template <class F>
constexpr void for_each_backend(F&& f) {
  std::apply([&](const auto&... e) { (f(e), ...); }, kBackendList);
}

// An entry's data, for code that has a Mode rather than a type.
struct ModeInfo {
  Mode mode;
  std::string_view name;
  bool durable;
  bool repairs_leaks;
  LockKind default_lock;
  uint64_t min_pool_bytes;
  LibFlushes lib_flushes;

  constexpr bool opens_pool() const { return min_pool_bytes != 0; }
};

inline constexpr std::array<ModeInfo, kModeCount> kModeInfo = std::apply(
    [](const auto&... e) {
      return std::array<ModeInfo, kModeCount>{
          ModeInfo{std::remove_cvref_t<decltype(e)>::type::kMode, e.name,
                   std::remove_cvref_t<decltype(e)>::type::kDurable,
                   RepairsLeaks<typename std::remove_cvref_t<decltype(e)>::type>, e.default_lock,
                   e.min_pool_bytes, e.lib_flushes}...};
    },
    kBackendList);

// Arrays indexed by Mode (the registry's per-mode functions) rely on the list
// being in Mode's order.
static_assert([] {
  for (size_t i = 0; i < kModeCount; ++i) {
    if (static_cast<size_t>(kModeInfo[i].mode) != i) return false;
  }
  return true;
}());

constexpr const ModeInfo& mode_info(Mode m) { return kModeInfo[static_cast<size_t>(m)]; }
constexpr bool durable(Mode m) { return mode_info(m).durable; }

inline constexpr std::array<Mode, kModeCount> kAllModes = [] {
  std::array<Mode, kModeCount> out{};
  for (size_t i = 0; i < kModeCount; ++i) out[i] = kModeInfo[i].mode;
  return out;
}();

// The durable modes (those `pmemids crash` tests), in the list's order.
std::vector<Mode> durable_modes();

// The mode named `name`, or nullopt.
std::optional<Mode> mode_named(std::string_view name);
// UsageError naming the accepted names when `name` is no mode.
Mode find_mode(std::string_view name);

// The names of the modes `keep` accepts, joined by `separator` ("pmem-persist,
// pmem-trans"), for messages and help texts.
template <class Keep>
std::string mode_names(Keep&& keep, std::string_view separator = ", ") {
  return names_where(kModeInfo, std::forward<Keep>(keep), separator);
}

// The checking backend `pmemids crash` runs for the benchmarked backend B, and
// the benchmarked backend a checking backend stands for (used to reopen
// images; any other backend stands for itself).
namespace backends_detail {
template <class E>
using TypeOf = typename E::type;
template <class E>
using CheckingOf = typename E::checking;
// To<E> of the first entry E whose From<E> is T, else Default.
template <class T, template <class> class From, template <class> class To, class Default,
          class... E>
struct Match {
  using type = Default;
};
template <class T, template <class> class From, template <class> class To, class Default, class E,
          class... R>
struct Match<T, From, To, Default, E, R...> {
  using type = std::conditional_t<std::is_same_v<T, From<E>>, To<E>,
                                  typename Match<T, From, To, Default, R...>::type>;
};
template <class T, template <class> class From, template <class> class To, class Default,
          class List = std::remove_cvref_t<decltype(kBackendList)>>
struct InList;
template <class T, template <class> class From, template <class> class To, class Default,
          class... E>
struct InList<T, From, To, Default, std::tuple<E...>> : Match<T, From, To, Default, E...> {};
}  // namespace backends_detail

template <class B>
struct ShadowOf {
  using type = typename backends_detail::InList<B, backends_detail::TypeOf,
                                                backends_detail::CheckingOf, void>::type;
  static_assert(!std::is_void_v<type>, "no checking backend: not a durable backend of the list");
};
template <class C>
struct PlainOf {
  using type = typename backends_detail::InList<C, backends_detail::CheckingOf,
                                                backends_detail::TypeOf, C>::type;
};

}  // namespace pmemids
