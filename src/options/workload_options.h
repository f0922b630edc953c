// How every command that takes a workload reads it: -P/--workload files, -p
// key=value overrides and --seed, registered once here so each command spells
// them alike (`-p seed=N` and `--seed N` are the same setting everywhere).
#pragma once

#include <CLI/CLI.hpp>
#include <span>
#include <string>
#include <vector>

#include "workload/properties.h"

namespace pmemids {

struct WorkloadOptions {
  std::vector<std::string> files;       // -P/--workload, in order
  std::vector<std::string> properties;  // -p key=value, in order
  std::string seed;                     // --seed; empty when not given
};

// `property_help` describes -p (a command may name its own defaults there).
void add_workload_options(CLI::App* sub, WorkloadOptions& o,
                          const std::string& property_help =
                              "Property override key=value "
                              "(repeatable; wins over files)");

// The command's own defaults ("key=value") first, then the files in order,
// then -p, then --seed; validated (UsageError naming the input). YCSB's client
// settings (threadcount, target, status.interval) are applied when
// `client_settings`, else listed as ignored.
WorkloadSpec build_workload(const WorkloadOptions& o, std::span<const char* const> defaults = {},
                            bool client_settings = false);

// "pmemids: note: ..." on stderr naming the YCSB properties that have no
// effect, once per command, when there are any.
void note_ignored(const WorkloadSpec& spec);

}  // namespace pmemids
