#include "pmem/domain.h"

namespace pmemids {

std::string_view domain_name(Domain d) { return d == Domain::kEadr ? "eadr" : "adr"; }

std::string DomainChoice::label() const {
  std::string s(domain_name(domain));
  if (emulated) s += "-emulated";
  return s;
}

std::optional<DomainChoice> choose_domain(std::string_view requested, bool platform_eadr) {
  if (requested == "adr") return DomainChoice{Domain::kAdr, false};
  if (requested == "eadr") return DomainChoice{Domain::kEadr, !platform_eadr};
  if (requested == "auto") {
    return DomainChoice{platform_eadr ? Domain::kEadr : Domain::kAdr, false};
  }
  return std::nullopt;
}

}  // namespace pmemids
