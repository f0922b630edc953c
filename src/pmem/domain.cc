#include "pmem/domain.h"

namespace pmemids {

std::string DomainChoice::label() const {
  std::string s(domain_name(domain));
  if (emulated) s += "-emulated";
  return s;
}

Domain platform_domain(bool platform_eadr) {
  for (const DomainInfo& d : kDomainTable) {
    if (d.emulatable == platform_eadr) return d.domain;
  }
  return kDomainTable[0].domain;
}

std::optional<DomainChoice> choose_domain(std::string_view requested, bool platform_eadr) {
  if (requested == "auto") return DomainChoice{platform_domain(platform_eadr), false};
  for (const DomainInfo& d : kDomainTable) {
    if (d.name == requested) return DomainChoice{d.domain, d.emulatable && !platform_eadr};
  }
  return std::nullopt;
}

std::vector<std::string> domain_choices() {
  std::vector<std::string> out;
  for (const DomainInfo& d : kDomainTable) out.emplace_back(d.name);
  out.emplace_back("auto");
  return out;
}

}  // namespace pmemids
