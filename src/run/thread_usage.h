// CPU time, context switches and run-queue wait of one thread's timed phase.
//
// ThreadUsage::now() reads the calling thread's counters: getrusage(RUSAGE_THREAD)
// for CPU time and context switches, and the second field of
// /proc/thread-self/schedstat for the time it spent runnable but waiting for a
// CPU (its run-queue wait: time other work took from it). The difference of two
// readings taken around a timed phase is that phase's usage. Reading costs a few
// system calls: never inside a timed loop.
//
// run_delay_seconds is NaN where the kernel does not provide schedstat
// (CONFIG_SCHED_INFO off); sums and differences then stay NaN, and records
// write null.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

namespace pmemids {

struct ThreadUsage {
  double user_seconds = 0;
  double system_seconds = 0;
  uint64_t voluntary_switches = 0;
  uint64_t involuntary_switches = 0;
  double run_delay_seconds = 0;  // runnable, waiting for a CPU; NaN: not known

  static ThreadUsage now();
  ThreadUsage& operator-=(const ThreadUsage& o);
  ThreadUsage& operator+=(const ThreadUsage& o);
};

// A record's fields of a usage: cpu_user_seconds, cpu_system_seconds,
// voluntary_context_switches, involuntary_context_switches, run_delay_seconds
// (null when not known).
nlohmann::json usage_json(const ThreadUsage& u);

// The run-queue wait in nanoseconds from a schedstat file ("<on-cpu ns> <wait ns>
// <timeslices>", anything after them ignored), or nothing when the file cannot be
// read or does not start with those three numbers.
std::optional<uint64_t> run_delay_ns(const char* schedstat_path);

}  // namespace pmemids
