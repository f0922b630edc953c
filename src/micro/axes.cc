#include "micro/axes.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "errors.h"
#include "options/lists.h"
#include "sweep/expand.h"

namespace pmemids::micro {
namespace {

std::vector<std::string> split_colon(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t c; (c = s.find(':', start)) != std::string::npos; start = c + 1) {
    parts.push_back(s.substr(start, c - start));
  }
  parts.push_back(s.substr(start));
  return parts;
}

std::string join_colon(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ":") + p;
  return out;
}

// Size suffix: K, M, G (and KiB, MiB, GiB) multiply by powers of 1024.
bool size_value(const std::string& text, uint64_t& out) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || p == text.data()) return false;
  const std::string_view suffix(p, static_cast<size_t>(end - p));
  int shift = -1;
  if (suffix.empty()) shift = 0;
  if (suffix == "K" || suffix == "KiB") shift = 10;
  if (suffix == "M" || suffix == "MiB") shift = 20;
  if (suffix == "G" || suffix == "GiB") shift = 30;
  if (shift < 0 || v > (UINT64_MAX >> shift)) return false;
  out = v << shift;
  return true;
}

std::string number_text(double v) { return fmt::format("{}", v); }

}  // namespace

std::string accepted_text(const Axis& a) {
  switch (a.kind) {
    case AxisKind::kNames: {
      std::string out;
      for (const auto& n : a.names) out += (out.empty() ? "" : ", ") + n;
      return "a comma list of " + out;
    }
    case AxisKind::kInteger:
      return fmt::format(
          "a comma list of integers in [{}, {}] or ranges a:b, a:s:b, a:*f:b (N = {} CPUs here)",
          number_text(a.min), number_text(a.max), cpus_online());
    case AxisKind::kSize:
      return fmt::format(
          "a comma list of sizes in [{}, {}] bytes (suffixes K, M, G) or ranges a:b, a:s:b, "
          "a:*f:b",
          number_text(a.min), number_text(a.max));
    case AxisKind::kDecimal:
      return fmt::format("a comma list of numbers in [{}, {}] or ranges a:b, a:s:b, a:*f:b",
                         number_text(a.min), number_text(a.max));
  }
  return "";
}

namespace {

// A refusal of --<axis> '<text>': what is wrong, and what is accepted.
UsageError axis_error(const Axis& a, const std::string& text, const std::string& what) {
  return UsageError(
      fmt::format("--{} '{}': {}; accepted: {}", a.name, text, what, accepted_text(a)));
}

// One item of a decimal axis: a number, or a range of them.
std::vector<Scalar> decimal_item(const Axis& a, const std::string& text, const std::string& item) {
  std::vector<double> ds;
  try {
    if (sweep::is_range(item)) {
      ds = sweep::parse_decimal_range(item);
    } else {
      size_t pos = 0;
      ds.push_back(std::stod(item, &pos));
      if (pos != item.size() || !std::isfinite(ds.back())) throw std::invalid_argument(item);
    }
  } catch (const UsageError& e) {
    throw axis_error(a, text, e.what());
  } catch (const std::exception&) {
    throw axis_error(a, text, fmt::format("'{}' is not a number", item));
  }
  return {ds.begin(), ds.end()};
}

// One item of an integer or size axis: single values and range ends through
// the sweep's integer range parser, after N and size suffixes are resolved.
std::vector<Scalar> integer_item(const Axis& a, const std::string& text, const std::string& item) {
  std::vector<std::string> parts = split_colon(item);
  for (auto& p : parts) {
    if (p.starts_with('*')) continue;
    if (a.kind == AxisKind::kInteger && p == "N") {
      p = std::to_string(cpus_online());
    } else if (uint64_t v = 0; a.kind == AxisKind::kSize && size_value(p, v)) {
      p = std::to_string(v);
    }
  }
  std::vector<int64_t> ints;
  try {
    ints = sweep::parse_range(parts.size() == 1 ? parts[0] + ":" + parts[0] : join_colon(parts));
  } catch (const UsageError& e) {
    if (parts.size() == 1) {
      throw axis_error(
          a, text,
          fmt::format("'{}' is not {}", item, a.kind == AxisKind::kSize ? "a size" : "an integer"));
    }
    throw axis_error(a, text, e.what());
  }
  return {ints.begin(), ints.end()};
}

std::vector<Scalar> parse_item(const Axis& a, const std::string& text, const std::string& item) {
  if (item.empty()) throw axis_error(a, text, "an empty item");
  if (a.kind == AxisKind::kNames) {
    if (std::find(a.names.begin(), a.names.end(), item) == a.names.end()) {
      throw axis_error(a, text, fmt::format("'{}' is not one of them", item));
    }
    return {Scalar(item)};
  }
  if (a.kind == AxisKind::kDecimal) return decimal_item(a, text, item);
  return integer_item(a, text, item);
}

// `v` is within the axis' range, and not in `out` yet.
void check_value(const Axis& a, const std::string& text, const Scalar& v,
                 const std::vector<Scalar>& out) {
  if (const auto* s = std::get_if<std::string>(&v); s == nullptr) {
    const double d = std::holds_alternative<int64_t>(v) ? static_cast<double>(std::get<int64_t>(v))
                                                        : std::get<double>(v);
    if (d < a.min || d > a.max) {
      throw axis_error(a, text, fmt::format("{} is out of range", scalar_text(v)));
    }
  }
  if (std::find(out.begin(), out.end(), v) != out.end()) {
    throw axis_error(a, text, fmt::format("{} is listed twice", scalar_text(v)));
  }
}

}  // namespace

