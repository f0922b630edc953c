#include "counters/counters_row.h"

#include <fmt/format.h>

#include <string>
#include <utility>

namespace pmemids {

void print_counters_row(std::FILE* out, const nlohmann::json& record) {
  const nlohmann::json& m = record["metrics"];
  const bool sim = m.contains("sim_instructions_per_op");
  using Field = std::pair<const char*, const char*>;
  static constexpr Field kPerf[] = {
      {"instructions_per_op", "instr/op"},    {"cycles_per_op", "cycles/op"},
      {"llc_misses_per_op", "LLC misses/op"}, {"llc_miss_ratio", "LLC miss ratio"},
      {"page_faults_per_op", "faults/op"},    {"context_switches", "ctx switches"}};
  static constexpr Field kSim[] = {{"sim_instructions_per_op", "instr/op"},
                                   {"sim_d1_read_misses_per_op", "D1 read misses/op"},
                                   {"sim_ll_misses_per_op", "LL read misses/op"},
                                   {"sim_ll_miss_ratio", "LL miss ratio"}};
  std::string line = sim ? "    simulated (callgrind):" : "    counters:";
  const auto add = [&](const Field& f) {
    const nlohmann::json& v = m.contains(f.first) ? m[f.first] : nlohmann::json();
    line += fmt::format(" {} {},", f.second,
                        v.is_number() ? fmt::format("{:.4g}", v.get<double>()) : "n/a");
  };
  if (sim) {
    for (const Field& f : kSim) add(f);
  } else {
    for (const Field& f : kPerf) add(f);
  }
  line.pop_back();
  fmt::print(out, "{}\n", line);
  std::fflush(out);
}

}  // namespace pmemids
