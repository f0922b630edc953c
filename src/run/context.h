// The environment a result was measured in: machine, build, libraries, pool
// location, and above all whether PMEM was real or emulated.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "host/pmem_probe.h"

namespace pmemids {

// The `context` block of every result record, measured once per invocation:
// machine (and its LLC size, llc_bytes, as doctor reports it), build, libraries, pool
// location, the full command line, the CPU frequency governor (null where unreadable) and
// timer_overhead_ns, the SLURM job, array job, array task and node of a batch job (null
// outside one), and the installed persistence policy (pmem/policy.h).
// loadavg_before / loadavg_after are added per repetition by the caller.
nlohmann::json collect_context(const std::string& pool_dir, const PmemProbe& probe);

// `pmemids --version`: version, git revision and build type, and the PMDK and
// memkind versions it was built against.
std::string version_text();

// What one steady_clock read costs, in ns: the median gap between 10,001
// back-to-back reads. A sampled latency spans one such read (the end of the
// first and the start of the second of its two reads), so it is included in
// every latency_* figure.
double measure_timer_overhead_ns();

// The 1, 5 and 15-minute load averages, or null when unreadable.
nlohmann::json load_average();

// True when this binary was compiled with optimisation.
constexpr bool optimized_build() {
#ifdef __OPTIMIZE__
  return true;
#else
  return false;
#endif
}

}  // namespace pmemids
