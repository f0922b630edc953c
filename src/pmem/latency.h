// What-if media latency: busy-waits that make emulated PMEM behave, for the
// CPU, as if its media were slower (--pmem-write-ns, --pmem-read-ns,
// --pmem-profile).
//
// Contract:
//   write  at every fence (pmemids' own and libpmemobj's), the calling thread
//          waits write_ns for each line written back (flushed or non-temporal)
//          since its previous fence;
//   read   every translation of a persistent pointer (one per persistent node
//          visited) waits read_ns.
// Waits spin on the time-stamp counter, calibrated once against the steady
// clock. What the model leaves out: bandwidth (concurrent writers do not slow
// each other down), media buffering and write combining (a line flushed twice
// costs twice), and reads of lines already in the CPU caches (every visit
// pays). With both latencies 0 (the default) nothing is waited and the only
// cost is one predictable branch per fence and per translation.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

namespace pmemids {

struct TscCalibration {
  double ticks_per_ns = 0;  // time-stamp counter ticks per nanosecond
  double measured_ms = 0;   // length of the calibration window
  bool invariant = false;   // the CPU reports a constant, non-stop TSC
};

// Measured on first use (about 20 ms), then fixed for the process.
const TscCalibration& tsc_calibration();

// The active injection: tick counts derived from the installed policy.
struct LatencyInjection {
  uint64_t write_ticks = 0;  // per line, at the fence
  uint64_t read_ticks = 0;   // per translation
  uint64_t write_ns = 0;     // the same, in ns, for the counters
  uint64_t read_ns = 0;
};
inline LatencyInjection g_injection;

// Sets g_injection (calibrating when a latency is non-zero) and restarts the
// calling thread's line count for the next fence. Call before workers start.
void set_injection(double write_ns, double read_ns);

// The waits, out of line: called only when the corresponding ticks are non-zero.
void inject_read();
void inject_write_at_fence();

// {"tsc_ticks_per_ns", "calibration_ms", "invariant_tsc"}; null when no
// latency is injected (no calibration was needed).
nlohmann::json injection_context();

}  // namespace pmemids
