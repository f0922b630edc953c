#include "counters/pmu.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace pmemids {
namespace {

namespace fs = std::filesystem;

bool is_core_pmu(const fs::path& source) {
  const std::string name = source.filename().string();
  if (name == "cpu" || name == "cpu_core" || name == "cpu_atom") return true;
  if (name.rfind("armv", 0) == 0) return true;
  std::error_code ec;
  return fs::exists(source / "events" / "cpu-cycles", ec) ||
         fs::exists(source / "events" / "cpu_cycles", ec);
}

int open_instructions_event() {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_INSTRUCTIONS;
  attr.disabled = 1;
  attr.exclude_kernel = 1;  // allowed at every paranoid level below 3
  attr.exclude_hv = 1;
  const long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) return errno;
  close(static_cast<int>(fd));
  return 0;
}

std::string errno_text(int e) { return fmt::format("{} ({})", std::strerror(e), e); }

}  // namespace

PmuProbe system_pmu_probe() {
  PmuProbe p;
  p.open_hardware_event = open_instructions_event;
  return p;
}

PmuFacts observe_pmu(const PmuProbe& probe) {
  PmuFacts f;
  f.sysfs_dir = probe.sysfs_dir;
  std::error_code ec;
  for (fs::directory_iterator it(probe.sysfs_dir, ec), end; !ec && it != end; it.increment(ec)) {
    f.event_sources.push_back(it->path().filename().string());
    if (is_core_pmu(it->path())) f.core_pmu_listed = true;
  }
  std::sort(f.event_sources.begin(), f.event_sources.end());
  std::ifstream in(probe.paranoid_file);
  if (!(in >> f.paranoid)) f.paranoid = -1;
  f.open_errno = probe.open_hardware_event ? probe.open_hardware_event() : ENOSYS;
  return f;
}

PmuStatus assess_pmu(const PmuFacts& f) {
  const std::string listed =
      f.event_sources.empty()
          ? fmt::format("{} lists no event sources", f.sysfs_dir)
          : fmt::format("{} lists {}", f.sysfs_dir, fmt::join(f.event_sources, ", "));
  if (f.open_errno == 0) {
    return {PmuState::kAvailable, "perf_event_open of a hardware event (instructions) succeeded"};
  }
  const std::string failed = fmt::format(
      "perf_event_open of a hardware event (instructions) failed: {}", errno_text(f.open_errno));
  if (f.open_errno == EACCES || f.open_errno == EPERM) {
    const std::string paranoid = f.paranoid >= 0
                                     ? fmt::format("kernel.perf_event_paranoid is {}", f.paranoid)
                                     : std::string("kernel.perf_event_paranoid is unknown");
    return {PmuState::kRefused,
            fmt::format("{}; {} (counting needs it at 2 or below for user space, or "
                        "CAP_PERFMON)",
                        failed, paranoid)};
  }
  if (f.open_errno == EBUSY) {
    return {
        PmuState::kRefused,
        fmt::format("{}: the counters are taken (another profiler, or the NMI watchdog)", failed)};
  }
  if (!f.core_pmu_listed) {
    return {PmuState::kAbsent,
            fmt::format("no CPU PMU: {} (no core PMU such as 'cpu'); {}", listed, failed)};
  }
  return {PmuState::kAbsent,
          fmt::format("the kernel lists a CPU PMU but counts no hardware event (typical of a "
                      "virtual machine without a virtual PMU): {}; {}",
                      listed, failed)};
}

std::string pmu_refusal(const PmuStatus& s) {
  if (s.state == PmuState::kRefused) {
    return fmt::format(
        "--counters perf: hardware events are refused here: {}. Use --counters sim for "
        "simulated cache counts (callgrind), or --perf-events software for page faults and "
        "context switches only",
        s.detail);
  }
  return fmt::format(
      "--counters perf: this machine has no hardware performance counters: {}. Use --counters "
      "sim for simulated cache counts (callgrind), or --perf-events software for page faults "
      "and context switches only",
      s.detail);
}

}  // namespace pmemids
