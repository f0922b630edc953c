#include "run/context.h"

#include <fmt/chrono.h>
#include <numa.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include "backend/pmemobj_settings.h"
#include "doctor/probes.h"
#include "errors.h"
#include "git_revision.h"
#include "pmem/domain.h"
#include "pmem/latency.h"
#include "pmem/libpmem_hooks.h"
#include "pmem/policy.h"

extern char** environ;

namespace pmemids {
namespace {

std::string cpuinfo_field(const std::string& name) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(name, 0) == 0) {
      const auto c = line.find(':');
      if (c != std::string::npos) return line.substr(c + 2);
    }
  }
  return "unknown";
}

bool env_set(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && std::string(v) == "1";
}

// The instruction libpmem uses to flush, following its own selection rules
// (CPU flags, PMEM_NO_CLWB / PMEM_NO_CLFLUSHOPT / PMEM_NO_FLUSH, eADR).
std::string flush_instruction(const std::set<std::string>& flags, const PmemProbe& probe) {
  if (env_set("PMEM_NO_FLUSH")) return "none (PMEM_NO_FLUSH=1)";
  if (probe.granularity == "byte") return "none (eADR: caches are persistent)";
  if (flags.count("clwb") != 0 && !env_set("PMEM_NO_CLWB")) return "clwb";
  if (flags.count("clflushopt") != 0 && !env_set("PMEM_NO_CLFLUSHOPT")) return "clflushopt";
  return "clflush";
}

// The whole command line of this process, one element per argument.
nlohmann::json command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  nlohmann::json args = nlohmann::json::array();
  for (std::string a; std::getline(in, a, '\0');) args.push_back(a);
  return args;
}

// An environment variable's text, null when unset or empty.
nlohmann::json env_text(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return nullptr;
  return v;
}

// A SLURM id variable: an integer when it is one, else its text; null when unset.
nlohmann::json slurm_id(const char* name) {
  nlohmann::json v = env_text(name);
  if (!v.is_string()) return v;
  const auto& text = v.get_ref<const std::string&>();
  if (text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos) return v;
  return std::stoll(text);
}

nlohmann::json cpu_governor() {
  std::ifstream in("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  std::string g;
  if (!(in >> g)) return nullptr;
  return g;
}

}  // namespace

double measure_timer_overhead_ns() {
  using Clock = std::chrono::steady_clock;
  constexpr size_t kReads = 10001;
  std::vector<Clock::time_point> t(kReads);
  for (auto& x : t) x = Clock::now();
  std::vector<double> gaps(kReads - 1);
  for (size_t i = 1; i < kReads; ++i)
    gaps[i - 1] = std::chrono::duration<double, std::nano>(t[i] - t[i - 1]).count();
  std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
  return gaps[gaps.size() / 2];
}

nlohmann::json load_average() {
  double l[3];
  if (getloadavg(l, 3) != 3) return nullptr;
  return {l[0], l[1], l[2]};
}

std::string version_text() {
  return fmt::format(
      "pmemids {} (git {}, {} build)\nPMDK {} (libpmemobj linked {}, libpmem2)\nmemkind {}",
      PMEMIDS_VERSION, PMEMIDS_GIT_REVISION, PMEMIDS_BUILD_TYPE, PMEMIDS_PMDK_VERSION,
      PMEMIDS_PMEMOBJ_LINK, PMEMIDS_MEMKIND_VERSION);
}

nlohmann::json collect_context(const std::string& pool_dir, const PmemProbe& probe) {
  std::set<std::string> flags;
  {
    std::istringstream in(cpuinfo_field("flags"));
    for (std::string f; in >> f;) flags.insert(f);
  }
  nlohmann::json cpu_flags = nlohmann::json::array();
  for (const char* f : {"clflush", "clflushopt", "clwb", "avx512f", "movdir64b", "rtm"}) {
    if (flags.count(f) != 0) cpu_flags.push_back(f);
  }
  struct utsname u {};
  uname(&u);
  nlohmann::json env = nlohmann::json::object();
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv(*e);
    if (kv.rfind("PMEM", 0) == 0) {
      const auto eq = kv.find('=');
      env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
  }
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const auto now = std::chrono::system_clock::now();
  const uint64_t llc = doctor::llc_bytes();
  return {
      {"pmem", probe.real ? "real" : "emulated"},
      {"store_granularity", probe.granularity},
      {"pmem_is_pmem_forced_by_pmemids", probe.forced_is_pmem},
      {"pool_dir", pool_dir},
      {"pool_fs", probe.fs},
      {"flush_instruction", installed_policy().flush_label()},
      {"libpmem_flush_instruction", flush_instruction(flags, probe)},
      {"domain", installed_policy().domain.label()},
      {"platform_domain", domain_name(platform_domain(probe.platform_eadr()))},
      {"movnt_threshold", installed_policy().movnt_threshold},
      {"libpmemobj_flushes", lib_hooks_bound() ? "counted" : "not observed"},
      {"libpmemobj_ctl", libpmemobj_settings()},
      {"libpmemobj_link", PMEMIDS_PMEMOBJ_LINK},
      {"latency_injection", injection_context()},
      {"pmdk_version", PMEMIDS_PMDK_VERSION},
      {"memkind_version", PMEMIDS_MEMKIND_VERSION},
      {"cpu_model", cpuinfo_field("model name")},
      {"cpu_flags", cpu_flags},
      {"cpus_online", sysconf(_SC_NPROCESSORS_ONLN)},
      {"llc_bytes", llc > 0 ? nlohmann::json(llc) : nlohmann::json()},
      {"cpu_governor", cpu_governor()},
      {"timer_overhead_ns", measure_timer_overhead_ns()},
      {"command_line", command_line()},
      {"numa_nodes", numa_available() < 0 ? 1 : numa_num_configured_nodes()},
      {"kernel", fmt::format("{} {}", u.sysname, u.release)},
      {"hostname", host},
      {"slurm_job_id", slurm_id("SLURM_JOB_ID")},
      {"slurm_array_job_id", slurm_id("SLURM_ARRAY_JOB_ID")},
      {"slurm_array_task_id", slurm_id("SLURM_ARRAY_TASK_ID")},
      {"slurm_node", env_text("SLURMD_NODENAME")},
      {"compiler", __VERSION__},
      {"build_type", PMEMIDS_BUILD_TYPE},
      {"optimized", optimized_build()},
      {"git_revision", PMEMIDS_GIT_REVISION},
      {"env", env},
      {"timestamp", fmt::format("{:%Y-%m-%dT%H:%M:%SZ}",
                                fmt::gmtime(std::chrono::system_clock::to_time_t(now)))},
  };
}

}  // namespace pmemids
