// The names of a table's entries (anything with a `name` member) that `keep`
// accepts, in the table's order, joined by `separator`: what messages and
// help texts list as accepted ("adr, eadr"; "pmem-persist or pmem-trans").
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

namespace pmemids {

// (A vector, not std::views::filter: the fuzz build's clang 14 cannot compile
// libstdc++ 12's ranges.)
template <class Table, class Keep>
std::string names_where(const Table& table, Keep&& keep, std::string_view separator) {
  std::vector<std::string_view> names;
  for (const auto& entry : table) {
    if (keep(entry)) names.emplace_back(entry.name);
  }
  return fmt::format("{}", fmt::join(names, separator));
}

}  // namespace pmemids
