// The Mann-Whitney U test (Wilcoxon rank-sum), two-sided, of two independent
// samples: is one side's distribution shifted against the other's?
//
// U counts the pairs (a_i, b_j) with b_j > a_i, a tie counting 1/2 (so U = 0
// when every b is below every a, U = m n when above). Without ties and with
// both samples of at most kExactMax values, p comes from U's exact null
// distribution (every ordering of the m + n values equally likely): p =
// min(1, 2 P(U <= min(U, m n - U))). Otherwise from the normal approximation
// with tie correction and continuity correction:
//   mean m n / 2, variance m n / 12 ((N + 1) - sum(t^3 - t) / (N (N - 1))),
//   z = (|U - m n / 2| - 1/2) / sd, p = min(1, erfc(z / sqrt 2)),
// where N = m + n and t runs over the sizes of groups of tied values; p = 1 when
// every value is tied. p is NaN when a sample is empty.
#pragma once

#include <cstddef>
#include <span>

namespace pmemids {

struct MannWhitney {
  double u = 0;        // U of b against a
  double p = 0;        // two-sided p-value
  bool exact = false;  // from the exact distribution
};

inline constexpr size_t kMannWhitneyExactMax = 30;

MannWhitney mann_whitney(std::span<const double> a, std::span<const double> b);

// The smallest two-sided p-value any samples of sizes m and n can give:
// 2 / C(m + n, m) (all of one side above the other, no ties), at most 1.
double mann_whitney_min_p(size_t m, size_t n);

}  // namespace pmemids
