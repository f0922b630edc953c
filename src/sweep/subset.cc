#include "sweep/subset.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <numeric>

#include "errors.h"

namespace pmemids::sweep {
namespace {

constexpr const char* kShardAccepted =
    "K/N with integers 0 <= K < N, e.g. --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT";
constexpr const char* kOnlyAccepted =
    "KEY=VALUE[,VALUE...] with KEY a sweep option or property, e.g. --only mode=dram,pmem-trans";

bool parse_size(std::string_view s, size_t& out) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return !s.empty() && ec == std::errc() && p == s.data() + s.size();
}

// The value of `key` in `c`: an option (either spelling) or a property.
const Value* value_of(const Configuration& c, const std::string& key) {
  std::string dashed = key;
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  if (const Value* v = c.option(dashed)) return v;
  return c.property(key);
}

bool value_matches(const std::string& key, const Value& v, const std::string& want) {
  if (value_text(v) == want) return true;
  if (key != "workload") return false;
  const std::string name = std::filesystem::path(want).filename().string();
  if (const auto* s = std::get_if<std::string>(&v)) {
    return std::filesystem::path(*s).filename().string() == name;
  }
  return false;
}

bool term_matches(const Configuration& c, const OnlyTerm& t) {
  const Value* v = value_of(c, t.key);
  return v != nullptr && std::any_of(t.values.begin(), t.values.end(), [&](const std::string& w) {
           return value_matches(t.key, *v, w);
         });
}

}  // namespace

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  Shard s;
  if (slash == std::string::npos || !parse_size(std::string_view(text).substr(0, slash), s.index) ||
      !parse_size(std::string_view(text).substr(slash + 1), s.count)) {
    throw UsageError(fmt::format("--shard '{}': not K/N; accepted: {}", text, kShardAccepted));
  }
  if (s.count == 0 || s.index >= s.count) {
    throw UsageError(fmt::format("--shard '{}': K must be below N and N at least 1; accepted: {}",
                                 text, kShardAccepted));
  }
  return s;
}

OnlyTerm parse_only(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw UsageError(fmt::format("--only '{}': not KEY=VALUE; accepted: {}", text, kOnlyAccepted));
  }
  OnlyTerm t{text.substr(0, eq), {}};
  std::string_view rest = std::string_view(text).substr(eq + 1);
  for (size_t comma; !rest.empty();) {
    comma = rest.find(',');
    const std::string_view part = rest.substr(0, comma);
    if (part.empty()) {
      throw UsageError(
          fmt::format("--only '{}': an empty value; accepted: {}", text, kOnlyAccepted));
    }
    t.values.emplace_back(part);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (comma != std::string_view::npos && rest.empty()) {
      throw UsageError(
          fmt::format("--only '{}': an empty value; accepted: {}", text, kOnlyAccepted));
    }
  }
  return t;
}

std::vector<Configuration> subset(const std::vector<Configuration>& configs, const Shard& shard,
                                  const std::vector<OnlyTerm>& only) {
  for (const auto& t : only) {
    const bool set = std::any_of(configs.begin(), configs.end(),
                                 [&](const Configuration& c) { return value_of(c, t.key); });
    if (!set) {
      throw UsageError(
          fmt::format("--only {}: no configuration of the sweep sets '{}'; accepted: "
                      "a key of the sweep file (option or property)",
                      t.key, t.key));
    }
    for (const auto& w : t.values) {
      const bool found = std::any_of(configs.begin(), configs.end(), [&](const Configuration& c) {
        const Value* v = value_of(c, t.key);
        return v != nullptr && value_matches(t.key, *v, w);
      });
      if (!found) {
        throw UsageError(fmt::format(
            "--only {}={}: no configuration of the sweep has {} = {}; accepted: values the sweep "
            "file gives (pmemids sweep FILE --dry-run lists them)",
            t.key, w, t.key, w));
      }
    }
  }
  std::vector<size_t> by_id(configs.size());
  std::iota(by_id.begin(), by_id.end(), 0);
  std::sort(by_id.begin(), by_id.end(),
            [&](size_t a, size_t b) { return configs[a].id < configs[b].id; });
  std::vector<bool> in_shard(configs.size(), false);
  for (size_t rank = shard.index; rank < by_id.size(); rank += shard.count) {
    in_shard[by_id[rank]] = true;
  }
  std::vector<Configuration> out;
  for (size_t i = 0; i < configs.size(); ++i) {
    if (in_shard[i] && std::all_of(only.begin(), only.end(), [&](const OnlyTerm& t) {
          return term_matches(configs[i], t);
        })) {
      out.push_back(configs[i]);
    }
  }
  return out;
}

}  // namespace pmemids::sweep
