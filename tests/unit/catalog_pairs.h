// Typed-test lists derived from the catalog (ds/catalog.h) and the backend
// list (backend/backends.h). A suite states which traits it applies to,
// never which structures or backends: a structure added to the catalog is
// instantiated in every suite its traits select, with no edit to the tests.
//
//   CatalogPairs<Keep>      Pair<DS, B> (test_support.h) for every structure
//                           DS of the catalog and every backend B of a mode DS
//                           supports (its kModes) for which
//                           Keep(PairTraits) is true; catalog order, then the
//                           backend list's
//   BackendPairs<DS, Keep>  the same for one structure template: a test-only
//                           fixture (durable_fixtures.h) or a structure's own
//                           suite
//   Backends<Keep>          the benchmarked backend types whose ModeInfo Keep
//                           accepts, in the list's order
//   CheckingBackends        the checking backends of the durable modes
//   Join<Types...>          one ::testing::Types of several
//
// Keep is a constexpr function (a named one in headers, so every unit sees
// the same list). Test names stay `<suite>/<ds>_<mode>` (PairName), whatever
// the order.
#pragma once

#include <gtest/gtest.h>

#include <span>
#include <tuple>
#include <type_traits>

#include "backend/backends.h"
#include "ds/catalog.h"
#include "test_support.h"

namespace pmemids::test {

// What a filter sees of one (structure, backend) pair: the structure's traits
// (ds/traits.h) and the backend's entry (backend/backends.h).
struct PairTraits {
  OpSet op_set;
  Sync sync;
  ModeSet modes;  // every mode the structure supports
  DomainSet domains;
  bool harness;
  std::span<const Knob* const> knobs;
  ModeInfo mode;  // the pair's mode

  // Whether the structure lists knob k in its kKnobs.
  constexpr bool reads(const Knob& k) const {
    for (const Knob* x : knobs) {
      if (x == &k) return true;
    }
    return false;
  }

  constexpr bool kv() const { return op_set == OpSet::kKv || op_set == OpSet::kOrderedKv; }
  constexpr bool durable() const { return mode.durable; }
  // Whether the pair's mode is the structure's first mode (in the backend
  // list's order), or its first durable one.
  constexpr bool first_mode() const {
    return mode.mode == first([](const ModeInfo&) { return true; });
  }
  constexpr bool first_durable_mode() const {
    return mode.mode == first([](const ModeInfo& i) { return i.durable; });
  }
  // One mode per structure, for suites that test what the structure does
  // whatever its mode: its first durable mode, else its first mode.
  constexpr bool representative_mode() const {
    return first_durable_mode() || (!has_durable_mode() && first_mode());
  }
  constexpr bool has_durable_mode() const {
    for (const ModeInfo& i : kModeInfo) {
      if (i.durable && modes.has(i.mode)) return true;
    }
    return false;
  }

 private:
  template <class F>
  constexpr Mode first(F&& f) const {
    for (const ModeInfo& i : kModeInfo) {
      if (modes.has(i.mode) && f(i)) return i.mode;
    }
    return static_cast<Mode>(kModeCount);  // none: matches no mode
  }
};

// The traits do not depend on the backend: read them over DRAM, as the
// registry does.
template <template <class> class DS>
using Traits = DS<DramBackend>;

template <template <class> class DS, class B>
constexpr PairTraits pair_traits() {
  using D = Traits<DS>;
  return PairTraits{.op_set = D::kOpSet,
                    .sync = D::kSync,
                    .modes = D::kModes,
                    .domains = D::kDomains,
                    .harness = D::kHarness,
                    .knobs = knobs_of<D>(),
                    .mode = mode_info(B::kMode)};
}

// The filters the kv suites share.
constexpr bool kv_pair(const PairTraits& p) { return p.kv() && !p.harness; }
constexpr bool durable_kv_pair(const PairTraits& p) { return kv_pair(p) && p.durable(); }
constexpr bool volatile_kv_pair(const PairTraits& p) { return kv_pair(p) && !p.durable(); }
constexpr bool ordered_pair(const PairTraits& p) {
  return p.op_set == OpSet::kOrderedKv && !p.harness;
}
constexpr bool durable_ordered_pair(const PairTraits& p) { return ordered_pair(p) && p.durable(); }
constexpr bool any_pair(const PairTraits&) { return true; }
constexpr bool durable_pair(const PairTraits& p) { return p.durable(); }
constexpr bool first_mode_pair(const PairTraits& p) { return p.first_mode(); }
constexpr bool any_mode(const ModeInfo&) { return true; }
constexpr bool durable_mode(const ModeInfo& i) { return i.durable; }

namespace catalog_detail {

template <class... L>
struct Join;
template <>
struct Join<> {
  using type = ::testing::Types<>;
};
template <class... A>
struct Join<::testing::Types<A...>> {
  using type = ::testing::Types<A...>;
};
template <class... A, class... B, class... R>
struct Join<::testing::Types<A...>, ::testing::Types<B...>, R...>
    : Join<::testing::Types<A..., B...>, R...> {};

template <bool keep, class T>
using Maybe = std::conditional_t<keep, ::testing::Types<T>, ::testing::Types<>>;

template <auto Keep, template <class> class DS, class B>
constexpr bool selects() {
  return Traits<DS>::kModes.has(B::kMode) && Keep(pair_traits<DS, B>());
}

template <auto Keep, template <class> class DS, class Entries>
struct PairsOf;
template <auto Keep, template <class> class DS, class... E>
struct PairsOf<Keep, DS, std::tuple<E...>> {
  using type = typename Join<
      Maybe<selects<Keep, DS, typename E::type>(), Pair<DS, typename E::type>>...>::type;
};

template <auto Keep, class List>
struct CatalogPairsOf;
template <auto Keep, template <class> class... DS>
struct CatalogPairsOf<Keep, StructureList<DS...>> {
  using type = typename Join<
      typename PairsOf<Keep, DS, std::remove_cvref_t<decltype(kBackendList)>>::type...>::type;
};

template <auto Keep, class Entries>
struct BackendsOf;
template <auto Keep, class... E>
struct BackendsOf<Keep, std::tuple<E...>> {
  using type = typename Join<Maybe<Keep(mode_info(E::type::kMode)), typename E::type>...>::type;
};

template <class Entries>
struct CheckingOf;
template <class... E>
struct CheckingOf<std::tuple<E...>> {
  using type =
      typename Join<Maybe<!std::is_void_v<typename E::checking>, typename E::checking>...>::type;
};

}  // namespace catalog_detail

template <class... Types>
using Join = typename catalog_detail::Join<Types...>::type;

template <auto Keep>
using CatalogPairs = typename catalog_detail::CatalogPairsOf<Keep, Catalog>::type;

template <template <class> class DS, auto Keep = any_pair>
using BackendPairs =
    typename catalog_detail::PairsOf<Keep, DS, std::remove_cvref_t<decltype(kBackendList)>>::type;

template <auto Keep = any_mode>
using Backends =
    typename catalog_detail::BackendsOf<Keep, std::remove_cvref_t<decltype(kBackendList)>>::type;

using CheckingBackends =
    typename catalog_detail::CheckingOf<std::remove_cvref_t<decltype(kBackendList)>>::type;

// The kv suites' lists.
using KvPairs = CatalogPairs<kv_pair>;
using DurableKvPairs = CatalogPairs<durable_kv_pair>;
using VolatileKvPairs = CatalogPairs<volatile_kv_pair>;
using OrderedPairs = CatalogPairs<ordered_pair>;
using DurableOrderedPairs = CatalogPairs<durable_ordered_pair>;

}  // namespace pmemids::test
