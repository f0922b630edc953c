#include "pmem/latency.h"

#include <x86intrin.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <string>

#include "counters/cost_counters.h"

namespace pmemids {
namespace {

// Lines written back (pmemids' and libpmemobj's) by this thread up to its last
// fence under injection.
thread_local uint64_t tl_lines_at_fence = 0;

uint64_t lines_written_back() { return tl_costs.flushed_lines + tl_costs.lib_flushed_lines; }

bool cpu_flag(const std::string& name) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    return (line + " ").find(" " + name + " ") != std::string::npos;
  }
  return false;
}

TscCalibration calibrate() {
  using Clock = std::chrono::steady_clock;
  TscCalibration c;
  c.invariant = cpu_flag("constant_tsc") && cpu_flag("nonstop_tsc");
  const auto t0 = Clock::now();
  const uint64_t c0 = __rdtsc();
  while (Clock::now() - t0 < std::chrono::milliseconds(20)) {
  }
  const uint64_t c1 = __rdtsc();
  const auto t1 = Clock::now();
  const double ns = std::chrono::duration<double, std::nano>(t1 - t0).count();
  c.ticks_per_ns = static_cast<double>(c1 - c0) / ns;
  c.measured_ms = ns / 1e6;
  return c;
}

// No pause instruction in the loop: under a hypervisor, pause loops trigger
// pause-loop exits that can yield the virtual CPU, and a stalled write-back
// does not give its core away either.
void spin(uint64_t ticks) {
  const uint64_t start = __rdtsc();
  while (__rdtsc() - start < ticks) {
  }
}

}  // namespace

const TscCalibration& tsc_calibration() {
  static const TscCalibration c = calibrate();
  return c;
}

void set_injection(double write_ns, double read_ns) {
  LatencyInjection in;
  if (write_ns > 0 || read_ns > 0) {
    const double t = tsc_calibration().ticks_per_ns;
    in.write_ticks = write_ns > 0 ? std::max<uint64_t>(1, std::llround(write_ns * t)) : 0;
    in.read_ticks = read_ns > 0 ? std::max<uint64_t>(1, std::llround(read_ns * t)) : 0;
    in.write_ns = static_cast<uint64_t>(std::llround(write_ns));
    in.read_ns = static_cast<uint64_t>(std::llround(read_ns));
  }
  g_injection = in;
  tl_lines_at_fence = lines_written_back();
}

void inject_read() {
  spin(g_injection.read_ticks);
  tl_costs.injected_read_ns += g_injection.read_ns;
}

void inject_write_at_fence() {
  const uint64_t now = lines_written_back();
  const uint64_t lines = now - tl_lines_at_fence;
  tl_lines_at_fence = now;
  if (lines == 0) return;
  spin(lines * g_injection.write_ticks);
  tl_costs.injected_write_ns += lines * g_injection.write_ns;
}

nlohmann::json injection_context() {
  if (g_injection.write_ticks == 0 && g_injection.read_ticks == 0) return nullptr;
  const TscCalibration& c = tsc_calibration();
  return {{"tsc_ticks_per_ns", c.ticks_per_ns},
          {"calibration_ms", c.measured_ms},
          {"invariant_tsc", c.invariant}};
}

}  // namespace pmemids
