#include "sweep/validate.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "cli/lists.h"
#include "errors.h"
#include "run/registry.h"
#include "workload/properties.h"

namespace pmemids::sweep {
namespace {

// `run` takes a name, a comma list of names, or `all`.
void check_names(const std::string& value, void (*find)(std::string_view)) {
  if (value == "all") return;
  for (const auto& name : split_list(value)) find(name);
}

std::string where(const Configuration& c, size_t total) {
  return fmt::format("configuration {} of {} ({})", c.index + 1, total, short_text(c));
}

// The workload a configuration runs (errors name the sweep file and the
// configuration).
WorkloadSpec build_spec(const SweepSpec& spec, const Configuration& c,
                        const std::vector<std::string>& files, size_t total) {
  PropertySet props;
  for (const auto& f : files) {
    const auto it = spec.workload_paths.find(f);
    const std::string path = it == spec.workload_paths.end() ? f : it->second;
    try {
      props.load_file(path);
    } catch (const UsageError& err) {
      throw UsageError(fmt::format(
          "{}: workload: {} (relative paths are looked up in the current directory, then in "
          "the sweep file's directory and its parents); accepted: readable property files",
          spec.file, err.what()));
    }
  }
  try {
    for (const auto& [k, v] : c.properties) props.set_override(k + "=" + value_text(v));
    return props.build();
  } catch (const UsageError& err) {
    throw UsageError(
        fmt::format("{}: properties: {} (in {})", spec.file, err.what(), where(c, total)));
  }
}

// Every (structure, mode) a configuration names must fit its workload's
// operation set and support the mode, as `run` checks (`all` is expanded by
// run itself).
void check_pairs(const SweepSpec& spec, const Configuration& c, const WorkloadSpec& w,
                 size_t total) {
  const Value* ds = c.option("ds");
  const Value* mode = c.option("mode");
  const auto* ds_s = ds != nullptr ? std::get_if<std::string>(ds) : nullptr;
  const auto* mode_s = mode != nullptr ? std::get_if<std::string>(mode) : nullptr;
  if (ds_s == nullptr || mode_s == nullptr || *ds_s == "all" || *mode_s == "all") return;
  try {
    for (const auto& name : split_list(*ds_s)) {
      for (const auto& m : split_list(*mode_s)) check_fits(find_ds(name), w.op_set(), find_mode(m));
    }
  } catch (const UsageError& err) {
    throw UsageError(fmt::format("{}: {}: {}", spec.file, where(c, total), err.what()));
  }
}

}  // namespace

void validate(const SweepSpec& spec, const std::vector<Configuration>& configs,
              const RunKeys& keys) {
  // Each option value alone, so that an error names its key.
  for (const Entry& e : spec.options) {
    const OptionKey* k = keys.find(e.key);
    for (const Value& v : e.values) {
      Configuration one;
      one.options = {{e.key, v}};
      std::vector<std::string> args = run_args(one, spec, "");
      try {
        RunKeys::parse(args, false);
        if (e.key == "ds" && std::holds_alternative<std::string>(v)) {
          check_names(std::get<std::string>(v), [](std::string_view n) { find_ds(n); });
        }
        if (e.key == "mode" && std::holds_alternative<std::string>(v)) {
          check_names(std::get<std::string>(v), [](std::string_view n) { find_mode(n); });
        }
      } catch (const UsageError& err) {
        throw UsageError(fmt::format("{}: {}: {}; accepted: {}", spec.file, e.key, err.what(),
                                     k != nullptr ? k->accepted : "see pmemids run --help"));
      }
    }
  }
  for (const OptionKey& k : keys.options()) {
    if (!k.required) continue;
    const bool present = std::any_of(spec.options.begin(), spec.options.end(),
                                     [&](const Entry& e) { return e.key == k.name; });
    if (!present) {
      throw UsageError(fmt::format(
          "{}: {}: missing; every configuration needs it (at the top level or in [matrix]); "
          "accepted: {}",
          spec.file, k.name, k.accepted));
    }
  }
  std::map<std::vector<std::string>, WorkloadSpec> built;  // per workload files and properties
  for (const Configuration& c : configs) {
    const std::vector<std::string> args = run_args(c, spec, "");
    try {
      RunKeys::parse(args, true);
    } catch (const UsageError& err) {
      throw UsageError(fmt::format("{}: {}: {}", spec.file, where(c, configs.size()), err.what()));
    }
    std::vector<std::string> files;
    if (const Value* w = c.option("workload")) {
      if (const auto* s = std::get_if<std::string>(w)) files.push_back(*s);
      if (const auto* l = std::get_if<std::vector<std::string>>(w)) files = *l;
    }
    std::vector<std::string> fingerprint = files;
    fingerprint.push_back("");
    for (const auto& [k, v] : c.properties) fingerprint.push_back(k + "=" + value_text(v));
    auto it = built.find(fingerprint);
    if (it == built.end()) {
      it = built.emplace(fingerprint, build_spec(spec, c, files, configs.size())).first;
    }
    check_pairs(spec, c, it->second, configs.size());
  }
}

}  // namespace pmemids::sweep
