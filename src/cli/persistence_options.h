// The persistence options every command that touches PMEM shares (run, crash,
// sweep, micro): --domain, --flush, --movnt-threshold, --flush-cold and the
// what-if latencies. Registered once here, resolved into a PersistencePolicy
// once per command (before any pool is opened).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "pmem/policy.h"

namespace pmemids {

struct PersistenceOptions {
  std::string domain = "auto";  // adr | eadr | auto
  std::string flush = "auto";   // clwb | clflushopt | clflush | nt | auto
  std::optional<uint64_t> movnt_threshold;
  std::string flush_cold = "off";  // on | off
  std::optional<double> pmem_write_ns;
  std::optional<double> pmem_read_ns;
  std::string pmem_profile;  // empty | optane | cxl
};

void add_persistence_options(CLI::App* sub, PersistenceOptions& o);

// UsageError naming the option and what is accepted (an instruction this CPU
// lacks names those it has). `platform_eadr`: see choose_domain().
PersistencePolicy resolve_persistence(const PersistenceOptions& o, bool platform_eadr);

}  // namespace pmemids
