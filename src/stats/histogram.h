// LatencyHistogram: a log-linear histogram of uint64_t values (latencies in ns).
//
// Bucketing (S = kSubBucketBits = 7): values below 2^(S+1) = 256 each have their
// own bucket; above that, every power-of-two range [2^e, 2^(e+1)), e > S, is
// split into 2^S = 128 equal sub-buckets of width 2^(e-S). All of [0, UINT64_MAX] is
// covered by kBuckets = (65 - S) * 2^S = 7424 buckets.
//
// Exact: count, min, max, sum (an unsigned 128-bit integer, so it cannot
// overflow before 2^64 samples) and hence mean() up to the rounding of one
// 128-bit -> double conversion and one division; bucket counts, so merge() is
// exact: merging histograms of A and B equals, bucket for bucket and in every
// aggregate, the histogram of A and B's values recorded into one.
// Approximate: percentile() returns min for rank 1, max for rank count (so p0 and
// p100 are exact), and otherwise the midpoint of the bucket holding the
// nearest-rank sample, clamped into [min, max]. It differs from the exact
// nearest-rank percentile x by at most x * 2^-(S+1) = x / 256 (0.39%), and is
// exact for x < 256.
//
// Thread safety: none. Use one histogram per thread and merge after joining.
// Memory: kBuckets 64-bit counters (58 KiB) allocated once at construction, plus
// a 64-byte object; record() never allocates. Copyable and movable; a moved-from
// histogram may only be assigned to or destroyed.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace pmemids {

class LatencyHistogram {
 public:
  static constexpr int kSubBucketBits = 7;
  static constexpr size_t kBuckets = size_t{65 - kSubBucketBits} << kSubBucketBits;
  static constexpr double kMaxRelativeError = 1.0 / (2 << kSubBucketBits);

  LatencyHistogram() : counts_(kBuckets) {}

  void record(uint64_t v) {
    ++counts_[bucket_index(v)];
    ++count_;
    sum_ += v;
    min_ = std::min(min_, v);
    max_ = std::max(max_, v);
  }

  void merge(const LatencyHistogram& other);

  // Nearest-rank percentile for q in [0, 100] (outside is clamped, NaN is 0):
  // the value of the rank-th smallest sample, rank = max(1, ceil(q / 100 * count)),
  // with q first rounded to a multiple of 1e-9 so decimal inputs such as 99.9
  // give the intended rank. Approximate as stated above; 0 when empty.
  uint64_t percentile(double q) const;

  uint64_t count() const { return count_; }
  uint64_t min() const { return count_ ? min_ : 0; }  // 0 when empty
  uint64_t max() const { return max_; }               // 0 when empty
  double mean() const;                                // 0 when empty

  // Equal iff every bucket and every aggregate is equal (verifies merge exactness).
  bool operator==(const LatencyHistogram&) const = default;

  // shift = max(0, bit_width(v) - (S+1)) low bits are dropped; the S+1 bits left
  // (the top significant ones, or all of v below 2^(S+1)) select the sub-bucket.
  // Bucket i thus covers 2^shift values starting at (i - shift * 2^S) << shift.
  static size_t bucket_index(uint64_t v) {
    const int bits = static_cast<int>(std::bit_width(v));
    const int shift = std::max(bits, kSubBucketBits + 1) - (kSubBucketBits + 1);
    return (static_cast<size_t>(shift) << kSubBucketBits) + static_cast<size_t>(v >> shift);
  }
  // The midpoint of bucket i: what a percentile falling in it reads.
  static uint64_t bucket_midpoint(size_t i) {
    const size_t shift = std::max<size_t>(i >> kSubBucketBits, 1) - 1;
    const uint64_t low = static_cast<uint64_t>(i - (shift << kSubBucketBits)) << shift;
    return low + ((uint64_t{1} << shift) - 1) / 2;
  }

 private:
  __extension__ typedef unsigned __int128 uint128;

  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  uint64_t min_ = std::numeric_limits<uint64_t>::max();
  uint64_t max_ = 0;
  uint128 sum_ = 0;
};

}  // namespace pmemids
