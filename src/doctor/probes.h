// The measurements behind `pmemids doctor` (doctor/findings.h): each probes
// this machine and returns a Finding; run_doctor() makes them all.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "doctor/findings.h"

namespace pmemids::doctor {

// Median latency of a load of a line right after it was stored (and fenced),
// and after it was stored, written back with clwb (resp. clflush) and fenced:
// 2,001 trials each; nullopt when the CPU lacks clwb.
std::optional<LoadLatencies> probe_clwb_retention();

// Bytes of the last-level cache of CPU 0 (sysfs, else sysconf); 0 when unknown.
// What doctor reports, what run and micro records carry as context.llc_bytes.
uint64_t llc_bytes();

// Every finding, in the order they are printed. `pool_ok` is set false when
// the pool directory is unusable (the command then exits 1).
std::vector<Finding> run_doctor(const std::string& pool_dir, bool& pool_ok);

}  // namespace pmemids::doctor
