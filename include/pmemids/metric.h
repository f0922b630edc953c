// A structure's own metrics: what a structure counts about itself in its
// timed phase (combining sessions, spins), declared by the structure as
// static constexpr descriptors (ds/traits.h: kMetrics). A run record's
// metrics carry those of the structure that ran and no other's; `list --json`
// describes them and the report's field table reads them from there.
//
// The structure counts into the calling thread's cost counters
// (counters/cost_counters.h: tl_costs.ds[slot], one add per event, summed
// over workers); a metric is the ratio of one slot to another, or to the
// timed phase's operations.
#pragma once

#include <cstdint>
#include <string_view>

namespace pmemids {

// How many count slots a structure has (CostCounters::ds).
inline constexpr int kStructureCounts = 4;

struct Metric {
  static constexpr int kPerOp = -1;  // `per`: the timed phase's operations

  std::string_view name;  // the key in a record's metrics
  std::string_view help;  // what it measures, for `list --json`
  int count;              // the slot counted, in [0, kStructureCounts)
  int per = kPerOp;       // the slot it is divided by, or kPerOp
  int unless_zero = -1;   // null (not observed) when this slot counted nothing; -1: never
};

}  // namespace pmemids
