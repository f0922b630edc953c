#include "counters/callgrind_out.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>
#include <sstream>
#include <vector>

#include "errors.h"

namespace pmemids {
namespace {

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

}  // namespace

CallgrindTotals parse_callgrind_totals(std::istream& in, const std::string& what) {
  std::vector<std::string> events;
  std::optional<std::vector<std::string>> summary, totals;
  for (std::string line; std::getline(in, line);) {
    const auto value = [&](std::string_view key) -> std::optional<std::string> {
      if (line.rfind(key, 0) != 0) return std::nullopt;
      return line.substr(key.size());
    };
    if (auto v = value("events:")) events = words(*v);
    if (auto v = value("summary:")) summary = words(*v);
    if (auto v = value("totals:")) totals = words(*v);
  }
  if (events.empty()) {
    throw RuntimeError(fmt::format("callgrind dump '{}' has no 'events:' line", what));
  }
  const std::optional<std::vector<std::string>>& counts = summary ? summary : totals;
  if (!counts || counts->size() > events.size()) {
    throw RuntimeError(fmt::format("callgrind dump '{}' has no total matching its events ({})",
                                   what, fmt::join(events, " ")));
  }
  CallgrindTotals t;
  for (size_t i = 0; i < events.size(); ++i) {
    // callgrind leaves trailing zero counts out of a cost line.
    uint64_t v = 0;
    if (i < counts->size()) {
      try {
        v = std::stoull((*counts)[i]);
      } catch (const std::exception&) {
        throw RuntimeError(fmt::format("callgrind dump '{}': total '{}' of {} is not a count", what,
                                       (*counts)[i], events[i]));
      }
    }
    t[events[i]] = v;
  }
  return t;
}

void add_sim_metrics(nlohmann::json& m, const CallgrindTotals& t, uint64_t ops) {
  const auto get = [&](const char* e) -> std::optional<double> {
    const auto it = t.find(e);
    if (it == t.end()) return std::nullopt;
    return static_cast<double>(it->second);
  };
  const auto sum = [&](const char* a, const char* b) -> std::optional<double> {
    const auto x = get(a), y = get(b);
    if (!x || !y) return std::nullopt;
    return *x + *y;
  };
  const auto json = [](std::optional<double> v) {
    return v ? nlohmann::json(*v) : nlohmann::json();
  };
  const auto per_op = [&](std::optional<double> v) {
    return json(v && ops > 0 ? std::optional(*v / static_cast<double>(ops)) : std::nullopt);
  };
  const auto ratio = [&](std::optional<double> a, std::optional<double> b) {
    return json(a && b && *b > 0 ? std::optional(*a / *b) : std::nullopt);
  };
  m["sim_instructions"] = json(get("Ir"));
  m["sim_instructions_per_op"] = per_op(get("Ir"));
  m["sim_data_reads_per_op"] = per_op(get("Dr"));
  m["sim_data_writes_per_op"] = per_op(get("Dw"));
  m["sim_i1_misses_per_op"] = per_op(get("I1mr"));
  m["sim_d1_read_misses_per_op"] = per_op(get("D1mr"));
  m["sim_d1_write_misses_per_op"] = per_op(get("D1mw"));
  m["sim_ll_misses_per_op"] = per_op(get("DLmr"));
  m["sim_ll_write_misses_per_op"] = per_op(get("DLmw"));
  m["sim_ll_instruction_misses_per_op"] = per_op(get("ILmr"));
  m["sim_ll_miss_ratio"] = ratio(get("DLmr"), get("D1mr"));
  m["sim_d1_miss_ratio"] = ratio(get("D1mr"), get("Dr"));
  m["sim_branches_per_op"] = per_op(sum("Bc", "Bi"));
  m["sim_branch_misses_per_op"] = per_op(sum("Bcm", "Bim"));
  nlohmann::json events = nlohmann::json::object();
  for (const auto& [name, count] : t) events[name] = count;
  m["sim_events"] = events;
}

}  // namespace pmemids
