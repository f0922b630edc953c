// The swept options of `pmemids micro` benches ("axes") and their grid.
//
// An axis option takes a comma list whose items are single values or ranges in
// the sweep syntax (src/sweep/expand.h): "8:*2:8192", "0:0.1:1", "1:*2:N".
//   names     each item one of the axis' accepted names
//   integer   integers; N stands for this machine's online CPUs
//   size      integers with an optional K, M or G suffix (powers of 1024), also
//             inside ranges ("1K:*2:1M"; not on the factor or step)
//   decimal   decimal numbers ("0:0.1:1")
// Values must lie in [min, max] and appear once. Errors are UsageError
// "--<axis> '<text>': <what>; accepted: <...>" (exit 2).
//
// A bench's grid is the cartesian product of its axes' values, the first axis
// varying slowest; every point is one configuration (one record per repetition).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace pmemids::micro {

enum class AxisKind : uint8_t { kNames, kInteger, kSize, kDecimal };

using Scalar = std::variant<int64_t, double, std::string>;

struct Axis {
  std::string name;  // option long name without the dashes
  AxisKind kind = AxisKind::kNames;
  std::vector<std::string> names;  // kNames: accepted values
  double min = 0, max = 0;         // numeric kinds: accepted bounds
  std::string def;                 // default text
  std::string quick;               // text under --quick
  std::string help;
};

// What the axis accepts, for messages and --help.
std::string accepted_text(const Axis& a);

// Values of `text` in the order given. UsageError as described above.
std::vector<Scalar> parse_axis(const Axis& a, const std::string& text);

std::string scalar_text(const Scalar& v);
nlohmann::json scalar_json(const Scalar& v);

// One point of a grid: each axis' value, in axis order.
class Point {
 public:
  void add(std::string name, Scalar v) { values_.emplace_back(std::move(name), std::move(v)); }
  const std::vector<std::pair<std::string, Scalar>>& values() const { return values_; }
  bool has(std::string_view name) const;
  // The value of an axis the point has (std::logic_error otherwise: a bench bug).
  const std::string& name(std::string_view axis) const;
  int64_t integer(std::string_view axis) const;
  double decimal(std::string_view axis) const;
  // "op=flush size=64" over the axes listed in `shown` (all when empty).
  std::string text(const std::vector<std::string>& shown = {}) const;
  nlohmann::json to_json() const;

 private:
  const Scalar& at(std::string_view axis) const;
  std::vector<std::pair<std::string, Scalar>> values_;
};

// Cartesian product; axes[i] takes values[i]; the first axis varies slowest.
std::vector<Point> product(const std::vector<Axis>& axes,
                           const std::vector<std::vector<Scalar>>& values);

// This machine's online CPUs (what N stands for).
int cpus_online();

// "4096", "64K", "1G": bytes (K, M, G: powers of 1024; KiB, MiB, GiB too).
// UsageError naming `option` when not a positive size.
uint64_t parse_size(const std::string& option, const std::string& text);

}  // namespace pmemids::micro
