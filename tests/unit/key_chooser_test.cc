// Key choosers against the distributions YCSB's published algorithms define.
//
// The expected shapes are computed here from the algorithms themselves, not by
// calling the generators: the rank distribution of Gray et al.'s method in
// closed form (its CDF), pushed through the hash onto the keyspace and
// conditioned on the ids that exist, as YCSB's redraw does. Each sampled share
// (fixed seed, 10^6 draws) must lie within 4 standard errors of the expected
// one (plus 0.2% for the tail of the 10^10 ranks, spread evenly instead of
// enumerated).
#include "workload/key_chooser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "workload/properties.h"

namespace pmemids {
namespace {

WorkloadSpec spec(std::initializer_list<std::string> overrides) {
  PropertySet p;
  for (const auto& kv : overrides) p.set_override(kv);
  return p.build();
}

// Gray et al.'s generator over n items: rank 0 when u zetan < 1, rank 1 when
// u zetan < 1 + 0.5^theta, else floor(n (eta u - eta + 1)^(1 / (1 - theta))),
// for u uniform in [0, 1), eta = (1 - (2 / eta_items)^(1 - theta)) / (1 -
// zeta(2) / zetan) (YCSB keeps eta_items at the construction's count when n
// grows). below(x) = P(rank < x).
struct GrayCdf {
  double n, theta, zetan, eta;

  GrayCdf(double items, double th, double zn, double eta_items = 0)
      : n(items),
        theta(th),
        zetan(zn),
        eta((1 - std::pow(2 / (eta_items > 0 ? eta_items : items), 1 - th)) /
            (1 - (1 + std::pow(0.5, th)) / zn)) {}

