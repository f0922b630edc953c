// Persistence domains: which stores survive a power failure.
//
//   adr   the memory controller's queues are persistent, the CPU caches are
//         not: a store is durable once its line is written back (flushed) and
//         a fence has ordered that write-back.
//   eadr  the caches are persistent too: a store is durable once it leaves the
//         store buffer (globally visible, i.e. ordered by a fence); flushes
//         are unnecessary.
//
// A run asks for adr, eadr or auto (the platform's own). eadr on a platform
// whose caches are not persistent is emulated: pmemids skips its flushes and
// keeps every fence, and the run is then not crash-safe on that machine; its
// label says so ("eadr-emulated").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pmemids {

enum class Domain : uint8_t { kAdr, kEadr };

std::string_view domain_name(Domain d);

// The domain a run measures.
struct DomainChoice {
  Domain domain = Domain::kAdr;
  bool emulated = false;  // eadr asked on a platform without persistent caches

  // "adr", "eadr" or "eadr-emulated": what records and tables show.
  std::string label() const;
  bool flushes() const { return domain == Domain::kAdr; }
};

// `requested` is "adr", "eadr" or "auto"; nullopt for anything else.
// `platform_eadr`: the pool's platform keeps caches persistent (libpmem2
// reports byte store granularity, or pmem_has_auto_flush() is 1).
std::optional<DomainChoice> choose_domain(std::string_view requested, bool platform_eadr);

}  // namespace pmemids
