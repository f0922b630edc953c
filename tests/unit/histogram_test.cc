// LatencyHistogram: percentiles within the documented error of exact
// nearest-rank percentiles, exact aggregates, exact merges, edge values.
#include "stats/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "stats/live_latency.h"

namespace pmemids {
namespace {

constexpr int kS = LatencyHistogram::kSubBucketBits;
constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
__extension__ typedef unsigned __int128 u128;

static_assert(std::is_nothrow_move_constructible_v<LatencyHistogram>);
static_assert(LatencyHistogram::kMaxRelativeError == 1.0 / 256);

// Percentiles to check, as q in percent and in parts per million (the oracle's exact rank).
struct Q {
  double percent;
  uint64_t ppm;
};
constexpr Q kQs[] = {{0, 0},         {50, 500000},    {90, 900000},  {99, 990000},
                     {99.9, 999000}, {99.99, 999900}, {100, 1000000}};

// The nearest-rank percentile of sorted data, in integer arithmetic.
uint64_t exact_percentile(const std::vector<uint64_t>& sorted, uint64_t ppm) {
  const uint64_t n = sorted.size();
  const uint64_t rank = std::max<uint64_t>(1, (ppm * n + 999999) / 1000000);
  return sorted[rank - 1];
}

LatencyHistogram histogram_of(const std::vector<uint64_t>& data) {
  LatencyHistogram h;
  for (uint64_t v : data) h.record(v);
  return h;
}

// Aggregates exact; every percentile within x * 2^-(S+1) of the exact one x
// (equal to it when all data are below 2^(S+1)); p0/p100 exact; monotone in q.
void check_against_exact(const std::vector<uint64_t>& data, const std::string& name) {
  SCOPED_TRACE(name);
  const LatencyHistogram h = histogram_of(data);
  std::vector<uint64_t> sorted = data;
  std::sort(sorted.begin(), sorted.end());
  u128 sum = 0;
  for (uint64_t v : data) sum += v;

  EXPECT_EQ(h.count(), data.size());
  EXPECT_EQ(h.min(), sorted.front());
  EXPECT_EQ(h.max(), sorted.back());
  EXPECT_DOUBLE_EQ(h.mean(), static_cast<double>(sum) / static_cast<double>(data.size()));
  EXPECT_EQ(h.percentile(0), sorted.front());
  EXPECT_EQ(h.percentile(100), sorted.back());

  uint64_t previous = 0;
  for (const Q& q : kQs) {
    const uint64_t want = exact_percentile(sorted, q.ppm);
    const uint64_t got = h.percentile(q.percent);
    const uint64_t error = got > want ? got - want : want - got;
    EXPECT_LE(error, want >> (kS + 1)) << "p" << q.percent << " got " << got << " want " << want;
    if (sorted.back() < (uint64_t{2} << kS)) {
      EXPECT_EQ(got, want) << "p" << q.percent;
    }
    EXPECT_GE(got, previous) << "p" << q.percent << " below a lower percentile";
    previous = got;
  }
}

TEST(HistogramTest, PercentilesOfUniformWideRanges) {
  std::mt19937_64 rng(1);
  for (uint64_t hi : {uint64_t{1} << 20, uint64_t{1} << 40, kMax}) {
    std::uniform_int_distribution<uint64_t> dist(0, hi);
    std::vector<uint64_t> data(200000);
    for (auto& v : data) v = dist(rng);
    check_against_exact(data, "uniform [0, " + std::to_string(hi) + "]");
  }
}

TEST(HistogramTest, PercentilesOfHeavyTail) {
  std::mt19937_64 rng(2);
  std::lognormal_distribution<double> dist(10, 4);
  std::vector<uint64_t> data(200000);
  for (auto& v : data) v = static_cast<uint64_t>(std::min(dist(rng), 1e12));
  EXPECT_GT(*std::max_element(data.begin(), data.end()), uint64_t{100'000'000'000});
  check_against_exact(data, "lognormal(10, 4) capped at 1e12");
}

// Typical latencies: a dense mode around 200 ns and rare spikes of ~1 ms.
TEST(HistogramTest, PercentilesOfBimodalLatencies) {
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<uint64_t> fast(150, 400), slow(900'000, 1'100'000);
  std::bernoulli_distribution spike(0.002);
  std::vector<uint64_t> data(500000);
  for (auto& v : data) v = spike(rng) ? slow(rng) : fast(rng);
  check_against_exact(data, "bimodal");
}

TEST(HistogramTest, SmallValuesAreExact) {
  std::mt19937_64 rng(4);
  for (uint64_t hi : {uint64_t{(1 << kS) - 1}, uint64_t{(2 << kS) - 1}, uint64_t{3}}) {
    std::uniform_int_distribution<uint64_t> dist(0, hi);
    std::vector<uint64_t> data(100000);
    for (auto& v : data) v = dist(rng);
    check_against_exact(data, "uniform [0, " + std::to_string(hi) + "]");
  }
}

TEST(HistogramTest, ConstantAndSingleValueAreExact) {
  for (uint64_t v : {uint64_t{0}, uint64_t{123456789}, kMax}) {
    check_against_exact(std::vector<uint64_t>(10000, v), "constant " + std::to_string(v));
    check_against_exact({v}, "single " + std::to_string(v));
    const LatencyHistogram h = histogram_of({v});
    for (const Q& q : kQs) EXPECT_EQ(h.percentile(q.percent), v) << "p" << q.percent;
  }
}

TEST(HistogramTest, EmptyReportsZero) {
  const LatencyHistogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.mean(), 0.0);
  for (const Q& q : kQs) EXPECT_EQ(h.percentile(q.percent), 0u);
}

// Decimal q such as 99.9 is not representable in binary; the rank must still be
// the intended one (999 of 1000, not 1000).
TEST(HistogramTest, NearestRankOfDecimalPercentiles) {
  std::vector<uint64_t> data(1000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = i + 1;
  const LatencyHistogram thousand = histogram_of(data);
  const uint64_t p999 = thousand.percentile(99.9);
  EXPECT_LT(p999, 1000u);                      // rank 1000 would give exactly max = 1000
  EXPECT_GE(p999, 999u - (999u >> (kS + 1)));  // within the error bound of 999

  data.resize(200);  // all below 2^(S+1): exact
  const LatencyHistogram small = histogram_of(data);
  EXPECT_EQ(small.percentile(50), 100u);    // rank 100 exactly
  EXPECT_EQ(small.percentile(50.1), 101u);  // ceil(100.2) = 101
  EXPECT_EQ(small.percentile(99.5), 199u);  // rank 199 exactly
  EXPECT_EQ(small.percentile(0.1), 1u);     // ceil(0.2) = 1
  EXPECT_EQ(small.percentile(-5), 1u);      // clamped to p0
  EXPECT_EQ(small.percentile(250), 200u);   // clamped to p100
}

TEST(HistogramTest, EdgeValues) {
  const std::vector<uint64_t> values = {
      0, 1, (1u << kS) - 1, 1u << kS, (2u << kS) - 1, 2u << kS, uint64_t{1} << 63, kMax};
  LatencyHistogram h = histogram_of(values);
  const double n = static_cast<double>(values.size());
  EXPECT_EQ(h.count(), values.size());
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), kMax);
  // Sum 2^63 + 2^64 + 1278 needs more than 64 bits.
  EXPECT_DOUBLE_EQ(h.mean(), (0x1p63 + 0x1p64 + 1278) / n);
  // The k-th smallest, via a q strictly inside rank k's range.
  for (size_t k = 1; k <= values.size(); ++k) {
    const uint64_t got = h.percentile(100.0 * (static_cast<double>(k) - 0.5) / n);
    const uint64_t want = values[k - 1];
    if (want <= (2u << kS)) {
      EXPECT_EQ(got, want) << "rank " << k;
    } else {
      EXPECT_LE(got > want ? got - want : want - got, want >> (kS + 1)) << "rank " << k;
    }
  }
  EXPECT_EQ(h.percentile(100), kMax);

  LatencyHistogram two_max = histogram_of({kMax, kMax});
  EXPECT_DOUBLE_EQ(two_max.mean(), 0x1p64);  // a 64-bit sum would wrap to 2^64 - 2
  EXPECT_EQ(two_max.percentile(50), kMax);
}

TEST(HistogramTest, EqualityComparesBuckets) {
  // Same count, sum, min and max; 150 and 160 land in different buckets.
  EXPECT_FALSE(histogram_of({100, 150, 250, 300}) == histogram_of({100, 160, 240, 300}));
  EXPECT_TRUE(histogram_of({100, 150, 250, 300}) == histogram_of({300, 250, 150, 100}));
  EXPECT_FALSE(histogram_of({5}) == histogram_of({5, 5}));
}

TEST(HistogramTest, MergeIsExact) {
  std::mt19937_64 rng(5);
  std::lognormal_distribution<double> dist(8, 3);
  std::vector<uint64_t> data(100000);
  for (auto& v : data) v = static_cast<uint64_t>(std::min(dist(rng), 1e12));
  data.push_back(kMax);
  data.push_back(0);

  // Four "threads" with uneven shares.
  std::vector<LatencyHistogram> parts(4);
  for (size_t i = 0; i < data.size(); ++i) parts[(i * i) % 4].record(data[i]);
  LatencyHistogram merged;
  for (const auto& p : parts) merged.merge(p);
  const LatencyHistogram all = histogram_of(data);
  EXPECT_TRUE(merged == all);
  EXPECT_EQ(merged.count(), data.size());
  EXPECT_EQ(merged.min(), 0u);
  EXPECT_EQ(merged.max(), kMax);
  EXPECT_EQ(merged.mean(), all.mean());
  for (const Q& q : kQs) EXPECT_EQ(merged.percentile(q.percent), all.percentile(q.percent));

  LatencyHistogram reversed;
  for (size_t i = parts.size(); i-- > 0;) reversed.merge(parts[i]);
  EXPECT_TRUE(reversed == all);
}

TEST(HistogramTest, MergeWithEmpty) {
  const LatencyHistogram data = histogram_of({700, 30, 90000});

  LatencyHistogram with_empty = data;
  with_empty.merge(LatencyHistogram{});
  EXPECT_TRUE(with_empty == data);

  LatencyHistogram into_empty;
  into_empty.merge(data);
  EXPECT_TRUE(into_empty == data);
  EXPECT_EQ(into_empty.min(), 30u);
  EXPECT_EQ(into_empty.max(), 90000u);

  LatencyHistogram empty;
  empty.merge(LatencyHistogram{});
  EXPECT_EQ(empty.count(), 0u);
  EXPECT_EQ(empty.min(), 0u);
  EXPECT_EQ(empty.max(), 0u);
  into_empty.merge(empty);
  EXPECT_EQ(into_empty.min(), 30u);
}

TEST(HistogramTest, MoveKeepsContents) {
  LatencyHistogram h = histogram_of({1, 2, 1000000});
  const LatencyHistogram copy = h;
  LatencyHistogram moved = std::move(h);
  EXPECT_TRUE(moved == copy);
  moved.record(5);
  EXPECT_EQ(moved.count(), 4u);
}

// LiveLatency reads, per interval, what a LatencyHistogram of the interval's
// samples reads (inside the min-max clamp, which a live snapshot does not keep).
TEST(LiveLatencyTest, IntervalPercentilesMatchAHistogramOfTheInterval) {
  std::vector<std::unique_ptr<LiveLatency>> workers;
  workers.push_back(std::make_unique<LiveLatency>(2));
  workers.push_back(std::make_unique<LiveLatency>(2));
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> lat(8, 1.5);
  for (int i = 0; i < 5000; ++i) workers[i % 2]->record(0, static_cast<uint64_t>(lat(rng)));
  const LiveLatency::Snapshot first(workers);
  LatencyHistogram second_interval;
  for (int i = 0; i < 20000; ++i) {
    const auto v = static_cast<uint64_t>(lat(rng)) + 100000;  // a slower second interval
    workers[i % 2]->record(0, v);
    second_interval.record(v);
  }
  workers[1]->record(1, 42);
  const LiveLatency::Snapshot interval = LiveLatency::Snapshot(workers).since(first);
  EXPECT_EQ(first.count(0), 5000u);
  EXPECT_EQ(interval.count(0), 20000u);
  EXPECT_EQ(interval.count(1), 1u);
  for (double q : {50.0, 90.0, 99.0}) {
    EXPECT_EQ(interval.percentile(0, q), second_interval.percentile(q)) << q;
  }
  EXPECT_EQ(interval.percentile(1, 99), 42u);
  EXPECT_EQ(LiveLatency::Snapshot().percentile(0, 99), 0u);
}

}  // namespace
}  // namespace pmemids
