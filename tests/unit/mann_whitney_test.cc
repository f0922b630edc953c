// Mann-Whitney U against values computed by hand.
#include "stats/mann_whitney.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace pmemids {
namespace {

using V = std::vector<double>;

TEST(MannWhitneyTest, ExactWhenOneSideIsAllAbove) {
  // 3 vs 3: 20 orderings, one with U = 9 and one with U = 0: p = 2/20.
  MannWhitney r = mann_whitney(V{1, 2, 3}, V{4, 5, 6});
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.u, 9);
  EXPECT_DOUBLE_EQ(r.p, 0.1);
  r = mann_whitney(V{4, 5, 6}, V{1, 2, 3});
  EXPECT_EQ(r.u, 0);
  EXPECT_DOUBLE_EQ(r.p, 0.1);
  // 4 vs 4: 2/70.
  EXPECT_DOUBLE_EQ(mann_whitney(V{1, 2, 3, 4}, V{5, 6, 7, 8}).p, 2.0 / 70);
}

TEST(MannWhitneyTest, ExactDistributionInTheMiddle) {
  // a = 1 3 5, b = 2 4 6: b beats a in 1 + 2 + 3 = 6 pairs. The counts of U =
  // 0..9 over the 20 orderings of 3 vs 3 are 1 1 2 3 3 3 3 2 1 1, so P(U <= 3)
  // = 7/20 and p = 2 * 7/20.
  const MannWhitney r = mann_whitney(V{1, 3, 5}, V{2, 4, 6});
  EXPECT_EQ(r.u, 6);
  EXPECT_DOUBLE_EQ(r.p, 0.7);
  // a = 1 2, b = 1.5 3 4: pairs with b above a: 1.5 > 1; 3 > 1, 2; 4 > 1, 2: U = 5 of
  // 6. Counts of U = 0..6 over the 10 orderings of 2 vs 3: 1 1 2 2 2 1 1; P(U >= 5) =
  // 2/10, p = 0.4.
  EXPECT_DOUBLE_EQ(mann_whitney(V{1, 2}, V{1.5, 3, 4}).p, 0.4);
  // Identical samples sit at the centre: p = 1.
  EXPECT_DOUBLE_EQ(mann_whitney(V{1, 4}, V{2, 3}).p, 1.0);
}

TEST(MannWhitneyTest, NormalApproximationWithTies) {
  // a = 1 2 2 3, b = 2 3 4 5. Ranks: 1 -> 1; the three 2s -> 3; the two 3s -> 5.5;
  // 4 -> 7; 5 -> 8. b's rank sum 3 + 5.5 + 7 + 8 = 23.5, U = 23.5 - 4 * 5 / 2 = 13.5.
  // Ties 3 and 2: sum(t^3 - t) = 24 + 6 = 30. var = 16/12 * (9 - 30/56) = 11.285714;
  // z = (13.5 - 8 - 0.5) / sqrt(var) = 1.488351; p = erfc(z / sqrt 2) = 0.136658.
  const MannWhitney r = mann_whitney(V{1, 2, 2, 3}, V{2, 3, 4, 5});
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 13.5);
  EXPECT_NEAR(r.p, 0.1366582, 1e-6);
  // Everything tied: no evidence at all.
  EXPECT_DOUBLE_EQ(mann_whitney(V{7, 7}, V{7, 7, 7}).p, 1.0);
}

TEST(MannWhitneyTest, NormalApproximationBeyondTheExactSizes) {
  // 31 vs 31, b all above: U = 961, mean 480.5, var = 961 * 63 / 12 = 5045.25,
  // z = (480.5 - 0.5) / 71.02992 = 6.757716, p = erfc(z / sqrt 2) = 1.40e-11.
  V a, b;
  for (int i = 0; i < 31; ++i) {
    a.push_back(i);
    b.push_back(100 + i);
  }
  const MannWhitney r = mann_whitney(a, b);
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.u, 961);
  EXPECT_NEAR(r.p, std::erfc(480.0 / std::sqrt(5045.25) / std::sqrt(2.0)), 1e-20);
  EXPECT_LT(r.p, 1e-10);
}

TEST(MannWhitneyTest, SmallestReachablePValue) {
  EXPECT_DOUBLE_EQ(mann_whitney_min_p(3, 3), 0.1);
  EXPECT_DOUBLE_EQ(mann_whitney_min_p(4, 4), 2.0 / 70);
  EXPECT_DOUBLE_EQ(mann_whitney_min_p(3, 4), 2.0 / 35);
  EXPECT_DOUBLE_EQ(mann_whitney_min_p(1, 1), 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_min_p(0, 5), 1.0);
  EXPECT_TRUE(std::isnan(mann_whitney(V{}, V{1}).p));
}

}  // namespace
}  // namespace pmemids
