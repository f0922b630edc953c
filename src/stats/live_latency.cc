#include "stats/live_latency.h"

#include <cmath>
#include <numeric>

namespace pmemids {

LiveLatency::Snapshot::Snapshot(const std::vector<std::unique_ptr<LiveLatency>>& workers) {
  if (workers.empty()) return;
  const int types = workers.front()->types_;
  counts_.assign(size_t(types), std::vector<uint64_t>(kBuckets, 0));
  for (const auto& w : workers) {
    for (int t = 0; t < types; ++t) {
      for (size_t b = 0; b < kBuckets; ++b) {
        counts_[t][b] += w->counts_[size_t(t) * kBuckets + b].load(std::memory_order_relaxed);
      }
    }
  }
}

LiveLatency::Snapshot LiveLatency::Snapshot::since(const Snapshot& before) const {
  Snapshot out = *this;
  if (before.counts_.size() != counts_.size()) return out;
  for (size_t t = 0; t < counts_.size(); ++t) {
    for (size_t b = 0; b < kBuckets; ++b) out.counts_[t][b] -= before.counts_[t][b];
  }
  return out;
}

uint64_t LiveLatency::Snapshot::count(int type) const {
  if (size_t(type) >= counts_.size()) return 0;
  return std::accumulate(counts_[type].begin(), counts_[type].end(), uint64_t{0});
}

uint64_t LiveLatency::Snapshot::percentile(int type, double q) const {
  const uint64_t n = count(type);
  if (n == 0) return 0;
  const auto rank = std::max<uint64_t>(
      1,
      static_cast<uint64_t>(std::ceil(std::clamp(q, 0.0, 100.0) / 100 * static_cast<double>(n))));
  uint64_t seen = 0;
  for (size_t b = 0; b < kBuckets; ++b) {
    seen += counts_[type][b];
    if (seen >= rank) return LatencyHistogram::bucket_midpoint(b);
  }
  return 0;
}

}  // namespace pmemids
