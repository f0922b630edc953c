#include "sweep/validate.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "errors.h"
#include "options/lists.h"
#include "registry/registry.h"
#include "workload/properties.h"

namespace pmemids::sweep {
namespace {

// `run` takes a name, a comma list of names, or `all`.
void check_names(const std::string& value, const std::string& flag,
                 void (*find)(std::string_view)) {
  if (value == "all") return;
  for (const auto& name : split_distinct(value, flag)) find(name);
}

std::string where(const Configuration& c, size_t total) {
  return fmt::format("configuration {} of {} ({})", c.index + 1, total, short_text(c));
}

}  // namespace

void validate(const SweepSpec& spec, const std::vector<Configuration>& configs,
              const RunKeys& keys) {
  validate_options(spec, keys);
  ConfigurationCheck check(spec, keys);
  for (const Configuration& c : configs) check(c, configs.size());
}

void validate_options(const SweepSpec& spec, const RunKeys& keys) {
  // Each option value alone, so that an error names its key.
  for (const Entry& e : spec.options) {
    const OptionKey* k = keys.find(e.key);
    for (const Value& v : e.values) {
      Configuration one;
      one.options = {{e.key, v}};
      std::vector<std::string> args = run_args(one, spec, "");
      try {
        keys.parse(args, false);
        if (e.key == "ds" && std::holds_alternative<std::string>(v)) {
          check_names(std::get<std::string>(v), "--ds", [](std::string_view n) { find_ds(n); });
        }
        if (e.key == "mode" && std::holds_alternative<std::string>(v)) {
          check_names(std::get<std::string>(v), "--mode", [](std::string_view n) { find_mode(n); });
        }
      } catch (const UsageError& err) {
        throw UsageError(fmt::format(
            "{}: {}: {}; accepted: {}", spec.file, e.key, err.what(),
            k != nullptr ? k->accepted : "see pmemids " + keys.command_text() + " --help"));
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
}

void ConfigurationCheck::operator()(const Configuration& c, size_t total) {
  const SweepSpec& spec = spec_;
  const std::vector<std::string> args = run_args(c, spec, "");
  try {
    keys_.parse(args, true);
  } catch (const UsageError& err) {
    throw UsageError(fmt::format("{}: {}: {}", spec.file, where(c, total), err.what()));
  }
  if (!keys_.is_run()) return;  // workload files and properties are run's
  std::vector<std::string> files;
  if (const Value* w = c.option("workload")) {
    if (const auto* s = std::get_if<std::string>(w)) files.push_back(*s);
    if (const auto* l = std::get_if<std::vector<std::string>>(w)) files = *l;
  }
  std::vector<std::string> fingerprint = files;
  fingerprint.push_back("");
  for (const auto& [k, v] : c.properties) fingerprint.push_back(k + "=" + value_text(v));
  if (!built_.insert(fingerprint).second) return;
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
    props.build();
  } catch (const UsageError& err) {
    throw UsageError(
        fmt::format("{}: properties: {} (in {})", spec.file, err.what(), where(c, total)));
  }
}

}  // namespace pmemids::sweep
