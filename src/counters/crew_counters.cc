#include "counters/crew_counters.h"

#include <fmt/format.h>

#include "errors.h"

namespace pmemids {

CounterMode parse_counter_mode(const std::string& word) {
  if (word == "none") return CounterMode::kNone;
  if (word == "perf") return CounterMode::kPerf;
  if (word == "sim") return CounterMode::kSim;
  throw UsageError(fmt::format(
      "--counters '{}': accepted: none, perf (hardware and software events, perf_event_open), "
      "sim (simulated caches, valgrind's callgrind)",
      word));
}

CrewCounters::CrewCounters(CounterMode mode, const PerfEventSet& events, int threads)
    : mode_(mode), events_(events) {
  if (mode_ == CounterMode::kPerf) perf_.resize(static_cast<size_t>(threads));
}

PerfCounts CrewCounters::total() const {
  PerfCounts sum = perf_.at(0).read();
  for (size_t t = 1; t < perf_.size(); ++t) sum += perf_[t].read();
  return sum;
}

}  // namespace pmemids
