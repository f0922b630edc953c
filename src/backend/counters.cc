#include "backend/counters.h"

namespace pmemids {

CostCounters& CostCounters::operator-=(const CostCounters& o) {
  persists -= o.persists;
  flushed_lines -= o.flushed_lines;
  tx -= o.tx;
  tx_bytes -= o.tx_bytes;
  allocs -= o.allocs;
  frees -= o.frees;
  translations -= o.translations;
  combine_sessions -= o.combine_sessions;
  combined_ops -= o.combined_ops;
  eliminated_ops -= o.eliminated_ops;
  spins -= o.spins;
  voluntary_switches -= o.voluntary_switches;
  involuntary_switches -= o.involuntary_switches;
  return *this;
}

CostCounters& CostCounters::operator+=(const CostCounters& o) {
  persists += o.persists;
  flushed_lines += o.flushed_lines;
  tx += o.tx;
  tx_bytes += o.tx_bytes;
  allocs += o.allocs;
  frees += o.frees;
  translations += o.translations;
  combine_sessions += o.combine_sessions;
  combined_ops += o.combined_ops;
  eliminated_ops += o.eliminated_ops;
  spins += o.spins;
  voluntary_switches += o.voluntary_switches;
  involuntary_switches += o.involuntary_switches;
  return *this;
}

}  // namespace pmemids
