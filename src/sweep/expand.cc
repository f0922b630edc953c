#include "sweep/expand.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <unordered_map>

#include "errors.h"
#include "util/fnv1a.h"

namespace pmemids::sweep {
namespace {

constexpr const char* kRangeAccepted =
    "\"a:b\" (a, a+1, ..., b), \"a:s:b\" (a, a+s, ..., step s > 0), \"a:*f:b\" (a, a*f, ..., "
    "factor f > 1, a > 0); integers with a <= b";

constexpr const char* kDecimalRangeAccepted =
    "\"a:b\" (a, a+1, ..., b), \"a:s:b\" (a, a+s, ..., step s > 0), \"a:*f:b\" (a, a*f, ..., "
    "factor f > 1, a > 0); numbers with a <= b";

[[noreturn]] void bad_range(const std::string& text, const std::string& what,
                            const char* accepted = kRangeAccepted) {
  throw UsageError(fmt::format("'{}': {}; accepted: {}", text, what, accepted));
}

int64_t range_int(const std::string& text, std::string_view part, const char* name) {
  int64_t v = 0;
  const auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
  if (part.empty() || ec != std::errc() || p != part.data() + part.size()) {
    bad_range(text, fmt::format("{} '{}' is not an integer", name, part));
  }
  return v;
}

void append_args(const std::string& key, const Value& v, std::vector<std::string>& args) {
  if (const auto* b = std::get_if<bool>(&v)) {
    if (*b) args.push_back("--" + key);
  } else if (const auto* files = std::get_if<std::vector<std::string>>(&v)) {
    for (const auto& f : *files) {
      args.push_back("--" + key);
      args.push_back(f);
    }
  } else {
    args.push_back("--" + key);
    args.push_back(value_text(v));
  }
}

std::vector<std::string> canonical_args(const KeyValues& options, const KeyValues& properties) {
  std::vector<std::string> args;
  for (const auto& [k, v] : options) append_args(k, v, args);
  for (const auto& [k, v] : properties) {
    args.push_back("-p");
    args.push_back(k + "=" + value_text(v));
  }
  return args;
}

const Value* lookup(const KeyValues& kv, const std::string& key) {
  for (const auto& [k, v] : kv) {
    if (k == key) return &v;
  }
  return nullptr;
}

bool matches(const Exclude& ex, const Configuration& c) {
  for (const auto& term : ex) {
    const Value* v = term.property ? c.property(term.key) : c.option(term.key);
    if (v == nullptr) return false;
    const std::string text = value_text(*v);
    if (std::none_of(term.any_of.begin(), term.any_of.end(),
                     [&](const Value& a) { return value_text(a) == text; })) {
      return false;
    }
  }
  return true;
}

std::string display(const std::string& key, const Value& v) {
  // Workload files by file name: paths are long and the name is what a run records.
  if (const auto* s = std::get_if<std::string>(&v)) {
    return key == "workload" ? std::filesystem::path(*s).filename().string() : *s;
  }
  if (const auto* files = std::get_if<std::vector<std::string>>(&v)) {
    std::string out;
    for (const auto& f : *files) {
      if (!out.empty()) out += '+';
      out += std::filesystem::path(f).filename().string();
    }
    return out;
  }
  return value_text(v);
}

// What the id hashes: the arguments, after the command words when the command
// is not `run` (so run configurations keep their ids).
std::vector<std::string> command_args(const SweepSpec& spec, const std::vector<std::string>& args) {
  if (spec.command == std::vector<std::string>{"run"}) return args;
  std::vector<std::string> out = spec.command;
  out.insert(out.end(), args.begin(), args.end());
  return out;
}

}  // namespace

bool is_range(const std::string& text) { return text.find(':') != std::string::npos; }

std::vector<int64_t> parse_range(const std::string& text) {
  std::vector<std::string_view> parts;
  std::string_view rest(text);
  for (size_t colon; (colon = rest.find(':')) != std::string_view::npos;) {
    parts.push_back(rest.substr(0, colon));
    rest.remove_prefix(colon + 1);
  }
  parts.push_back(rest);
  if (parts.size() != 2 && parts.size() != 3) bad_range(text, "expected 2 or 3 parts");
  const int64_t a = range_int(text, parts.front(), "start");
  const int64_t b = range_int(text, parts.back(), "end");
  if (a > b) bad_range(text, fmt::format("start {} is greater than end {}", a, b));
  bool multiply = false;
  int64_t step = 1;
  if (parts.size() == 3) {
    std::string_view s = parts[1];
    multiply = !s.empty() && s.front() == '*';
    if (multiply) s.remove_prefix(1);
    step = range_int(text, s, multiply ? "factor" : "step");
    if (multiply && step <= 1)
      bad_range(text, fmt::format("factor {} is not greater than 1", step));
    if (multiply && a <= 0) bad_range(text, fmt::format("start {} is not positive", a));
    if (!multiply && step <= 0) bad_range(text, fmt::format("step {} is not positive", step));
  }
  std::vector<int64_t> out;
  for (int64_t v = a;;) {
    out.push_back(v);
    if (out.size() > kMaxConfigurations) bad_range(text, "too many values");
    int64_t next = 0;
    const bool overflow =
        multiply ? __builtin_mul_overflow(v, step, &next) : __builtin_add_overflow(v, step, &next);
    if (overflow || next > b) break;
    v = next;
  }
  return out;
}

std::vector<double> parse_decimal_range(const std::string& text) {
  const auto bad = [&text](const std::string& what) {
    bad_range(text, what, kDecimalRangeAccepted);
  };
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t colon = text.find(':', start);
    parts.push_back(text.substr(start, colon == std::string::npos ? colon : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (parts.size() != 2 && parts.size() != 3) bad("expected 2 or 3 parts");
  const auto number = [&bad](std::string part, const char* name) {
    char* end = nullptr;
    const double v = part.empty() ? 0 : std::strtod(part.c_str(), &end);
    if (part.empty() || end != part.c_str() + part.size() || !std::isfinite(v)) {
      bad(fmt::format("{} '{}' is not a number", name, part));
    }
    return v;
  };
  const double a = number(parts.front(), "start");
  const double b = number(parts.back(), "end");
  if (a > b) bad(fmt::format("start {} is greater than end {}", a, b));
  const bool multiply = parts.size() == 3 && parts[1].starts_with('*');
  const double step = parts.size() == 3 ? number(multiply ? parts[1].substr(1) : parts[1],
                                                 multiply ? "factor" : "step")
                                        : 1.0;
  if (multiply && step <= 1) bad(fmt::format("factor {} is not greater than 1", step));
  if (multiply && a <= 0) bad(fmt::format("start {} is not positive", a));
  if (!multiply && step <= 0) bad(fmt::format("step {} is not positive", step));
  const auto round12 = [](double v) { return std::stod(fmt::format("{:.12g}", v)); };
  const double slack = 1e-9 * std::max(1.0, std::fabs(b));
  std::vector<double> out;
  for (uint64_t i = 0;; ++i) {
    const double v = round12(multiply ? a * std::pow(step, static_cast<double>(i))
                                      : a + static_cast<double>(i) * step);
    if (v > b + slack) break;
    out.push_back(std::min(v, b));
    if (out.size() > kMaxConfigurations) bad("too many values");
  }
  return out;
}

const Value* Configuration::option(const std::string& key) const { return lookup(options, key); }
const Value* Configuration::property(const std::string& key) const {
  return lookup(properties, key);
}

std::string config_id(const std::vector<std::string>& canonical_args) {
  uint64_t h = kFnv1aOffset;  // the arguments, '\0' between them
  for (size_t i = 0; i < canonical_args.size(); ++i) {
    if (i > 0) h = fnv1a64_bytes(std::string_view("\0", 1), h);
    h = fnv1a64_bytes(canonical_args[i], h);
  }
  return fmt::format("{:016x}", h);
}

std::vector<Configuration> expand(const SweepSpec& spec) {
  std::vector<Configuration> out;
  expand_each(spec, [&out](Configuration&& c) { out.push_back(std::move(c)); });
  return out;
}

void expand_each(const SweepSpec& spec, const std::function<void(Configuration&&)>& each,
                 bool complete) {
  std::vector<const Entry*> entries;
  for (const auto& e : spec.options) entries.push_back(&e);
  for (const auto& e : spec.properties) entries.push_back(&e);
  const size_t n_options = spec.options.size();

  uint64_t product = 1;
  for (const Entry* e : entries) {
    if (product > kMaxConfigurations / e->values.size()) {
      throw UsageError(
          fmt::format("{}: matrix: more than {} configurations; accepted: fewer values", spec.file,
                      kMaxConfigurations));
    }
    product *= e->values.size();
  }
  std::vector<std::string> swept;
  for (const Entry* e : entries) {
    if (e->values.size() > 1) swept.push_back(e->key);
  }

  size_t index = 0;
  std::unordered_map<std::string, size_t> ids;
  std::vector<size_t> at(entries.size(), 0);  // odometer: the last entry turns fastest
  for (uint64_t n = 0; n < product; ++n) {
    Configuration c;
    for (size_t i = 0; i < entries.size(); ++i) {
      auto& dest = i < n_options ? c.options : c.properties;
      dest.emplace_back(entries[i]->key, entries[i]->values[at[i]]);
    }
    auto by_key = [](const auto& x, const auto& y) { return x.first < y.first; };
    if (complete) {
      std::sort(c.options.begin(), c.options.end(), by_key);
      std::sort(c.properties.begin(), c.properties.end(), by_key);
    }
    for (size_t i = entries.size(); i-- > 0;) {
      if (++at[i] < entries[i]->values.size()) break;
      at[i] = 0;
    }
    if (std::any_of(spec.excludes.begin(), spec.excludes.end(),
                    [&](const Exclude& ex) { return matches(ex, c); })) {
      continue;
    }
    c.index = index++;
    if (!complete) {
      each(std::move(c));
      continue;
    }
    c.swept = swept;
    c.args = canonical_args(c.options, c.properties);
    c.id = config_id(command_args(spec, c.args));
    if (auto [it, fresh] = ids.emplace(c.id, c.index); !fresh) {
      throw UsageError(
          fmt::format("{}: configurations {} and {} are the same ({}); accepted: "
                      "distinct values",
                      spec.file, it->second + 1, c.index + 1, shell_join(c.args)));
    }
    each(std::move(c));
  }
}

std::vector<std::string> run_args(const Configuration& c, const SweepSpec& spec,
                                  const std::string& pool_dir) {
  KeyValues options = c.options;
  for (auto& [k, v] : options) {
    if (k != "workload") continue;
    auto resolve = [&spec](const std::string& f) {
      auto it = spec.workload_paths.find(f);
      return it == spec.workload_paths.end() ? f : it->second;
    };
    if (auto* s = std::get_if<std::string>(&v)) *s = resolve(*s);
    if (auto* files = std::get_if<std::vector<std::string>>(&v)) {
      for (auto& f : *files) f = resolve(f);
    }
  }
  if (!pool_dir.empty()) {
    std::erase_if(options, [](const auto& kv) { return kv.first == "pool-dir"; });
    options.emplace_back("pool-dir", pool_dir);  // last, as an addition to the canonical list
  }
  return canonical_args(options, c.properties);
}

std::string short_text(const Configuration& c) {
  std::string out;
  auto add = [&out](const std::string& k, const Value* v) {
    if (v != nullptr) out += fmt::format("{}{}={}", out.empty() ? "" : " ", k, display(k, *v));
  };
  for (const auto& k : c.swept) add(k, c.option(k) != nullptr ? c.option(k) : c.property(k));
  if (out.empty()) {
    add("ds", c.option("ds"));
    add("mode", c.option("mode"));
  }
  return out;
}

std::string shell_join(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& a : args) {
    if (!out.empty()) out += ' ';
    const bool plain = !a.empty() && std::all_of(a.begin(), a.end(), [](char ch) {
      return std::isalnum(static_cast<unsigned char>(ch)) != 0 ||
             std::string_view("-_./=,:+@%").find(ch) != std::string_view::npos;
    });
    if (plain) {
      out += a;
    } else {
      out += '\'';
      for (char ch : a) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
      out += '\'';
    }
  }
  return out;
}

}  // namespace pmemids::sweep
