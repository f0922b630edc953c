// LiveLatency: the sampled latencies one worker publishes while it runs, so the
// coordinator can print the current p99 per operation type in status lines.
//
// Bucket counts only, bucketed as LatencyHistogram buckets, one relaxed atomic
// per (operation type, bucket): the worker alone writes them (a load and a
// store, no read-modify-write), the coordinator reads them at any time; what it
// reads is at worst a few samples behind. The percentile of an interval is
// taken from the difference of two snapshots (Snapshot::since), so it is the
// percentile of the samples recorded in between, to within a bucket (0.4%).
// Memory: kOpTypes x kBuckets counters (about 350 KiB), allocated only when
// status lines are asked for.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "stats/histogram.h"

namespace pmemids {

class LiveLatency {
 public:
  static constexpr size_t kBuckets = LatencyHistogram::kBuckets;

  explicit LiveLatency(int types)
      : types_(types), counts_(new std::atomic<uint64_t>[size_t(types) * kBuckets]()) {}

  // Worker side: one sample of operation type `type`.
  void record(int type, uint64_t ns) {
    std::atomic<uint64_t>& c =
        counts_[size_t(type) * kBuckets + LatencyHistogram::bucket_index(ns)];
    c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }

  // Coordinator side: the counts of every worker's LiveLatency at one moment.
  class Snapshot {
   public:
    Snapshot() = default;
    // Sums `workers` (all with the same number of types).
    explicit Snapshot(const std::vector<std::unique_ptr<LiveLatency>>& workers);
    // The samples counted here and not in `before`, per type.
    Snapshot since(const Snapshot& before) const;
    uint64_t count(int type) const;
    // Nearest-rank percentile q (0-100) of type's samples, as a bucket
    // midpoint; 0 when there are none.
    uint64_t percentile(int type, double q) const;

   private:
    std::vector<std::vector<uint64_t>> counts_;  // [type][bucket]
  };

 private:
  int types_;
  std::unique_ptr<std::atomic<uint64_t>[]> counts_;
};

}  // namespace pmemids
