// Generators: bounds, determinism, bijective key mixing, and distributions
// close to theory.
#include "workload/generators.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace pmemids {
namespace {

TEST(GeneratorsTest, MixIsABijectionWithAnInverse) {
  Rng rng(3);
  for (uint64_t x : {uint64_t{0}, uint64_t{1}, uint64_t{42}, ~uint64_t{0}})
    EXPECT_EQ(unmix64(mix64(x)), x);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t x = rng.next();
    ASSERT_EQ(unmix64(mix64(x)), x);
  }
  EXPECT_NE(mix64(1), 1u);
}

TEST(GeneratorsTest, RngIsDeterministicBySeed) {
  Rng a(7), b(7), c(8);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const uint64_t x = a.next();
    EXPECT_EQ(x, b.next());
    differs |= x != c.next();
  }
  EXPECT_TRUE(differs);
}

TEST(GeneratorsTest, BoundsHold) {
  Rng rng(1);
  for (int i = 0; i < 100000; ++i) {
    const double u = rng.uniform01();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    ASSERT_LT(rng.below(7), 7u);
  }
  Zipfian z(10, 0.99);
  for (int i = 0; i < 100000; ++i) ASSERT_LT(z.next(rng), 10u);
  Zipfian one(1, 0.99);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(one.next(rng), 0u);
}

TEST(GeneratorsTest, UniformBelowIsFlat) {
  Rng rng(5);
  std::vector<int> hist(10);
  const int n = 1000000;
  for (int i = 0; i < n; ++i) ++hist[rng.below(10)];
  for (int h : hist) EXPECT_NEAR(h, n / 10, n / 10 * 0.02);
}

// Rank-frequency close to 1/(i+1)^theta: the two top ranks exactly (the method
// is exact there), and the log-log slope over ranks 3..100 close to -theta.
TEST(GeneratorsTest, ZipfianRankFrequencyMatchesTheory) {
  for (double theta : {0.5, 0.99}) {
    const uint64_t n = 1000;
    const int draws = 2000000;
    Zipfian z(n, theta);
    Rng rng(11);
    std::vector<double> freq(n);
    for (int i = 0; i < draws; ++i) freq[z.next(rng)] += 1.0 / draws;
    const double zetan = Zipfian::zeta(0, n, theta, 0.0);
    for (int r = 0; r < 2; ++r) {
      const double p = 1.0 / std::pow(r + 1.0, theta) / zetan;
      EXPECT_NEAR(freq[r], p, p * 0.02) << "theta " << theta << " rank " << r;
    }
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int m = 0;
    for (int r = 3; r < 100; ++r) {
      const double x = std::log(r + 1.0), y = std::log(freq[r]);
      sx += x, sy += y, sxx += x * x, sxy += x * y, ++m;
    }
    const double slope = (m * sxy - sx * sy) / (m * sxx - sx * sx);
    EXPECT_NEAR(slope, -theta, 0.08) << "theta " << theta;
  }
}

// As YCSB's nextLong(itemcount): zeta extended term by term (so equal to a
// fresh generator's), eta left at the construction's item count.
TEST(GeneratorsTest, ZipfianGrowsZetaIncrementallyAndKeepsEta) {
  Zipfian grown(100, 0.99);
  Rng r1(2), r2(2);
  grown.next(r1, 5000);
  Zipfian fresh(5000, 0.99);
  fresh.next(r2);
  EXPECT_EQ(grown.zetan(), fresh.zetan());
  EXPECT_EQ(grown.items(), 100u);
  bool differs = false;
  for (int i = 0; i < 10000; ++i) {
    const uint64_t g = grown.next(r1, 5000), f = fresh.next(r2);
    if (f < 2) {
      ASSERT_EQ(g, f);  // ranks 0 and 1 depend on zeta only
    }
    differs |= g != f;
  }
  EXPECT_TRUE(differs);  // the rest on eta, which differs
}

// Euler-Maclaurin against the direct sum, and against YCSB's precomputed
// zeta(10^10) for 0.99 (its ZETAN, summed term by term in doubles).
TEST(GeneratorsTest, FastZetaMatchesTheSum) {
  for (double theta : {0.2, 0.5, 0.8, 0.99, 0.999}) {
    for (uint64_t n : {uint64_t{1}, uint64_t{999}, uint64_t{1001}, uint64_t{2000000}}) {
      const double direct = Zipfian::zeta(0, n, theta, 0.0);
      EXPECT_NEAR(Zipfian::zeta_fast(n, theta), direct, direct * 1e-11) << theta << " " << n;
    }
  }
  EXPECT_NEAR(Zipfian::zeta_fast(10000000000ULL, 0.99), 26.46902820178302, 26.47 * 1e-9);
}

// FNV-1a of eight zero bytes is 0xa8c7f832281a39c5 (the FNV definition);
// Java's Math.abs of it read as a signed long is its two's complement.
TEST(GeneratorsTest, FnvHashesAreYcsbs) {
  EXPECT_EQ(fnv1a64(0), 0xa8c7f832281a39c5ULL);
  EXPECT_EQ(ycsb_fnvhash64(0), 0x573807cdd7e5c63bULL);
  EXPECT_EQ(fnv1a64(42), 0xff3add6b3789daefULL);
  EXPECT_EQ(ycsb_fnvhash64(42), 0x00c52294c8762511ULL);
  for (uint64_t x = 0; x < 1000; ++x) {
    const uint64_t h = fnv1a64(x);
    ASSERT_EQ(ycsb_fnvhash64(x), h >> 63 ? ~h + 1 : h);
    ASSERT_EQ(ycsb_fnvhash64(x) >> 63, 0u);
  }
}

TEST(GeneratorsTest, ZetaIsTheHarmonicSum) {
  EXPECT_NEAR(Zipfian::zeta(0, 4, 1.0 - 1e-12, 0.0), 1 + 0.5 + 1.0 / 3 + 0.25, 1e-9);
  EXPECT_NEAR(Zipfian::zeta(2, 4, 0.5, Zipfian::zeta(0, 2, 0.5, 0.0)),
              Zipfian::zeta(0, 4, 0.5, 0.0), 1e-12);
}

}  // namespace
}  // namespace pmemids
