#include "doctor/probes.h"

#include <sys/statvfs.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <x86intrin.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "backend/pool.h"
#include "counters/pmu.h"
#include "counters/sim.h"
#include "errors.h"
#include "host/placement.h"
#include "host/pmem_probe.h"
#include "pmem/flush.h"
#include "pmem/latency.h"
#include "pmem/libpmem_hooks.h"
#include "pmem/policy.h"

namespace pmemids::doctor {
namespace {

std::optional<std::string> read_line(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  if (!std::getline(in, s)) return std::nullopt;
  return s;
}

// Whether `dir` is on a file system mounted with the dax option.
bool mounted_dax(const std::string& dir) {
  std::ifstream in("/proc/mounts");
  std::string dev, mnt, type, opts, best_opts;
  size_t best = 0;
  char real[4096];
  const std::string path = realpath(dir.c_str(), real) != nullptr ? real : dir;
  while (in >> dev >> mnt >> type >> opts) {
    in.ignore(1 << 16, '\n');
    const bool inside = path.rfind(mnt, 0) == 0 &&
                        (mnt == "/" || (path.size() > mnt.size() && path[mnt.size()] == '/'));
    const bool under = path == mnt || inside;
    if (under && mnt.size() >= best) {
      best = mnt.size();
      best_opts = opts;
    }
  }
  return ("," + best_opts + ",").find(",dax") != std::string::npos;
}

bool on_path(const char* tool) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  std::istringstream in(path);
  for (std::string d; std::getline(in, d, ':');) {
    if (!d.empty() && access((d + "/" + tool).c_str(), X_OK) == 0) return true;
  }
  return false;
}

std::optional<std::string> valgrind_version() {
  try {
    return require_valgrind();
  } catch (const UsageError&) {
    return std::nullopt;
  }
}

int threads_per_core() {
  const auto s = read_line("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list");
  const std::vector<int> sib = s ? parse_cpu_list(*s) : std::vector<int>{};
  return sib.empty() ? 1 : static_cast<int>(sib.size());
}

std::vector<NumaNode> numa() {
  std::vector<NumaNode> out;
  for (int n : numa_nodes()) {
    const auto s = read_line(fmt::format("/sys/devices/system/node/node{}/cpulist", n));
    std::vector<int> cpus = s ? parse_cpu_list(*s) : node_cpus(n);
    out.push_back({n, std::move(cpus)});
  }
  return out;
}

uint64_t available_memory() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit) {
    if (key == "MemAvailable:") return kb << 10;
  }
  struct sysinfo si {};
  return sysinfo(&si) == 0 ? static_cast<uint64_t>(si.freeram) * si.mem_unit : 0;
}

// Ticks of one load of *p, fenced on both sides.
uint64_t timed_load(const volatile uint64_t* p) {
  _mm_lfence();
  const uint64_t t0 = __rdtsc();
  _mm_lfence();
  (void)*p;
  _mm_lfence();
  const uint64_t t1 = __rdtsc();
  return t1 - t0;
}

// With `insn` null, the line is only stored and fenced.
double median_load_after(std::optional<FlushInsn> insn, volatile uint64_t* line) {
  constexpr int kTrials = 2001;
  std::vector<uint64_t> t(kTrials);
  for (int i = 0; i < kTrials; ++i) {
    *line = static_cast<uint64_t>(i);
    if (insn) flush_line(*insn, const_cast<uint64_t*>(line));
    store_fence();
    t[i] = timed_load(line);
  }
  std::nth_element(t.begin(), t.begin() + kTrials / 2, t.end());
  return static_cast<double>(t[kTrials / 2]) / tsc_calibration().ticks_per_ns;
}

}  // namespace

uint64_t llc_bytes() {
  uint64_t best = 0;
  int best_level = 0;
  for (int i = 0; i < 16; ++i) {
    const std::string d = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const auto level = read_line(d + "level");
    const auto size = read_line(d + "size");
    const auto type = read_line(d + "type");
    if (!level || !size || !type) break;
    if (*type == "Instruction") continue;
    char* end = nullptr;
    uint64_t b = std::strtoull(size->c_str(), &end, 10);
    if (*end == 'K') b <<= 10;
    if (*end == 'M') b <<= 20;
    const int l = std::atoi(level->c_str());
    if (l >= best_level) {
      best_level = l;
      best = b;
    }
  }
  if (best == 0) {
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (l3 > 0) best = static_cast<uint64_t>(l3);
  }
  return best;
}

std::optional<LoadLatencies> probe_clwb_retention() {
  const CpuFlushSupport& cpu = CpuFlushSupport::host();
  if (!cpu.clwb || !cpu.clflush) return std::nullopt;
  alignas(64) static uint64_t line[8];
  return LoadLatencies{median_load_after(std::nullopt, line),
                       median_load_after(FlushInsn::kClwb, line),
                       median_load_after(FlushInsn::kClflush, line)};
}

std::vector<Finding> run_doctor(const std::string& pool_dir, bool& pool_ok) {
  std::vector<Finding> out;
  std::string problem;
  try {
    check_pool_dir(pool_dir);
  } catch (const UsageError& e) {
    problem = e.what();
  }
  pool_ok = problem.empty();
  out.push_back(pool_dir_finding(pool_dir, problem));
  if (pool_ok) {
    const PmemProbe probe = probe_pool_dir(pool_dir);
    out.push_back(pmem_finding(probe.real, probe.granularity, probe.fs, mounted_dax(pool_dir)));
    out.push_back(domain_finding(probe.platform_eadr(), probe.auto_flush));
    struct statvfs sv {};
    const uint64_t free_bytes =
        statvfs(pool_dir.c_str(), &sv) == 0 ? static_cast<uint64_t>(sv.f_bavail) * sv.f_frsize : 0;
    out.push_back(space_finding(free_bytes, available_memory()));
  }
  std::vector<std::string> insns;
  const CpuFlushSupport& cpu = CpuFlushSupport::host();
  for (FlushInsn i : {FlushInsn::kClwb, FlushInsn::kClflushopt, FlushInsn::kClflush}) {
    if (cpu.has(i)) insns.emplace_back(flush_insn_name(i));
  }
  out.push_back(flush_finding(insns, std::string(flush_insn_name(libpmem_flush_insn()))));
  out.push_back(retention_finding(probe_clwb_retention()));
  const char* env = std::getenv("PMEM_MOVNT_THRESHOLD");
  out.push_back(movnt_finding(libpmem_movnt_threshold(), env != nullptr && *env != '\0'));
  out.push_back(interposition_finding(lib_hooks_bound()));
  out.push_back(numa_finding(numa()));
  out.push_back(smt_finding(threads_per_core()));
  out.push_back(llc_finding(llc_bytes()));
  const PmuStatus pmu = assess_pmu(observe_pmu(system_pmu_probe()));
  out.push_back(
      counters_finding(pmu.state == PmuState::kAvailable, pmu.detail, valgrind_version()));
  out.push_back(dcpmm_tools_finding(on_path("ipmctl"), on_path("ipmwatch")));
  out.push_back(
      governor_finding(read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")));
  const TscCalibration& tsc = tsc_calibration();
  out.push_back(tsc_finding(tsc.invariant, tsc.ticks_per_ns));
  struct utsname u {};
  uname(&u);
  out.push_back(versions_finding(PMEMIDS_PMDK_VERSION, PMEMIDS_MEMKIND_VERSION,
                                 fmt::format("{} {}", u.sysname, u.release)));
  return out;
}

}  // namespace pmemids::doctor
