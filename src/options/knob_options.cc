#include "options/knob_options.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "options/validators.h"

namespace pmemids {

std::string knob_flag(const Knob& k) {
  std::string flag = "--" + std::string(k.name);
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

namespace {

std::vector<std::string> choice_names(const Knob& k) {
  return {k.choices.begin(), k.choices.end()};
}

CLI::Option* add_one(CLI::App* sub, const Knob& k, KnobSettings::Slot& slot) {
  const std::string flag = knob_flag(k);
  const std::string help(k.help);
  switch (k.type) {
    case KnobType::kUnsigned:
      slot.count = static_cast<uint64_t>(k.def);
      return sub->add_option(flag, slot.count, help)
          ->check(CLI::Range(static_cast<int64_t>(k.min), static_cast<int64_t>(k.max)));
    case KnobType::kReal:
      slot.real = k.def;
      return sub->add_option(flag, slot.real, help)->check(finite_range(k.min, k.max));
    case KnobType::kFlag:
      slot.flag = k.def != 0;
      return sub->add_flag(flag, slot.flag, help);
    case KnobType::kChoice:
      slot.text = std::string(k.choices[static_cast<size_t>(k.def)]);
      return sub->add_option(flag, slot.text, help)
          ->check(CLI::IsMember(choice_names(k)))
          ->capture_default_str();
  }
  return nullptr;
}

}  // namespace

void add_knob_options(CLI::App* sub, std::span<const Knob* const> knobs, KnobSettings& s) {
  for (const Knob* k : knobs) {
    KnobSettings::Slot& slot = s.slots.emplace_back();
    slot.knob = k;
    CLI::Option* opt = add_one(sub, *k, slot);
    if (!k->default_text.empty()) opt->default_str(std::string(k->default_text));
  }
}

KnobValues knob_values(const KnobSettings& s) {
  KnobValues out;
  for (const auto& slot : s.slots) {
    const Knob& k = *slot.knob;
    switch (k.type) {
      case KnobType::kUnsigned:
        out.set(k, static_cast<double>(slot.count));
        break;
      case KnobType::kReal:
        out.set(k, slot.real);
        break;
      case KnobType::kFlag:
        out.set(k, slot.flag ? 1 : 0);
        break;
      case KnobType::kChoice: {
        const auto it = std::find(k.choices.begin(), k.choices.end(), slot.text);
        out.set(k, static_cast<double>(it - k.choices.begin()));
        break;
      }
    }
  }
  return out;
}

nlohmann::json knob_json(const Knob& k, double v) {
  switch (k.type) {
    case KnobType::kUnsigned:
      return static_cast<uint64_t>(v);
    case KnobType::kReal:
      return v;
    case KnobType::kFlag:
      return v != 0;
    case KnobType::kChoice:
      return std::string(k.choices[static_cast<size_t>(v)]);
  }
  return nullptr;
}

nlohmann::json knobs_config(std::span<const Knob* const> knobs, const KnobValues& values) {
  nlohmann::json out = nlohmann::json::object();
  for (const Knob* k : knobs)
    out[std::string(k->name)] = knob_json(*k, values.find(k->name).value_or(k->def));
  return out;
}

nlohmann::json knob_description(const Knob& k) {
  nlohmann::json d = {{"name", k.name},
                      {"option", knob_flag(k)},
                      {"type", knob_type_name(k.type)},
                      {"default", knob_json(k, k.def)},
                      {"help", k.help}};
  if (k.type == KnobType::kUnsigned || k.type == KnobType::kReal) {
    d["min"] = knob_json(k, k.min);
    d["max"] = knob_json(k, k.max);
  }
  if (k.type == KnobType::kChoice) d["choices"] = choice_names(k);
  if (!k.default_text.empty()) d["default_text"] = k.default_text;
  return d;
}

}  // namespace pmemids
