// summarize() on hand-computed data, NaN for undefined fields, and
// Student's t quantiles against published and high-precision values.
#include "stats/summary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace pmemids {
namespace {

void expect_rel(double got, double want, double rel) {
  EXPECT_NEAR(got, want, std::abs(want) * rel);
}

TEST(SummaryTest, HandComputedEvenN) {
  const std::vector<double> xs = {9, 4, 2, 5, 4, 7, 4, 5};  // {2,4,4,4,5,5,7,9} shuffled
  const std::vector<double> before = xs;
  const Summary s = summarize(xs);
  EXPECT_EQ(xs, before);  // input not sorted in place
  EXPECT_EQ(s.n, 8u);
  EXPECT_DOUBLE_EQ(s.mean, 5);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(32.0 / 7));  // squared deviations sum to 32
  EXPECT_DOUBLE_EQ(s.cv, std::sqrt(32.0 / 7) / 5);
  EXPECT_EQ(s.min, 2);
  EXPECT_EQ(s.max, 9);
  const double half = 2.365 * std::sqrt(32.0 / 7) / std::sqrt(8.0);  // t(0.975, 7) = 2.365
  expect_rel(s.ci95_low, 5 - half, 1e-3);
  expect_rel(s.ci95_high, 5 + half, 1e-3);
}

TEST(SummaryTest, MedianOfOddAndTwoValues) {
  EXPECT_EQ(summarize(std::vector<double>{3, 1, 2}).median, 2);
  EXPECT_EQ(summarize(std::vector<double>{10, 1, 7, 3, 2}).median, 3);
  const Summary two = summarize(std::vector<double>{1, 3});
  EXPECT_EQ(two.median, 2);
  EXPECT_DOUBLE_EQ(two.stddev, std::sqrt(2.0));
  // half width = t(0.975, 1) * sqrt(2) / sqrt(2) = 12.706
  expect_rel(two.ci95_low, 2 - 12.706, 1e-4);
  expect_rel(two.ci95_high, 2 + 12.706, 1e-4);
}

TEST(SummaryTest, OneValueHasNoSpread) {
  const Summary s = summarize(std::vector<double>{42});
  EXPECT_EQ(s.n, 1u);
  EXPECT_EQ(s.mean, 42);
  EXPECT_EQ(s.median, 42);
  EXPECT_EQ(s.min, 42);
  EXPECT_EQ(s.max, 42);
  EXPECT_TRUE(std::isnan(s.stddev));
  EXPECT_TRUE(std::isnan(s.cv));
  EXPECT_TRUE(std::isnan(s.ci95_low));
  EXPECT_TRUE(std::isnan(s.ci95_high));
}

TEST(SummaryTest, NoValuesIsAllNaN) {
  const Summary s = summarize({});
  EXPECT_EQ(s.n, 0u);
  for (double v : {s.mean, s.median, s.stddev, s.cv, s.min, s.max, s.ci95_low, s.ci95_high})
    EXPECT_TRUE(std::isnan(v));
}

TEST(SummaryTest, ZeroMeanHasNaNCv) {
  const Summary s = summarize(std::vector<double>{-1, 1});
  EXPECT_EQ(s.mean, 0);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(2.0));
  EXPECT_TRUE(std::isnan(s.cv));
  EXPECT_FALSE(std::isnan(s.ci95_low));
}

// For 0, 1, ..., n-1 the mean is (n-1)/2 and the variance n(n+1)/12; the
// interval's half width divided by stddev / sqrt(n) is t(0.975, n-1).
TEST(SummaryTest, LargeNUsesTheTApproximation) {
  for (auto [n, t] : {std::pair<size_t, double>{101, 1.984}, {1001, 1.962}}) {
    std::vector<double> xs(n);
    for (size_t i = 0; i < n; ++i) xs[i] = static_cast<double>(i);
    const Summary s = summarize(xs);
    EXPECT_DOUBLE_EQ(s.mean, (n - 1) / 2.0);
    EXPECT_DOUBLE_EQ(s.median, (n - 1) / 2.0);
    EXPECT_NEAR(s.stddev, std::sqrt(n * (n + 1) / 12.0), 1e-9 * s.stddev);
    const double se = s.stddev / std::sqrt(static_cast<double>(n));
    expect_rel((s.ci95_high - s.mean) / se, t, 1e-3);
    expect_rel((s.mean - s.ci95_low) / se, t, 1e-3);
  }
}

TEST(SummaryTest, StudentTTableMatchesPublishedValues) {
  const std::pair<size_t, double> published[] = {{1, 12.706}, {2, 4.303},  {3, 3.182},
                                                 {4, 2.776},  {5, 2.571},  {7, 2.365},
                                                 {10, 2.228}, {20, 2.086}, {30, 2.042}};
  for (auto [df, t] : published) EXPECT_NEAR(student_t975(df), t, 5e-4) << "df " << df;
  EXPECT_TRUE(std::isnan(student_t975(0)));
}

// References computed to 12 digits by inverting the t CDF (mpmath).
TEST(SummaryTest, StudentTApproximationBeyondTheTable) {
  const std::pair<size_t, double> exact[] = {
      {31, 2.03951344640},  {40, 2.02107539031},   {60, 2.00029782201},     {100, 1.98397151852},
      {120, 1.97993040508}, {1000, 1.96233908083}, {1000000, 1.95996635681}};
  for (auto [df, t] : exact) expect_rel(student_t975(df), t, 1e-7);
  expect_rel(student_t975(size_t{1} << 50), 1.959963984540054, 1e-12);
  for (size_t df = 2; df <= 5000; ++df)
    ASSERT_LT(student_t975(df), student_t975(df - 1)) << "not decreasing at df " << df;
}

}  // namespace
}  // namespace pmemids
