// `pmemids list`: structures, modes, supported operations and element sizes.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "ds/common.h"
#include "run/registry.h"

namespace pmemids {
namespace {

struct ListOptions {
  bool json = false;
  uint32_t fieldlength = 100;
};

std::vector<std::string> operations(const DsEntry& e) {
  std::vector<std::string> ops = {"read", "update", "insert", "delete", "readmodifywrite"};
  if (e.can_scan) ops.emplace_back("scan");
  return ops;
}

void list(const ListOptions& o) {
  if (o.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : registry()) {
      nlohmann::json sizes;
      for (Mode m : kAllModes)
        sizes[std::string(mode_name(m))] = e.element_bytes[static_cast<int>(m)](o.fieldlength);
      out.push_back({{"ds", e.name},
                     {"description", e.description},
                     {"operations", operations(e)},
                     {"modes", {"dram", "pmem-volatile", "pmem-persist", "pmem-trans"}},
                     {"element_bytes", sizes},
                     {"fieldlength", o.fieldlength}});
    }
    fmt::print("{}\n", out.dump(2));
    return;
  }
  fmt::print("element bytes for {}-byte values (fieldlength), per mode:\n", o.fieldlength);
  fmt::print("{:<14} {:>6} {:>14} {:>13} {:>11}  {}\n", "ds", "dram", "pmem-volatile",
             "pmem-persist", "pmem-trans", "operations");
  for (const auto& e : registry()) {
    std::string ops;
    for (const auto& op : operations(e)) ops += (ops.empty() ? "" : ",") + op;
    fmt::print("{:<14} {:>6} {:>14} {:>13} {:>11}  {}\n", e.name, e.element_bytes[0](o.fieldlength),
               e.element_bytes[1](o.fieldlength), e.element_bytes[2](o.fieldlength),
               e.element_bytes[3](o.fieldlength), ops);
  }
  fmt::print("\n");
  for (const auto& e : registry()) fmt::print("{:<14} {}\n", e.name, e.description);
}

}  // namespace

void add_list_command(CLI::App& app) {
  auto opts = std::make_shared<ListOptions>();
  CLI::App* sub = app.add_subcommand("list", "Structures, modes, operations and element sizes");
  sub->add_flag("--json", opts->json, "Print JSON instead of a table");
  sub->add_option("--fieldlength", opts->fieldlength, "Value size used for element sizes")
      ->check(CLI::Range(1, 1 << 20));
  sub->callback([opts] { list(*opts); });
}

}  // namespace pmemids