std::vector<Scalar> parse_axis(const Axis& a, const std::string& text) {
  const std::vector<std::string> items = split_list(text);
  if (items.empty()) throw axis_error(a, text, "empty");
  std::vector<Scalar> out;
  for (const std::string& item : items) {
    for (auto& v : parse_item(a, text, item)) {
      check_value(a, text, v, out);
      out.push_back(std::move(v));
    }
  }
  return out;
}

std::string scalar_text(const Scalar& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return number_text(*d);
  return std::get<std::string>(v);
}

nlohmann::json scalar_json(const Scalar& v) {
  return std::visit([](const auto& x) { return nlohmann::json(x); }, v);
}

bool Point::has(std::string_view name) const {
  return std::any_of(values_.begin(), values_.end(),
                     [&](const auto& kv) { return kv.first == name; });
}

const Scalar& Point::at(std::string_view axis) const {
  for (const auto& [k, v] : values_) {
    if (k == axis) return v;
  }
  throw std::logic_error(fmt::format("micro: no axis '{}' in this point", axis));
}

const std::string& Point::name(std::string_view axis) const {
  return std::get<std::string>(at(axis));
}

int64_t Point::integer(std::string_view axis) const { return std::get<int64_t>(at(axis)); }

double Point::decimal(std::string_view axis) const {
  const Scalar& v = at(axis);
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  return std::get<double>(v);
}

std::string Point::text(const std::vector<std::string>& shown) const {
  std::string out;
  for (const auto& [k, v] : values_) {
    if (!shown.empty() && std::find(shown.begin(), shown.end(), k) == shown.end()) continue;
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", k, scalar_text(v));
  }
  return out;
}

nlohmann::json Point::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : values_) {
    std::string key = k;
    std::replace(key.begin(), key.end(), '-', '_');
    j[key] = scalar_json(v);
  }
  return j;
}

std::vector<Point> product(const std::vector<Axis>& axes,
                           const std::vector<std::vector<Scalar>>& values) {
  std::vector<Point> out(1);
  for (size_t i = 0; i < axes.size(); ++i) {
    std::vector<Point> next;
    next.reserve(out.size() * values[i].size());
    for (const Point& p : out) {
      for (const Scalar& v : values[i]) {
        Point q = p;
        q.add(axes[i].name, v);
        next.push_back(std::move(q));
      }
    }
    out = std::move(next);
  }
  return out;
}

int cpus_online() {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

uint64_t parse_size(const std::string& option, const std::string& text) {
  uint64_t v = 0;
  if (!size_value(text, v) || v == 0) {
    throw UsageError(
        fmt::format("--{} '{}': expected a positive size such as 4096, 64K, 1G", option, text));
  }
  return v;
}

}  // namespace pmemids::micro
