// Is there a CPU performance monitoring unit (PMU) this process may count
// hardware events with? Two observations decide it: whether the kernel lists a
// core PMU among its event sources (/sys/bus/event_source/devices: `cpu` on
// x86, `cpu_core`/`cpu_atom` on hybrid Intel, `armv8_pmuv3*` and the like on Arm,
// or any source with an events/cpu-cycles file), and whether perf_event_open of
// a hardware event (instructions, user space, this thread) succeeds. The open
// is what counts; the listing explains a failure (a VM without a virtual PMU
// lists none; a kernel that lists one but refuses the event is restricted by
// perf_event_paranoid or out of counters).
//
// Observation and judgement are separate so tests can inject what a machine
// would show: observe_pmu(probe) with a fake sysfs directory and open
// function, assess_pmu(facts) with made-up facts.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace pmemids {

struct PmuFacts {
  std::string sysfs_dir;                   // where event sources were listed
  std::vector<std::string> event_sources;  // its entries, sorted
  bool core_pmu_listed = false;            // one of them is a CPU core PMU
  int open_errno = 0;                      // of the hardware event; 0: it opened
  int paranoid = -1;                       // kernel.perf_event_paranoid; -1: unknown
};

struct PmuProbe {
  std::string sysfs_dir = "/sys/bus/event_source/devices";
  std::string paranoid_file = "/proc/sys/kernel/perf_event_paranoid";
  // Opens (and closes) one hardware event; returns 0 or the errno of the failure.
  std::function<int()> open_hardware_event;
};

// The real probe: this machine's sysfs and perf_event_open.
PmuProbe system_pmu_probe();

PmuFacts observe_pmu(const PmuProbe& probe);

enum class PmuState { kAvailable, kAbsent, kRefused };

struct PmuStatus {
  PmuState state = PmuState::kAbsent;
  std::string detail;  // one sentence: what was observed and, if not available, why
};

PmuStatus assess_pmu(const PmuFacts& facts);

// The message `--counters perf` exits 2 with when hardware events are wanted
// and status is not available; it names --counters sim as the alternative.
std::string pmu_refusal(const PmuStatus& status);

}  // namespace pmemids
