// What a run counts around each worker's timed phase (`--counters`), and the
// calls the crew (run/crew.h) makes for it.
//
//   none  nothing: the crew makes no call.
//   perf  perf_event_open per worker (counters/perf_events.h): open(t) on the
//         worker after its set-up and before the start barrier (events start
//         disabled, so set-up and load are never counted), begin(t) after the
//         barrier just before the worker's first clock read (one ioctl per
//         group), end(t) just after its last clock read. total() after the
//         crew has joined sums the workers.
//   sim   callgrind client requests (counters/sim.h): begin(t) and end(t)
//         switch event collection on and off for the calling worker; the
//         coordinator's set-up and collection calls are made by `run`.
//
// One CrewCounters serves one repetition at a time; open() forgets the
// previous repetition's counters of that worker.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "counters/perf_events.h"
#include "counters/sim.h"

namespace pmemids {

enum class CounterMode : uint8_t { kNone, kPerf, kSim };

// "none", "perf", "sim"; a UsageError naming them otherwise.
CounterMode parse_counter_mode(const std::string& word);

class CrewCounters {
 public:
  CrewCounters(CounterMode mode, const PerfEventSet& events, int threads);

  CounterMode mode() const { return mode_; }

  void open(int t) {
    if (mode_ == CounterMode::kPerf) perf_[static_cast<size_t>(t)].open(events_);
  }
  void begin(int t) {
    if (mode_ == CounterMode::kPerf) perf_[static_cast<size_t>(t)].enable();
    if (mode_ == CounterMode::kSim) sim::worker_begins();
  }
  void end(int t) {
    if (mode_ == CounterMode::kPerf) perf_[static_cast<size_t>(t)].disable();
    if (mode_ == CounterMode::kSim) sim::worker_ends();
  }

  // perf: the workers' counts summed (an event null in one worker is null).
  PerfCounts total() const;

 private:
  CounterMode mode_;
  PerfEventSet events_;
  std::vector<PerfThreadCounters> perf_;
};

}  // namespace pmemids
