#include "stats/summary.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace pmemids {

double student_t975(size_t df) {
  static constexpr std::array<double, 30> kTable = {
      // df = 1 .. 30
      12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004,
      2.262157,  2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905,
      2.109816,  2.100922, 2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899,
      2.059539,  2.055529, 2.051831, 2.048407, 2.045230, 2.042272};
  if (df == 0) return std::numeric_limits<double>::quiet_NaN();
  if (df <= kTable.size()) return kTable[df - 1];
  const double z = 1.959963984540054, z2 = z * z, d = static_cast<double>(df);
  const double g1 = z * (z2 + 1) / 4;
  const double g2 = z * ((5 * z2 + 16) * z2 + 3) / 96;
  const double g3 = z * (((3 * z2 + 19) * z2 + 17) * z2 - 15) / 384;
  const double g4 = z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) / 92160;
  return z + (g1 + (g2 + (g3 + g4 / d) / d) / d) / d;
}

Summary summarize(std::span<const double> xs) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  Summary s{xs.size(), nan, nan, nan, nan, nan, nan, nan, nan};
  if (xs.empty()) return s;

  std::vector<double> sorted(xs.begin(), xs.end());
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  double sum = 0;
  for (double x : xs) sum += x;
  s.mean = sum / static_cast<double>(n);
  if (n < 2) return s;

  double ss = 0;
  for (double x : xs) ss += (x - s.mean) * (x - s.mean);
  s.stddev = std::sqrt(ss / static_cast<double>(n - 1));
  s.cv = s.mean == 0 ? nan : s.stddev / s.mean;
  const double half = student_t975(n - 1) * s.stddev / std::sqrt(static_cast<double>(n));
  s.ci95_low = s.mean - half;
  s.ci95_high = s.mean + half;
  return s;
}

}  // namespace pmemids
