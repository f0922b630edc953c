#include "counters/cache_geometry.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <filesystem>
#include <fstream>

namespace pmemids {
namespace {

namespace fs = std::filesystem;

std::string read_word(const fs::path& p) {
  std::ifstream in(p);
  std::string w;
  in >> w;
  return w;
}

// sysfs sizes read "32K", "1024K", "32768K".
uint64_t parse_size(const std::string& s) {
  uint64_t v = 0;
  size_t i = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) v = v * 10 + (s[i] - '0');
  if (i < s.size() && s[i] == 'K') v <<= 10;
  if (i < s.size() && s[i] == 'M') v <<= 20;
  return v;
}

uint32_t parse_u32(const std::string& s) {
  uint32_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return 0;
    v = v * 10 + static_cast<uint32_t>(c - '0');
  }
  return v;
}

std::string size_text(uint64_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  if (bytes >= (1u << 10) && bytes % (1u << 10) == 0) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} B", bytes);
}

}  // namespace

std::string CacheLevel::option() const { return fmt::format("{},{},{}", size, assoc, line); }

std::string CacheLevel::text() const {
  return fmt::format("{}, {}-way, {} B lines", size_text(size), assoc, line);
}

CacheLevel valgrind_geometry(const CacheLevel& c, std::string& note) {
  note.clear();
  CacheLevel v = c;
  const uint64_t sets = c.size / (uint64_t{c.assoc} * c.line);
  if (sets > 0 && std::has_single_bit(sets) && c.size % (uint64_t{c.assoc} * c.line) == 0) {
    return v;
  }
  const uint64_t pow2 = std::bit_floor(sets == 0 ? 1 : sets);
  if (c.size % (pow2 * c.line) == 0) {
    v.assoc = static_cast<uint32_t>(c.size / (pow2 * c.line));
  } else {
    v.size = pow2 * c.assoc * c.line;
  }
  note = fmt::format("{} has {} sets, not a power of two as valgrind needs: simulated as {}",
                     c.text(), sets, v.text());
  return v;
}

std::optional<SimCaches> sim_caches(const std::string& cache_dir) {
  std::optional<CacheLevel> i1, d1, ll;
  int ll_level = 0;
  std::string levels;
  std::error_code ec;
  std::vector<fs::path> entries;
  for (fs::directory_iterator it(cache_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().rfind("index", 0) == 0) entries.push_back(it->path());
  }
  std::sort(entries.begin(), entries.end());
  for (const fs::path& p : entries) {
    const int level = static_cast<int>(parse_u32(read_word(p / "level")));
    const std::string type = read_word(p / "type");
    const CacheLevel c{parse_size(read_word(p / "size")),
                       parse_u32(read_word(p / "ways_of_associativity")),
                       parse_u32(read_word(p / "coherency_line_size"))};
    if (level == 0 || c.size == 0 || c.assoc == 0 || c.line == 0) continue;
    const std::string kind = type == "Data" ? "d" : type == "Instruction" ? "i" : "";
    if (!levels.empty()) levels += ", ";
    levels += fmt::format("L{}{} {}", level, kind, c.text());
    if (level == 1 && type == "Data") d1 = c;
    if (level == 1 && type == "Instruction") i1 = c;
    if (type == "Unified" && level > ll_level) {
      ll = c;
      ll_level = level;
    }
  }
  if (!i1 || !d1 || !ll) return std::nullopt;
  SimCaches s;
  s.machine_i1 = *i1;
  s.machine_d1 = *d1;
  s.machine_ll = *ll;
  s.machine_levels = levels;
  std::string note;
  for (auto [from, to] : {std::pair{&s.machine_i1, &s.i1}, std::pair{&s.machine_d1, &s.d1},
                          std::pair{&s.machine_ll, &s.ll}}) {
    *to = valgrind_geometry(*from, note);
    if (!note.empty()) s.notes.push_back(note);
  }
  return s;
}

}  // namespace pmemids
