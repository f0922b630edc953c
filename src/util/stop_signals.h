// SIGINT and SIGTERM for the commands that create files (run, crash, micro;
// sweep passes them to its children with handlers of its own, sweep/child.h).
//
// The handler only records the signal (async-signal-safe: one lock-free atomic
// store). The main thread and the run's coordinator poll stop_requested() at
// safe points (between repetitions, every few thousand loaded elements, while
// workers run) and unwind with Interrupted: destructors then delete what this
// process created (pools it created even with --keep-pool, crash's work
// directory; never a --reopen'ed pool), and no record of the interrupted
// repetition is written. main() exits with 128 + the signal (130, 143).
// A second signal restores the default action and re-raises it: a stuck
// process can still be stopped, at the price of its files.
#pragma once

#include <chrono>
#include <cstdint>

#include "errors.h"

namespace pmemids {

// Idempotent; call before anything is created.
void install_stop_signals();
bool stop_requested();
int stop_signal();  // the first signal received, 0 if none

class Interrupted : public Error {
 public:
  explicit Interrupted(int sig);
};

// Throws Interrupted when a stop was requested.
void throw_if_stopped();

// How often a thread that waits (the run's coordinator, a throttled worker,
// crash waiting for a check or a workload process) looks for a stop.
inline constexpr std::chrono::milliseconds kStopPoll{50};

// For long untimed loops (stream generation, loading): throw_if_stopped()
// every kStopPollItems-th item, so the loop pays one test per item.
inline constexpr uint64_t kStopPollItems = 4096;
inline void throw_if_stopped_at(uint64_t item) {
  if (item % kStopPollItems == 0) throw_if_stopped();
}

}  // namespace pmemids
