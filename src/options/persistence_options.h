// The persistence options every command that touches PMEM shares (run, crash,
// sweep, micro): --domain, --flush, --movnt-threshold, --flush-cold and the
// what-if latencies. Registered once here, resolved into a PersistencePolicy
// once per command (before any pool is opened).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

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

// Warnings on stderr about the installed policy `p`: eADR emulated (the pools
// are not crash-safe on this machine), what-if latency injected.
void warn_policy(const PersistencePolicy& p);

// --pmem-profile's media: the latency each adds, per written-back line at a
// fence and per persistent node visited.
struct MediaProfile {
  std::string name;
  double write_ns;
  double read_ns;
};
const std::vector<MediaProfile>& media_profiles();

// UsageError naming the option and what is accepted (an instruction this CPU
// lacks names those it has). `platform_eadr`: see choose_domain().
PersistencePolicy resolve_persistence(const PersistenceOptions& o, bool platform_eadr);

}  // namespace pmemids
