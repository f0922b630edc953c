// `pmemids list`: the descriptor list (ds/catalog.h) with every trait:
// operation set, synchronisation, modes, domains, element sizes per mode,
// and the knobs it reads (name, option, type, default, range, help).
// `--json` is what the report and scripts read instead of their own lists.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "ds/common.h"
#include "options/knob_options.h"
#include "registry/registry.h"

namespace pmemids {
namespace {

struct ListOptions {
  bool json = false;
  uint32_t fieldlength = 100;
};

std::vector<std::string> operations(const DsEntry& e) {
  std::vector<std::string> ops;
  for (OpType t : op_types_of(e.op_set)) {
    if (t != OpType::kScan || e.can_scan()) ops.emplace_back(op_name(t));
  }
  return ops;
}

std::vector<std::string> modes(const DsEntry& e) {
  std::vector<std::string> out;
  for (Mode m : kAllModes) {
    if (e.supports(m)) out.emplace_back(mode_name(m));
  }
  return out;
}

std::vector<std::string> domains(const DsEntry& e) {
  std::vector<std::string> out;
  for (Domain d : kAllDomains) {
    if (e.crash_safe(d)) out.emplace_back(domain_name(d));
  }
  return out;
}

// The durable modes (those with a crash test) in `set`.
std::vector<std::string> crash_modes_in(const DsEntry& e, ModeSet set) {
  std::vector<std::string> out;
  for (Mode m : kAllModes) {
    if (e.in(m).crash != nullptr && set.has(m)) out.emplace_back(mode_name(m));
  }
  return out;
}

// Each knob the structure reads, described (options/knob_options.h).
nlohmann::json knobs(const DsEntry& e) {
  nlohmann::json out = nlohmann::json::array();
  for (const Knob* k : e.knobs) out.push_back(knob_description(*k));
  return out;
}

// What the structure counts about itself: each metric's name and meaning.
nlohmann::json metrics(const DsEntry& e) {
  nlohmann::json out = nlohmann::json::array();
  for (const Metric& m : e.metrics) out.push_back({{"name", m.name}, {"help", m.help}});
  return out;
}

std::string joined(const std::vector<std::string>& v, const char* sep = ",") {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

void list(const ListOptions& o) {
  if (o.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : registry()) {
      nlohmann::json sizes;
      for (Mode m : kAllModes) {
        const auto f = e.in(m).element_bytes;
        sizes[std::string(mode_name(m))] =
            f != nullptr ? nlohmann::json(f(o.fieldlength)) : nullptr;
      }
      out.push_back({{"ds", e.name},
                     {"description", e.description},
                     {"operation_set", op_set_name(e.op_set)},
                     {"operations", operations(e)},
                     {"synchronisation", sync_name(e.sync)},
                     {"modes", modes(e)},
                     {"domains", domains(e)},
                     {"crash_modes", crash_modes_in(e, kEveryMode)},
                     {"torn_modes", crash_modes_in(e, e.torn_modes)},
                     {"torn_value_modes", crash_modes_in(e, e.torn_value_modes)},
                     {"harness", e.harness},
                     {"element_bytes", sizes},
                     {"knobs", knobs(e)},
                     {"metrics", metrics(e)},
                     {"fieldlength", o.fieldlength}});
    }
    fmt::print("{}\n", out.dump(2));
    return;
  }
  fmt::print("element bytes for {}-byte values (fieldlength), per mode (-: not supported):\n",
             o.fieldlength);
  // A column per mode, one wider than its name (at least 6).
  const auto per_mode = [](auto&& cell) {
    std::string out;
    for (Mode m : kAllModes) {
      out += fmt::format(" {:>{}}", cell(m), std::max<size_t>(6, mode_name(m).size() + 1));
    }
    return out;
  };
  fmt::print("{:<20}{}  {:<10} {:<8} {:<8} {}\n", "ds",
             per_mode([](Mode m) { return std::string(mode_name(m)); }), "op set", "sync",
             "domains", "operations");
  for (const auto& e : registry()) {
    const auto size = [&](Mode m) {
      const auto f = e.in(m).element_bytes;
      return f != nullptr ? fmt::format("{}", f(o.fieldlength)) : std::string("-");
    };
    fmt::print("{:<20}{}  {:<10} {:<8} {:<8} {}\n", e.name, per_mode(size), op_set_name(e.op_set),
               sync_name(e.sync), joined(domains(e)), joined(operations(e)));
  }
  fmt::print("\n");
  for (const auto& e : registry()) fmt::print("{:<20} {}\n", e.name, e.description);
}

}  // namespace

void add_list_command(CLI::App& app) {
  auto opts = std::make_shared<ListOptions>();
  CLI::App* sub = app.add_subcommand(
      "list", "Structures and their traits: operation set, synchronisation, modes, domains, sizes");
  sub->add_flag("--json", opts->json, "Print JSON instead of a table");
  sub->add_option("--fieldlength", opts->fieldlength, "Value size used for element sizes")
      ->check(CLI::Range(1, 1 << 20));
  sub->callback([opts] { list(*opts); });
}

}  // namespace pmemids
