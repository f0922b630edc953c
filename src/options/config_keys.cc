#include "options/config_keys.h"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "workload/properties.h"

namespace pmemids {
namespace {

constexpr std::pair<std::string_view, OpSet> kKnobs[] = {
    {"load_factor", OpSet::kKv},         {"node_keys", OpSet::kKv},
    {"max_height", OpSet::kKv},          {"wait", OpSet::kStack},
    {"combiner_yield", OpSet::kStack},   {"persist_requests", OpSet::kStack},
    {"elimination", OpSet::kStack},      {"recycle", OpSet::kStack},
    {"combining_rounds", OpSet::kStack},
};

}  // namespace

bool config_key_applies(std::string_view key, OpSet set) {
  const auto* knob = std::find_if(std::begin(kKnobs), std::end(kKnobs),
                                  [&](const auto& k) { return k.first == key; });
  if (knob == std::end(kKnobs)) return property_applies(key, set);
  return knob->second == (set == OpSet::kOrderedKv ? OpSet::kKv : set);
}

void keep_keys_of(OpSet set, nlohmann::json& config) {
  std::vector<std::string> foreign;
  for (const auto& [key, value] : config.items()) {
    if (!config_key_applies(key, set)) foreign.push_back(key);
  }
  for (const auto& key : foreign) config.erase(key);
}

OpSet config_op_set(const nlohmann::json& config) {
  const auto it = config.find("operationset");
  if (it == config.end() || !it->is_string()) return OpSet::kKv;
  return parse_op_set(it->get<std::string>()).value_or(OpSet::kKv);
}

}  // namespace pmemids
