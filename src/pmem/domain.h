// Persistence domains: which stores survive a power failure, one row each in
// kDomainTable (the one place that says what a domain is; option parsing,
// ds/traits.h, the crash model of backend/shadow.h, `list` and `doctor` read
// it):
//
//   adr   the memory controller's queues are persistent, the CPU caches are
//         not: a store is durable once its line is written back (flushed) and
//         a fence has ordered that write-back.
//   eadr  the caches are persistent too: a store is durable once it leaves the
//         store buffer (globally visible, i.e. ordered by a fence); flushes
//         are unnecessary.
//
// A run asks for a domain by name, or auto (the platform's own). A domain
// that needs persistent caches (emulatable) asked on a platform whose caches
// are not persistent is emulated: pmemids skips its flushes and keeps every
// fence, and the run is then not crash-safe on that machine; its label says so
// ("eadr-emulated").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/names.h"

namespace pmemids {

enum class Domain : uint8_t { kAdr, kEadr };

// What a power failure loses under a domain: the model `pmemids crash
// --model power` follows (its checking backend, backend/shadow.h).
struct PowerFailure {
  // A store can be lost until its line is written back and a fence orders
  // the write-back (the line returns to its durable bytes). Otherwise every
  // store executed before the failure survives, but with store-buffer loss
  // (crash --store-buffer-loss) a suffix of those since the last fence.
  bool unflushed_lines_lost;
};

struct DomainInfo {
  Domain domain;
  std::string_view name;   // --domain's spelling, and the records'
  std::string_view title;  // in messages ("eADR is EMULATED")
  bool flushes;            // pmemids (and libpmemobj) write lines back under it
  // It needs persistent caches: asked on a platform without them it runs
  // emulated, and on a platform with them `--domain auto` picks it.
  bool emulatable;
  PowerFailure crash_model;
};

inline constexpr DomainInfo kDomainTable[] = {
    {.domain = Domain::kAdr,
     .name = "adr",
     .title = "ADR",
     .flushes = true,
     .emulatable = false,
     .crash_model = {.unflushed_lines_lost = true}},
    {.domain = Domain::kEadr,
     .name = "eadr",
     .title = "eADR",
     .flushes = false,
     .emulatable = true,
     .crash_model = {.unflushed_lines_lost = false}},
};
inline constexpr size_t kDomainCount = std::size(kDomainTable);

// The table is in Domain's order.
static_assert([] {
  for (size_t i = 0; i < kDomainCount; ++i) {
    if (static_cast<size_t>(kDomainTable[i].domain) != i) return false;
  }
  return true;
}());

constexpr const DomainInfo& domain_info(Domain d) { return kDomainTable[static_cast<size_t>(d)]; }
constexpr std::string_view domain_name(Domain d) { return domain_info(d).name; }

inline constexpr std::array<Domain, kDomainCount> kAllDomains = [] {
  std::array<Domain, kDomainCount> out{};
  for (size_t i = 0; i < kDomainCount; ++i) out[i] = kDomainTable[i].domain;
  return out;
}();

// The domain a run measures.
struct DomainChoice {
  Domain domain = Domain::kAdr;
  bool emulated = false;  // asked on a platform without persistent caches

  // "adr", "eadr" or "eadr-emulated": what records and tables show.
  std::string label() const;
  bool flushes() const { return domain_info(domain).flushes; }
};

// The platform's own domain: the first emulatable one of the table when its
// caches are persistent (`platform_eadr`: libpmem2 reports byte store
// granularity, or pmem_has_auto_flush() is 1), else the first other one.
Domain platform_domain(bool platform_eadr);

// `requested` is a domain's name or "auto" (the platform's); nullopt for
// anything else.
std::optional<DomainChoice> choose_domain(std::string_view requested, bool platform_eadr);

// The names choose_domain accepts: every domain's, then "auto".
std::vector<std::string> domain_choices();

// The names of the domains `keep` accepts (a DomainInfo), joined by
// `separator` ("adr, eadr"), for messages and help texts.
template <class Keep>
std::string domain_names(Keep&& keep, std::string_view separator = ", ") {
  return names_where(kDomainTable, std::forward<Keep>(keep), separator);
}

}  // namespace pmemids
