#include "stats/histogram.h"

#include <cmath>

namespace pmemids {

void LatencyHistogram::merge(const LatencyHistogram& other) {
  for (size_t i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

uint64_t LatencyHistogram::percentile(double q) const {
  if (count_ == 0) return 0;
  // rank = ceil(q_nano * count / 1e11) in exact integer arithmetic, q_nano = q in 1e-9 units.
  constexpr uint64_t kScale = 100'000'000'000;
  const auto q_nano = static_cast<uint64_t>(std::llround(q > 0 ? std::min(q, 100.0) * 1e9 : 0.0));
  const uint64_t rank = std::max<uint64_t>(1, (uint128{q_nano} * count_ + kScale - 1) / kScale);
  if (rank == 1) return min_;
  if (rank == count_) return max_;

  size_t i = 0;
  for (uint64_t seen = counts_[0]; seen < rank;) seen += counts_[++i];

  return std::clamp(bucket_midpoint(i), min_, max_);
}

double LatencyHistogram::mean() const {
  return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0;
}

}  // namespace pmemids
