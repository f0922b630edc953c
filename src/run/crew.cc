#include "run/crew.h"

#include "workload/stream.h"

namespace pmemids {
namespace {

std::string duration_text(uint64_t ns) {
  if (ns < 1000) return fmt::format("{} ns", ns);
  if (ns < 1000000) return fmt::format("{:.1f} us", static_cast<double>(ns) / 1e3);
  return fmt::format("{:.2f} ms", static_cast<double>(ns) / 1e6);
}

}  // namespace

std::string status_line(double elapsed, uint64_t ops, double ops_per_sec,
                        const LiveLatency::Snapshot* interval) {
  std::string line = fmt::format("pmemids: status {:.1f} s: {} operations; {:.1f} current ops/sec",
                                 elapsed, ops, ops_per_sec);
  if (interval == nullptr) return line;
  std::string p99;
  for (int t = 0; t < kOpTypes; ++t) {
    if (interval->count(t) == 0) continue;
    p99 += fmt::format("{}{} {}", p99.empty() ? "; p99 " : ", ", op_name(static_cast<OpType>(t)),
                       duration_text(interval->percentile(t, 99)));
  }
  return line + p99;
}

}  // namespace pmemids
