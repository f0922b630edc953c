// Comma-separated option values (--ds btree,rbtree --mode dram,pmem-trans).
#pragma once

#include <string>
#include <vector>

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

}  // namespace pmemids
