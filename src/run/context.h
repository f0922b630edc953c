// The environment a result was measured in: machine, build, libraries, pool
// location, and above all whether PMEM was real or emulated.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace pmemids {

struct PmemProbe {
  bool real = false;            // the pool directory is DAX-mapped PMEM
  std::string granularity;      // libpmem2 store granularity: byte, cache-line, page
  std::string fs;               // file system type of the pool directory
  bool forced_is_pmem = false;  // we set PMEM_IS_PMEM_FORCE=1 for this process
  int auto_flush = -1;          // pmem_has_auto_flush(): 1 eADR, 0 not, -1 unknown

  // The platform keeps CPU caches persistent (eADR): byte store granularity,
  // or libpmem reports automatic flushing.
  bool platform_eadr() const { return granularity == "byte" || auto_flush == 1; }
};

// Maps a scratch file in `dir` with libpmem2 to learn its store granularity:
// page granularity means no DAX, i.e. emulated PMEM. When emulated and the user
// has not set PMEM_IS_PMEM_FORCE, sets it to 1 so libpmemobj flushes with cache
// line instructions instead of msync (call before any pool is opened).
PmemProbe probe_pool_dir(const std::string& dir);

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
