#include "options/workload_options.h"

#include <fmt/format.h>

#include "options/validators.h"
#include "util/shipped_files.h"

namespace pmemids {

void add_workload_options(CLI::App* sub, WorkloadOptions& o, const std::string& property_help) {
  sub->add_option("-P,--workload", o.files, "YCSB workload property file(s)")
      ->check(non_empty())
      ->type_name("FILE");
  sub->add_option("-p", o.properties, property_help)->type_name("KEY=VALUE");
  sub->add_option("--seed", o.seed, "Workload seed: the same setting as -p seed=N")
      ->check(seed_value())
      ->type_name("UINT")
      ->default_str("the workload's seed, else 1");
}

WorkloadSpec build_workload(const WorkloadOptions& o, std::span<const char* const> defaults,
                            bool client_settings) {
  PropertySet props;
  for (const char* kv : defaults) props.set_override(kv, "default");
  for (const auto& f : o.files) props.load_file(locate_shipped(f, ShippedKind::kWorkload).path);
  for (const auto& kv : o.properties) props.set_override(kv);
  if (!o.seed.empty()) props.set_from_option("seed", o.seed, "--seed");
  return props.build(client_settings);
}

void note_ignored(const WorkloadSpec& spec) {
  if (spec.ignored.empty()) return;
  std::string keys;
  for (const auto& [k, v] : spec.ignored)
    keys += fmt::format("{}{}={}", keys.empty() ? "" : ", ", k, v);
  fmt::print(stderr,
             "pmemids: note: YCSB properties with no effect here, ignored: {} (listed in "
             "config.ignored_properties)\n",
             keys);
}

}  // namespace pmemids
