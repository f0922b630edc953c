// The structures' knobs (pmemids/knob.h) as command options and JSON: one
// option per knob of the catalog (registry/registry.h, all_knobs), its
// spelling, check, default and help all the descriptor's; the values a
// command was given; and the JSON of a knob's value (a record's config) and of
// its descriptor (`list --json`).
#pragma once

#include <CLI/CLI.hpp>
#include <deque>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "pmemids/knob.h"

namespace pmemids {

// What CLI11 parses each knob's option into.
struct KnobSettings {
  struct Slot {
    const Knob* knob = nullptr;
    uint64_t count = 0;  // kUnsigned
    double real = 0;     // kReal
    bool flag = false;   // kFlag
    std::string text;    // kChoice
  };
  std::deque<Slot> slots;  // stable addresses: CLI11 holds pointers into them
};

// "--node-keys" for node_keys.
std::string knob_flag(const Knob& k);

// Registers one option per knob on `sub`, writing into `s` (each slot starts at
// the knob's default). Parsing checks the range or the choice.
void add_knob_options(CLI::App* sub, std::span<const Knob* const> knobs, KnobSettings& s);

// Every knob's value as the options left it.
KnobValues knob_values(const KnobSettings& s);

// A value as a record's config holds it: a whole number, a number, a boolean,
// or the choice's name.
nlohmann::json knob_json(const Knob& k, double v);

// The config entries of `knobs` (a structure's), from `values` (their default
// where `values` has none).
nlohmann::json knobs_config(std::span<const Knob* const> knobs, const KnobValues& values);

// The descriptor as `list --json` prints it: name, option, type, default,
// range or choices, help.
nlohmann::json knob_description(const Knob& k);

}  // namespace pmemids
