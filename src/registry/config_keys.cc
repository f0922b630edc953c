#include "registry/config_keys.h"

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "registry/registry.h"
#include "workload/properties.h"

namespace pmemids {
namespace {

OpSet config_op_set(const nlohmann::json& config) {
  const auto it = config.find("operationset");
  if (it == config.end() || !it->is_string()) return OpSet::kKv;
  return parse_op_set(it->get<std::string>()).value_or(OpSet::kKv);
}

const DsEntry* entry_of(const nlohmann::json& config) {
  const auto it = config.find("ds");
  if (it == config.end() || !it->is_string()) return nullptr;
  const auto& all = registry();
  const auto e = std::find_if(all.begin(), all.end(),
                              [&](const DsEntry& x) { return x.name == it->get<std::string>(); });
  return e == all.end() ? nullptr : &*e;
}

bool names_knob(std::span<const Knob* const> knobs, std::string_view key) {
  return std::any_of(knobs.begin(), knobs.end(), [&](const Knob* k) { return k->name == key; });
}

}  // namespace

void keep_record_keys(nlohmann::json& config) {
  const OpSet set = config_op_set(config);
  const DsEntry* e = entry_of(config);
  std::vector<std::string> foreign;
  for (const auto& [key, value] : config.items()) {
    const bool other_knob =
        e != nullptr && names_knob(all_knobs(), key) && !names_knob(e->knobs, key);
    if (other_knob || !property_applies(key, set)) foreign.push_back(key);
  }
  for (const auto& key : foreign) config.erase(key);
}

}  // namespace pmemids
