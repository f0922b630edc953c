#include "counters/cost_counters.h"

namespace pmemids {
namespace {

// Applies f to every pair of corresponding fields of a and b.
template <class F>
void each_field(CostCounters& a, const CostCounters& b, F f) {
  f(a.persists, b.persists);
  f(a.flushed_lines, b.flushed_lines);
  f(a.flushes_elided, b.flushes_elided);
  f(a.fences, b.fences);
  f(a.tx, b.tx);
  f(a.tx_bytes, b.tx_bytes);
  f(a.tx_add_range_calls, b.tx_add_range_calls);
  f(a.tx_writes, b.tx_writes);
  f(a.allocs, b.allocs);
  f(a.frees, b.frees);
  f(a.translations, b.translations);
  f(a.lib_flushed_lines, b.lib_flushed_lines);
  f(a.lib_flushes_elided, b.lib_flushes_elided);
  f(a.lib_fences, b.lib_fences);
  f(a.injected_write_ns, b.injected_write_ns);
  f(a.injected_read_ns, b.injected_read_ns);
  for (int i = 0; i < kStructureCounts; ++i) f(a.ds[i], b.ds[i]);
}

}  // namespace

CostCounters& CostCounters::operator-=(const CostCounters& o) {
  each_field(*this, o, [](uint64_t& x, uint64_t y) { x -= y; });
  return *this;
}

CostCounters& CostCounters::operator+=(const CostCounters& o) {
  each_field(*this, o, [](uint64_t& x, uint64_t y) { x += y; });
  return *this;
}

}  // namespace pmemids
