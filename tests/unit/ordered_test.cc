// Ordered structures against a std::map oracle: scans match map ranges (from
// present and absent keys, past the end), iteration is in key order, and the
// structure's invariant checker holds after random sequences, under sequential
// and reverse insertion (which stress splits and rotations), and after reopen.
#include <map>
#include <string>

#include "catalog_pairs.h"
#include "oracle_driver.h"

namespace pmemids::test {
namespace {

DsOptions options(uint32_t node_keys = 0) {
  return DsOptions{.capacity = 1 << 16,
                   .expected = 1 << 15,
                   .value_size = kValueSize,
                   .load_factor = 0.75,
                   .codec = KeyCodec{InsertOrder::kOrdered},
                   .seed = 9,
                   .max_height = 16,
                   .node_keys = node_keys};
}

template <class DS>
void expect_matches(const DS& ds, const Oracle& oracle) {
  ASSERT_EQ(ds.check(), oracle.size());
  Pairs all;
  ds.for_each([&](uint64_t k, const char* v) { all.emplace_back(k, std::string(v, kValueSize)); });
  ASSERT_EQ(all, Pairs(oracle.begin(), oracle.end())) << "for_each must list keys in order";
}

// The shared oracle driver over keys [0, key_space), then the ordered listing.
template <class DS>
void ordered_random_ops(DS& ds, Oracle& oracle, uint64_t seed, int n, uint64_t key_space) {
  random_ops(ds, oracle, seed, n, key_space, KeyCodec{InsertOrder::kOrdered});
  expect_matches(ds, oracle);
}

template <class P>
class OrderedTest : public ::testing::Test {
 protected:
  ScratchDir dir_;
};
TYPED_TEST_SUITE(OrderedTest, OrderedPairs, PairName);

TYPED_TEST(OrderedTest, RandomOperationsAndScansMatchStdMap) {
  typename TypeParam::B b(this->dir_.spec(TypeParam::DS::kName, TypeParam::B::kMode));
  typename TypeParam::DS ds(b, options());
  Oracle oracle;
  ordered_random_ops(ds, oracle, 1, 12000, 3000);
}

TYPED_TEST(OrderedTest, SmallNodesStressSplitsAndMerges) {
  typename TypeParam::B b(this->dir_.spec(TypeParam::DS::kName, TypeParam::B::kMode));
  typename TypeParam::DS ds(b, options(/*node_keys=*/3));
  Oracle oracle;
  ordered_random_ops(ds, oracle, 2, 8000, 600);
}

TYPED_TEST(OrderedTest, SequentialAndReverseInsertionThenDeleteAll) {
  typename TypeParam::B b(this->dir_.spec(TypeParam::DS::kName, TypeParam::B::kMode));
  typename TypeParam::DS ds(b, options(4));
  Oracle oracle;
  for (uint64_t k = 1000; k < 2000; ++k) {
    ASSERT_TRUE(ds.insert(k, value_for(k).data()));
    oracle[k] = value_for(k);
  }
  for (uint64_t k = 999; k > 0; --k) {
    ASSERT_TRUE(ds.insert(k, value_for(k).data()));
    oracle[k] = value_for(k);
  }
  expect_matches(ds, oracle);
  for (uint64_t k = 1; k < 2000; k += 2) {
    ASSERT_TRUE(ds.remove(k));
    oracle.erase(k);
  }
  expect_matches(ds, oracle);
  for (uint64_t k = 1998; k >= 2; k -= 2) ASSERT_TRUE(ds.remove(k));
  EXPECT_EQ(ds.check(), 0u);
  EXPECT_TRUE(scan_of(ds, 0, 10).empty());
  ASSERT_TRUE(ds.insert(5, value_for(5).data()));
  EXPECT_EQ(ds.check(), 1u);
}

TYPED_TEST(OrderedTest, ScansPastTheEndAndFromAbsentKeys) {
  typename TypeParam::B b(this->dir_.spec(TypeParam::DS::kName, TypeParam::B::kMode));
  typename TypeParam::DS ds(b, options());
  Oracle oracle;
  for (uint64_t k = 10; k <= 1000; k += 10) {
    ASSERT_TRUE(ds.insert(k, value_for(k).data()));
    oracle[k] = value_for(k);
  }
  EXPECT_EQ(scan_of(ds, 995, 50), oracle_range(oracle, 995, 50));  // past the end: 1 element
  EXPECT_TRUE(scan_of(ds, 1001, 5).empty());
  EXPECT_EQ(scan_of(ds, 0, 3), oracle_range(oracle, 0, 3));
  EXPECT_EQ(scan_of(ds, 15, 4), oracle_range(oracle, 15, 4));  // absent start key
  EXPECT_EQ(scan_of(ds, 500, 1000), oracle_range(oracle, 500, 1000));
  EXPECT_EQ(scan_of(ds, ~uint64_t{0}, 3).size(), 0u);
  EXPECT_TRUE(ds.insert(~uint64_t{0}, value_for(1).data()));  // extreme keys are ordinary keys
  EXPECT_TRUE(ds.insert(0, value_for(2).data()));
  EXPECT_EQ(scan_of(ds, ~uint64_t{0}, 3).size(), 1u);
  EXPECT_EQ(scan_of(ds, 0, 1).front().first, 0u);
}

template <class P>
class OrderedReopenTest : public OrderedTest<P> {};
TYPED_TEST_SUITE(OrderedReopenTest, DurableOrderedPairs, PairName);

TYPED_TEST(OrderedReopenTest, InvariantsAndContentsSurviveReopen) {
  using B = typename TypeParam::B;
  using DS = typename TypeParam::DS;
  Oracle oracle;
  {
    B b(this->dir_.spec(DS::kName, B::kMode, false, /*keep=*/true));
    DS ds(b, options(5));
    ordered_random_ops(ds, oracle, 3, 6000, 2000);
  }
  {
    B b(this->dir_.spec(DS::kName, B::kMode, /*reopen=*/true, /*keep=*/false));
    DS ds(b, options(5));
    expect_matches(ds, oracle);
    ordered_random_ops(ds, oracle, 4, 3000, 2000);
  }
}

// A keys-per-node request outside the --node-keys knob's range is refused
// when the tree is built (a caller of the library, past the CLI's check),
// naming the structure, the knob and the range.
TEST(NodeKeys, RequestOutsideTheKnobsRangeIsRefused) {
  ScratchDir dir;
  DramBackend b(dir.spec("btree", Mode::kDram));
  for (uint32_t keys : {2u, 1025u}) {
    try {
      BTree<DramBackend> t(b, options(keys));
      ADD_FAILURE() << keys << " keys per node accepted";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()),
                fmt::format("btree: node_keys {} out of range [3, 1024]", keys));
    }
  }
}

}  // namespace
}  // namespace pmemids::test
