#include "options/validators.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "errors.h"
#include "host/placement.h"
#include "workload/properties.h"

namespace pmemids {

CLI::Validator finite_range(double lo, double hi) {
  const std::string accepted = fmt::format("a finite number in [{}, {}]", lo, hi);
  return CLI::Validator(
      [lo, hi, accepted](std::string& v) -> std::string {
        const char* begin = v.c_str();
        char* end = nullptr;
        const double x = std::strtod(begin, &end);
        const bool whole = !v.empty() && std::isspace(static_cast<unsigned char>(v[0])) == 0 &&
                           end == begin + v.size();
        if (whole && std::isfinite(x) && x >= lo && x <= hi) return "";
        return fmt::format("'{}': expected {}", v, accepted);
      },
      fmt::format("FLOAT in [{}, {}]", lo, hi), "FINITE_RANGE");
}

CLI::Validator non_empty() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        return v.empty() ? "an empty value; give one (leave the option out for the default)" : "";
      },
      "", "NON_EMPTY");
}

CLI::Validator seed_value() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        try {
          parse_seed(v, "seed");
        } catch (const UsageError& e) {
          return e.what();
        }
        return "";
      },
      "UINT64", "SEED");
}

CLI::Validator node_number() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        const std::vector<int> nodes = numa_nodes();
        const int last = nodes.empty() ? 0 : *std::max_element(nodes.begin(), nodes.end());
        int n = -1;
        const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
        if (!v.empty() && ec == std::errc() && p == v.data() + v.size() && n >= 0) return "";
        return fmt::format("'{}': expected a node number (0..{})", v, last);
      },
      "NODE", "NODE_NUMBER");
}

CLI::Validator count_value() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        uint64_t n = 0;
        const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
        if (!v.empty() && ec == std::errc() && p == v.data() + v.size()) return "";
        return fmt::format("'{}': expected a whole number in [0, 18446744073709551615]", v);
      },
      "UINT", "COUNT");
}

}  // namespace pmemids
