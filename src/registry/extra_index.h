// register_index (include/pmemids/index.h): what PMEMIDS_REGISTER_INDEX does.
// Included first by the source CMake generates for PMEMIDS_EXTRA_DS, before
// the structures' headers; each registration runs during static
// initialisation, before main, and adds one entry to the registry (a name
// that is already taken is refused when the registry is first read).
//
// An index written against include/pmemids/index.h declares kName and
// kCanScan; ExtraIndex gives it the other traits the descriptor list reads
// (ds/traits.h): a key-value index (ordered when it can scan), serialised by
// its callers, in every mode, and (its fences kept under eADR, as every
// structure's) crash-tested under both persistence domains.
#pragma once

#include <string_view>
#include <type_traits>

#include "pmemids/index.h"
#include "registry/crash_entry.h"
#include "registry/entry.h"

namespace pmemids {

template <template <class> class DS>
struct ExtraIndex {
  template <class B>
  class type : public DS<B> {
    using Base = DS<B>;

   public:
    using Base::Base;
    static constexpr const char* kDescription = "";  // the entry carries register_index's
    static constexpr OpSet kOpSet = Base::kCanScan ? OpSet::kOrderedKv : OpSet::kKv;
    static constexpr Sync kSync = Sync::kExternal;
    static constexpr ModeSet kModes = kEveryMode;
    static constexpr DomainSet kDomains = kEveryDomain;
    static constexpr bool kHarness = false;
  };
};

template <template <class> class DS>
bool register_index(std::string_view description) {
  for_each_backend([](const auto& entry) {
    using E = std::remove_cvref_t<decltype(entry)>;
    static_assert(IndexOn<DS<typename E::type>, typename E::type>);
    if constexpr (!std::is_void_v<typename E::checking>) {
      static_assert(CrashTestable<DS<typename E::checking>>);
    }
  });
  DsEntry e = make_entry<ExtraIndex<DS>::template type>(crash_row<ExtraIndex<DS>::template type>());
  e.description = description;
  add_index(e);
  return true;
}

}  // namespace pmemids
