// Comma-separated option values (--ds btree,rbtree --mode dram,pmem-trans).
#pragma once

#include <string>
#include <vector>

#include "errors.h"

namespace pmemids {

// "a,b,c" -> {"a", "b", "c"}; an empty item stays an (empty) item, so the
// caller's name lookup reports it.
inline std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t comma; (comma = s.find(',', start)) != std::string::npos; start = comma + 1) {
    parts.push_back(s.substr(start, comma - start));
  }
  parts.push_back(s.substr(start));
  return parts;
}

// split_list, refusing an item listed twice (the same configuration would run
// twice, and with --keep-pool the second run would find the first's pool).
inline std::vector<std::string> split_distinct(const std::string& s, const std::string& flag) {
  std::vector<std::string> parts = split_list(s);
  for (size_t i = 0; i < parts.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (parts[i] == parts[j] && !parts[i].empty()) {
        throw UsageError(
            fmt::format("{} '{}': '{}' is listed twice; list each once", flag, s, parts[i]));
      }
    }
  }
  return parts;
}

}  // namespace pmemids
