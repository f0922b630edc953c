// Statistics of a benchmark's repetitions (one number per repetition).
//
// summarize() reports mean, median (mean of the two middle values for even n),
// sample standard deviation (n - 1 denominator), cv = stddev / mean, min, max and
// the two-sided 95% confidence interval of the mean, mean +/- t(0.975, n-1) *
// stddev / sqrt(n). Fields that are undefined are quiet NaN (written as JSON
// null): everything but n when n == 0; stddev, cv and the interval when n == 1;
// cv when mean == 0. The input is not modified.
#pragma once

#include <cstddef>
#include <span>

namespace pmemids {

struct Summary {
  size_t n;
  double mean, median, stddev, cv, min, max, ci95_low, ci95_high;
};

Summary summarize(std::span<const double> xs);

// Student's t quantile t(0.975, df) for df >= 1: a table (6 decimals) for
// df <= 30, else the Cornish-Fisher expansion to 1/df^4 (Abramowitz & Stegun
// 26.7.5; relative error < 1e-7 for df > 30), tending to z(0.975) = 1.959964.
// NaN for df == 0.
double student_t975(size_t df);

}  // namespace pmemids
