"""Paired comparisons over rounds: one value per round, its interval over rounds.

When two (or four) configurations ran in the same rounds of an interleaved sweep, a
check compares them round by round: per round the log-ratio (ratio), the log of
(A/B)/(C/D) (contrast) or the difference (diff), so what the round's load did to all
of them cancels. Over the rounds:

  paired t              the mean and Student's t interval (n - 1 degrees of freedom);
  Wilcoxon signed-rank  when the per-round values are far from normal: the
                        Hodges-Lehmann estimate (the median of the Walsh averages
                        (d_i + d_j) / 2, i <= j) and its interval from the exact
                        distribution of the signed-rank statistic.

The rule (far_from_normal): a value whose modified z-score 0.6745 (d - median) / MAD
exceeds 3.5 in magnitude (Iglewicz and Hoaglin's outlier criterion; with MAD = 0, any
value off the median) makes the values far from normal, and the rank interval is used
when the exact distribution can reach the level at all (2 / 2^n <= 1 - level: at 95%
from 6 rounds, at the Bonferroni-divided levels of the claims engine from more);
otherwise the t interval. Only the standard library: the exact distribution is a
small dynamic programme over the ranks.
"""

from __future__ import annotations

import functools
import math
import statistics

from . import tdist

PAIRED_T, WILCOXON, WELCH, STUDENT = "paired t", "Wilcoxon signed-rank", "Welch", "Student t"
OUTLIER_Z = 3.5


def far_from_normal(d: list[float]) -> bool:
    med = statistics.median(d)
    mad = statistics.median(abs(v - med) for v in d)
    if mad == 0:
        return any(v != med for v in d)
    return max(abs(0.6745 * (v - med) / mad) for v in d) > OUTLIER_Z


def rank_can_decide(n: int, level: float) -> bool:
    """Whether the exact signed-rank test of n values can reach a two-sided level."""
    return n < 1000 and 2.0 / 2.0 ** n <= 1.0 - level


@functools.lru_cache(maxsize=256)
def signed_rank_cdf(n: int) -> tuple[float, ...]:
    """P(T+ <= w) for w = 0 .. n(n+1)/2, T+ the signed-rank statistic of n values
    under the null (each rank's sign + or - with probability 1/2)."""
    counts = [1]
    for r in range(1, n + 1):
        grown = counts + [0] * r
        for w in range(r, len(grown)):
            grown[w] += counts[w - r]
        counts = grown
    total, run, out = 2.0 ** n, 0, []
    for c in counts:
        run += c
        out.append(run / total)
    return tuple(out)


def hodges_lehmann(d: list[float], level: float) -> tuple[float, tuple[float, float]]:
    """The Hodges-Lehmann estimate and its exact interval at `level` (at least)."""
    n = len(d)
    walsh = sorted((d[i] + d[j]) / 2 for i in range(n) for j in range(i, n))
    m = len(walsh)
    cdf = signed_rank_cdf(n)
    # The largest k with P(T+ <= k - 1) <= (1 - level) / 2: [W_(k), W_(m + 1 - k)].
    k = 0
    while k < m // 2 and cdf[k] <= (1.0 - level) / 2:
        k += 1
    est = statistics.median(walsh)
    if k == 0:
        return est, (-math.inf, math.inf)
    return est, (walsh[k - 1], walsh[m - k])


def t_interval(d: list[float], level: float) -> tuple[float, tuple[float, float]]:
    n = len(d)
    mean = sum(d) / n
    sd = statistics.stdev(d)
    half = tdist.quantile(1 - (1 - level) / 2, n - 1) * sd / math.sqrt(n) if sd > 0 else 0.0
    return mean, (mean - half, mean + half)


def interval(d: list[float], level: float) -> tuple[float, tuple[float, float], str]:
    """The estimate, its two-sided interval at `level` and the test that made it."""
    if far_from_normal(d) and rank_can_decide(len(d), level):
        est, ci = hodges_lehmann(d, level)
        return est, ci, WILCOXON
    est, ci = t_interval(d, level)
    return est, ci, PAIRED_T
