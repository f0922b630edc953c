// all_knobs() from the catalog's descriptors and the structures add_index
// added, without the registry's instantiations: the sweep-file parser and its
// fuzz target (tests/fuzz) read the knobs and link this unit alone.
#include <fmt/core.h>

#include <algorithm>

#include "ds/catalog.h"
#include "errors.h"
#include "registry/registry.h"

namespace pmemids {

const std::vector<const Knob*>& all_knobs() {
  static const std::vector<const Knob*> knobs = [] {
    std::vector<const Knob*> out;
    const auto add = [&](std::string_view ds, std::span<const Knob* const> read) {
      for (const Knob* k : read) {
        const auto same =
            std::find_if(out.begin(), out.end(), [&](const Knob* x) { return x->name == k->name; });
        if (same == out.end()) {
          out.push_back(k);
        } else if (*same != k) {
          throw UsageError(fmt::format(
              "two knobs are named '{}' ({} declares a second one); share one descriptor", k->name,
              ds));
        }
      }
    };
    for_each_structure(Catalog{}, [&]<template <class> class DS>() {
      add(DS<DramBackend>::kName, knobs_of<DS<DramBackend>>());
    });
    for (const DsEntry& e : added_indexes()) add(e.name, e.knobs);
    return out;
  }();
  return knobs;
}

}  // namespace pmemids
