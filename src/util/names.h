// The names of a table's entries (anything with a `name` member) that `keep`
// accepts, in the table's order, joined by `separator`: what messages and
// help texts list as accepted ("adr, eadr"; "pmem-persist or pmem-trans").
#pragma once

#include <fmt/format.h>

#include <ranges>
#include <string>
#include <string_view>
#include <utility>

namespace pmemids {

template <class Table, class Keep>
std::string names_where(const Table& table, Keep&& keep, std::string_view separator) {
  auto names = table | std::views::filter(std::forward<Keep>(keep)) |
               std::views::transform([](const auto& entry) { return entry.name; });
  return fmt::format("{}", fmt::join(names, separator));
}

}  // namespace pmemids
