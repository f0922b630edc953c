#include "stats/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace pmemids {
namespace {

// Orderings of m + n values giving each U = 0 .. m n: the coefficients of the
// Gaussian binomial [m + n choose m]_q, built as prod_{i=1..m} (1 - q^(n+i)) /
// (1 - q^i); after step i the polynomial is [n + i choose i]_q.
std::vector<double> u_counts(size_t m, size_t n) {
  std::vector<double> c(m * n + 1, 0.0);
  c[0] = 1;
  size_t deg = 0;
  for (size_t i = 1; i <= m; ++i) {
    deg += n;
    for (size_t u = deg; u >= n + i; --u) c[u] -= c[u - (n + i)];  // times (1 - q^(n+i))
    for (size_t u = i; u <= deg; ++u) c[u] += c[u - i];            // over (1 - q^i)
  }
  return c;
}

}  // namespace

double mann_whitney_min_p(size_t m, size_t n) {
  if (m == 0 || n == 0) return 1.0;
  // C(m + n, m) as a product of ratios; 2 / it.
  double c = 1;
  for (size_t i = 1; i <= std::min(m, n); ++i) {
    c = c * static_cast<double>(m + n - std::min(m, n) + i) / static_cast<double>(i);
  }
  return std::min(1.0, 2.0 / c);
}

MannWhitney mann_whitney(std::span<const double> a, std::span<const double> b) {
  MannWhitney r;
  const size_t m = a.size(), n = b.size();
  if (m == 0 || n == 0) {
    r.p = std::numeric_limits<double>::quiet_NaN();
    return r;
  }
  // Ranks over the pooled values, ties at their average rank.
  std::vector<std::pair<double, bool>> all;  // (value, from b)
  for (double x : a) all.emplace_back(x, false);
  for (double x : b) all.emplace_back(x, true);
  std::sort(all.begin(), all.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  const size_t total = m + n;
  double rank_sum_b = 0, tie_term = 0;
  for (size_t i = 0; i < total;) {
    size_t j = i;
    while (j < total && all[j].first == all[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double avg = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (size_t k = i; k < j; ++k) rank_sum_b += all[k].second ? avg : 0.0;
    tie_term += t * t * t - t;
    i = j;
  }
  const double mn = static_cast<double>(m) * static_cast<double>(n);
  r.u = rank_sum_b - static_cast<double>(n) * static_cast<double>(n + 1) / 2;
  if (tie_term == 0 && m <= kMannWhitneyExactMax && n <= kMannWhitneyExactMax) {
    const std::vector<double> c = u_counts(m, n);
    const auto lo = static_cast<size_t>(std::min(r.u, mn - r.u));
    double below = 0, all_orders = 0;
    for (size_t u = 0; u < c.size(); ++u) {
      all_orders += c[u];
      if (u <= lo) below += c[u];
    }
    r.exact = true;
    r.p = std::min(1.0, 2 * below / all_orders);
    return r;
  }
  const double big_n = static_cast<double>(total);
  const double var = mn / 12 * ((big_n + 1) - tie_term / (big_n * (big_n - 1)));
  if (var <= 0) {
    r.p = 1;
    return r;
  }
  const double z = (std::abs(r.u - mn / 2) - 0.5) / std::sqrt(var);
  r.p = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return r;
}

}  // namespace pmemids