  double below(double x) const {
    if (x < 1) return 0;
    const double c = (1 + std::pow(0.5, theta)) / zetan;            // P(u < c): ranks 0 and 1
    const double g = (std::pow(x / n, 1 - theta) - 1 + eta) / eta;  // u < g <=> formula rank < x
    return (x >= 2 ? c : 1 / zetan) + std::clamp(g - c, 0.0, 1 - c);
  }
  double p(double r) const { return below(r + 1) - below(r); }
};

// P(id) over [0, inserted) of a scrambled zipfian: ranks below `enumerate`
// hashed one by one, the rest of the mass spread evenly over the keyspace,
// then conditioned on id < inserted.
std::vector<double> scrambled_shape(const GrayCdf& g, uint64_t enumerate,
                                    uint64_t (*hash)(uint64_t), uint64_t keyspace,
                                    uint64_t inserted) {
  std::vector<double> p(
      keyspace, (1 - g.below(static_cast<double>(enumerate))) / static_cast<double>(keyspace));
  for (uint64_t r = 0; r < enumerate; ++r) p[hash(r) % keyspace] += g.p(static_cast<double>(r));
  p.resize(inserted);
  const double mass = std::accumulate(p.begin(), p.end(), 0.0);
  for (double& x : p) x /= mass;
  return p;
}

// Shares of the hottest id, the hottest 1% and the coldest half, the sets
// chosen by the expected probabilities (so sampled shares are unbiased).
void expect_shape(const std::vector<double>& expected, const std::vector<uint64_t>& counts,
                  uint64_t draws, const char* what) {
  std::vector<uint64_t> order(expected.size());
  std::iota(order.begin(), order.end(), uint64_t{0});
  std::sort(order.begin(), order.end(),
            [&](uint64_t a, uint64_t b) { return expected[a] > expected[b]; });
  const auto share = [&](size_t from, size_t to, const auto& f) {
    double s = 0;
    for (size_t i = from; i < to; ++i) s += f(order[i]);
    return s;
  };
  const auto exp_of = [&](uint64_t id) { return expected[id]; };
  const auto got_of = [&](uint64_t id) {
    return static_cast<double>(counts[id]) / static_cast<double>(draws);
  };
  const size_t n = expected.size();
  const std::pair<size_t, size_t> sets[] = {{0, 1}, {0, n / 100}, {n - n / 2, n}};
  const char* names[] = {"hottest id", "top 1%", "coldest half"};
  for (int i = 0; i < 3; ++i) {
    const double e = share(sets[i].first, sets[i].second, exp_of);
    const double got = share(sets[i].first, sets[i].second, got_of);
    const double se = std::sqrt(e * (1 - e) / static_cast<double>(draws));
    EXPECT_NEAR(got, e, 4 * se + 0.002 * e) << what << ": " << names[i];
  }
}

std::vector<uint64_t> draw(KeyChooser& c, uint64_t inserted, uint64_t draws, uint64_t seed) {
  std::vector<uint64_t> counts(inserted);
  Rng rng(seed);
  for (uint64_t i = 0; i < draws; ++i) {
    const uint64_t id = c.next(rng, inserted);
    EXPECT_LT(id, inserted);
    ++counts[id];
  }
  return counts;
}

constexpr uint64_t kDraws = 1000000;

TEST(KeyChooserTest, ZipfianIsJavaYcsbsScrambledZipfian) {
  // 10^5 records, 10^5 operations, 10% inserts: keyspace 10^5 + 2 * 10^4 + 1;
  // at the start only the 10^5 loaded ids exist, the rest are redrawn.
  const WorkloadSpec s =
      spec({"recordcount=100000", "operationcount=100000", "readproportion=0.9",
            "updateproportion=0", "insertproportion=0.1", "requestdistribution=zipfian"});
  KeyChooser c(s);
  ASSERT_EQ(c.keyspace(), 120001u);
  const GrayCdf g(1e10 + 1, 0.99, 26.46902820178302);
  const auto expected = scrambled_shape(g, 1000000, ycsb_fnvhash64, 120001, 100000);
  expect_shape(expected, draw(c, 100000, kDraws, 1), kDraws, "zipfian");
  EXPECT_EQ(c.folds(), 0u);
}

TEST(KeyChooserTest, ZipfianYcsbcIsTheCppPortsRanksOverTheKeyCount) {
  const WorkloadSpec s =
      spec({"recordcount=100000", "operationcount=100000", "readproportion=0.9",
            "updateproportion=0", "insertproportion=0.1", "requestdistribution=zipfian-ycsbc"});
  KeyChooser c(s);
  ASSERT_EQ(c.keyspace(), 120000u);
  const GrayCdf g(120000, 0.99, Zipfian::zeta(0, 120000, 0.99, 0.0));
  ASSERT_NEAR(g.below(120000), 1.0, 1e-12);  // every rank enumerated
  const auto expected = scrambled_shape(g, 120000, fnv1a64, 120000, 100000);
  expect_shape(expected, draw(c, 100000, kDraws, 2), kDraws, "zipfian-ycsbc");
}

TEST(KeyChooserTest, ZipfianConstantOtherThanYcsbsComputesZeta) {
  const WorkloadSpec s =
      spec({"recordcount=50000", "operationcount=0", "readproportion=1", "updateproportion=0",
            "requestdistribution=zipfian", "zipfianconstant=0.8"});
  KeyChooser c(s);
  const GrayCdf g(1e10 + 1, 0.8, Zipfian::zeta_fast(10000000001ULL, 0.8));
  const auto expected = scrambled_shape(g, 1000000, ycsb_fnvhash64, 50001, 50000);
  expect_shape(expected, draw(c, 50000, kDraws, 3), kDraws, "zipfian 0.8");
}

// The paper's write workload at paper scale (10^6 records, 10% of 10^6
// operations inserts): the hottest key draws 1 / zeta of the ranks: Java
// YCSB's 3.8% (zeta over 10^10 ranks) against YCSB-C's 6.4% (over 1.2M).
TEST(KeyChooserTest, HottestKeyAtPaperScale) {
  const char* base[] = {"recordcount=1000000", "operationcount=1000000", "readproportion=0",
                        "updateproportion=0.9", "insertproportion=0.1"};
  for (const char* dist : {"zipfian", "zipfian-ycsbc"}) {
    PropertySet p;
    for (const char* kv : base) p.set_override(kv);
    p.set_override(std::string("requestdistribution=") + dist);
    const WorkloadSpec s = p.build();
    KeyChooser c(s);
    const bool java = s.requestdistribution == Distribution::kZipfian;
    const uint64_t hottest = java ? ycsb_fnvhash64(0) % c.keyspace() : fnv1a64(0) % c.keyspace();
    const double expected =
        java ? 1 / 26.46902820178302 : 1 / Zipfian::zeta(0, c.keyspace(), 0.99, 0.0);
    EXPECT_NEAR(expected, java ? 0.038 : 0.064, 0.0005) << dist;
    Rng rng(4);
    uint64_t hits = 0;
    const uint64_t draws = 400000;
    for (uint64_t i = 0; i < draws; ++i) hits += c.next(rng, c.keyspace()) == hottest;
    const double se = std::sqrt(expected * (1 - expected) / draws);
    EXPECT_NEAR(static_cast<double>(hits) / draws, expected, 4 * se) << dist;
  }
}

// SkewedLatestGenerator: id max - rank with max = inserted - 1 and the rank
// over max items; zeta grows with the inserts.
TEST(KeyChooserTest, LatestFavoursTheNewestAndNeverChoosesIdZero) {
  const WorkloadSpec s =
      spec({"recordcount=10000", "operationcount=1000", "readproportion=0.9", "updateproportion=0",
            "insertproportion=0.1", "requestdistribution=latest"});
  KeyChooser c(s);
  const uint64_t draws = 200000;
  for (uint64_t inserted : {uint64_t{10000}, uint64_t{10500}}) {
    const auto counts = draw(c, inserted, draws, 5);
    const GrayCdf g(static_cast<double>(inserted - 1), 0.99,
                    Zipfian::zeta(0, inserted - 1, 0.99, 0.0), 9999);
    for (uint64_t rank : {0, 1, 2, 10}) {
      const double e = g.p(static_cast<double>(rank));
      const double se = std::sqrt(e * (1 - e) / draws);
      EXPECT_NEAR(static_cast<double>(counts[inserted - 1 - rank]) / draws, e, 4 * se)
          << inserted << " rank " << rank;
    }
    EXPECT_EQ(counts[0], 0u);
  }
}

// HotspotIntegerGenerator over the loaded ids only: inserted ids are never hot or cold.
TEST(KeyChooserTest, HotspotSplitsTheLoadedIds) {
  struct Case {
    const char* data;
    const char* opn;
    double hot_share;  // of draws landing below the hot boundary
    uint64_t hot_ids;
  };
  for (const Case& k : {Case{"0.2", "0.8", 0.8, 2000}, Case{"0", "0.8", 0.0, 0},
                        Case{"1", "0.3", 1.0, 10000}, Case{"0.5", "0", 0.0, 5000}}) {
    const WorkloadSpec s = spec({"recordcount=10000", "requestdistribution=hotspot",
                                 std::string("hotspotdatafraction=") + k.data,
                                 std::string("hotspotopnfraction=") + k.opn});
    KeyChooser c(s);
    const auto counts = draw(c, 15000, kDraws / 4, 6);
    const uint64_t hot = std::accumulate(counts.begin(), counts.begin() + k.hot_ids, uint64_t{0});
    const uint64_t beyond = std::accumulate(counts.begin() + 10000, counts.end(), uint64_t{0});
    EXPECT_EQ(beyond, 0u) << k.data;
    const double se = std::sqrt(k.hot_share * (1 - k.hot_share) / (kDraws / 4));
    EXPECT_NEAR(static_cast<double>(hot) / (kDraws / 4), k.hot_share, 4 * se + 1e-9) << k.data;
  }
}

TEST(KeyChooserTest, UniformAndSequentialCoverTheLoadedIdsOnly) {
  KeyChooser u(spec({"recordcount=10000", "requestdistribution=uniform"}));
  const auto counts = draw(u, 20000, kDraws / 4, 7);
  for (int decile = 0; decile < 10; ++decile) {
    const uint64_t n = std::accumulate(counts.begin() + decile * 1000,
                                       counts.begin() + (decile + 1) * 1000, uint64_t{0});
    const double se = std::sqrt(0.1 * 0.9 / (kDraws / 4));
    EXPECT_NEAR(static_cast<double>(n) / (kDraws / 4), 0.1, 4 * se) << decile;
  }
  KeyChooser q(spec({"recordcount=10", "requestdistribution=sequential"}));
  Rng rng(8);
  for (uint64_t i = 0; i < 35; ++i) ASSERT_EQ(q.next(rng, 20), i % 10);
}

// With one loaded id against 10^5 expected inserts nearly every hashed id is
// not inserted yet: after the bounded redraws the choice is folded and counted.
TEST(KeyChooserTest, RedrawsAreBoundedAndFoldsCounted) {
  for (const char* dist : {"zipfian", "zipfian-ycsbc"}) {
    const WorkloadSpec s =
        spec({"recordcount=1", "operationcount=100000", "readproportion=0.5", "updateproportion=0",
              "insertproportion=0.5", std::string("requestdistribution=") + dist});
    KeyChooser c(s);
    Rng rng(9);
    for (int i = 0; i < 100; ++i) ASSERT_EQ(c.next(rng, 1), 0u);
    EXPECT_GT(c.folds(), 90u) << dist;
    const uint64_t before = c.folds();
    for (int i = 0; i < 1000; ++i) c.next(rng, c.keyspace());
    EXPECT_EQ(c.folds(), before) << dist;
  }
}

TEST(KeyChooserTest, GeneratorNamesAreRecorded) {
  EXPECT_EQ(spec({"requestdistribution=zipfian"}).to_json()["request_generator"],
            "ycsb-scrambled-zipfian");
  EXPECT_EQ(spec({"requestdistribution=zipfian-ycsbc"}).to_json()["request_generator"],
            "ycsbc-scrambled-zipfian");
  EXPECT_EQ(spec({"requestdistribution=latest"}).to_json()["request_generator"],
            "ycsb-skewed-latest");
  EXPECT_EQ(spec({"tracefile=t.csv"}).to_json()["request_generator"], "trace");
}

}  // namespace
}  // namespace pmemids
