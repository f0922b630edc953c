// Checks a sweep's configurations as `pmemids run` (or the sweep's command)
// would before running anything, so that a mistake in the file stops the sweep at once instead of
// surfacing hours later:
//   - every option value parses as `run` parses it (names, types, ranges: the
//     checks attached in add_run_options), reported per key;
//   - every required option (ds, mode) is set;
//   - structure and mode names exist (`all` and comma lists as `run` takes them);
//   - workload files can be read, and every configuration's properties build
//     (unknown property, bad value, proportions not summing to 1).
// What only a run can tell (a lock that does not fit the mode, a NUMA node this
// machine lacks, a structure that cannot scan) is left to the run, which then
// exits 2 and the sweep records the configuration as skipped.
// Errors: UsageError "<file>: <key>: <what>[; accepted: ...]".
#pragma once

#include <set>
#include <string>
#include <vector>

#include "sweep/expand.h"
#include "sweep/run_keys.h"
#include "sweep/sweep_file.h"

namespace pmemids::sweep {

void validate(const SweepSpec& spec, const std::vector<Configuration>& configs,
              const RunKeys& keys);

// The same in two steps, for configurations checked as they are expanded
// (--dry-run): the options alone, then each configuration. `total` is the
// number of configurations, for messages.
void validate_options(const SweepSpec& spec, const RunKeys& keys);
class ConfigurationCheck {
 public:
  ConfigurationCheck(const SweepSpec& spec, const RunKeys& keys) : spec_(spec), keys_(keys) {}
  void operator()(const Configuration& c, size_t total);

 private:
  const SweepSpec& spec_;
  const RunKeys& keys_;
  std::set<std::vector<std::string>> built_;  // workload files and properties already checked
};

}  // namespace pmemids::sweep
