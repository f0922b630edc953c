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
  return *this;
}

}  // namespace pmemids
