// Every (structure, mode) against a std::map oracle: long random operation
// sequences, edge cases, and (durable modes) the same after closing and
// reopening the pool. Written once, instantiated for all pairs.
#include <fstream>
#include <map>
#include <string>

#include "catalog_pairs.h"
#include "oracle_driver.h"

namespace pmemids::test {
namespace {

constexpr uint64_t kIds = 2048;

DsOptions options() {
  return DsOptions{.capacity = kIds,
                   .expected = kIds / 2,
                   .value_size = kValueSize,
                   .load_factor = 0.75,
                   .codec = KeyCodec{InsertOrder::kHashed}};
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

template <class P>
class OracleTest : public ::testing::Test {
 protected:
  ScratchDir dir_;
};
TYPED_TEST_SUITE(OracleTest, KvPairs, PairName);

TYPED_TEST(OracleTest, RandomOperationsMatchStdMap) {
  typename TypeParam::B b(this->dir_.spec(TypeParam::DS::kName, TypeParam::B::kMode));
  typename TypeParam::DS ds(b, options());
  Oracle oracle;
  random_ops(ds, oracle, 1, 20000, kIds, options().codec);
}

TYPED_TEST(OracleTest, AbsentKeysAreNotFound) {
  typename TypeParam::B b(this->dir_.spec(TypeParam::DS::kName, TypeParam::B::kMode));
  typename TypeParam::DS ds(b, options());
  const KeyCodec codec = options().codec;
  char buf[kValueSize];
  const std::string v = value_for(7);
  ASSERT_TRUE(ds.insert(codec.encode(3), v.data()));
  for (uint64_t key : {codec.encode(4), codec.encode(kMissBase + 3), uint64_t{0}}) {
    EXPECT_FALSE(ds.read(key, buf));
    EXPECT_FALSE(ds.update(key, v.data()));
    EXPECT_FALSE(ds.remove(key));
  }
  EXPECT_EQ(ds.check(), 1u);
}

TYPED_TEST(OracleTest, DuplicateInsertUpdatesInPlace) {
  typename TypeParam::B b(this->dir_.spec(TypeParam::DS::kName, TypeParam::B::kMode));
  typename TypeParam::DS ds(b, options());
  const uint64_t key = options().codec.encode(42);
  const std::string v1 = value_for(1), v2 = value_for(2);
  char buf[kValueSize];
  EXPECT_TRUE(ds.insert(key, v1.data()));
  EXPECT_FALSE(ds.insert(key, v2.data()));
  ASSERT_TRUE(ds.read(key, buf));
  EXPECT_EQ(std::string(buf, kValueSize), v2);
  EXPECT_EQ(ds.check(), 1u);
}

TYPED_TEST(OracleTest, DeletingEverythingLeavesItEmptyAndReusable) {
  typename TypeParam::B b(this->dir_.spec(TypeParam::DS::kName, TypeParam::B::kMode));
  typename TypeParam::DS ds(b, options());
  const KeyCodec codec = options().codec;
  for (uint64_t id = 0; id < 300; ++id)
    ASSERT_TRUE(ds.insert(codec.encode(id), value_for(id).data()));
  // Delete in an order unrelated to insertion (exercises head, middle and tail).
  for (uint64_t i = 0; i < 300; ++i) ASSERT_TRUE(ds.remove(codec.encode((i * 7) % 300)));
  EXPECT_EQ(ds.check(), 0u);
  EXPECT_TRUE(contents(ds).empty());
  EXPECT_TRUE(ds.insert(codec.encode(5), value_for(5).data()));
  EXPECT_EQ(ds.check(), 1u);
}

template <class P>
class ReopenTest : public OracleTest<P> {};
TYPED_TEST_SUITE(ReopenTest, DurableKvPairs, PairName);

TYPED_TEST(ReopenTest, ContentsSurviveCloseAndReopen) {
  using B = typename TypeParam::B;
  using DS = typename TypeParam::DS;
  Oracle oracle;
  {
    B b(this->dir_.spec(DS::kName, B::kMode, /*reopen=*/false, /*keep=*/true));
    DS ds(b, options());
    random_ops(ds, oracle, 11, 8000, kIds, options().codec);
  }
  {
    B b(this->dir_.spec(DS::kName, B::kMode, /*reopen=*/true, /*keep=*/true));
    EXPECT_FALSE(b.created());
    DS ds(b, options());
    ASSERT_EQ(ds.check(), oracle.size());
    ASSERT_EQ(contents(ds), oracle);
    random_ops(ds, oracle, 12, 4000, kIds, options().codec);  // and it keeps working
  }
  B b(this->dir_.spec(DS::kName, B::kMode, /*reopen=*/true, /*keep=*/false));
  DS ds(b, options());
  EXPECT_EQ(contents(ds), oracle);
}

TYPED_TEST(ReopenTest, ReopenWithOtherValueSizeIsRefused) {
  using B = typename TypeParam::B;
  using DS = typename TypeParam::DS;
  {
    B b(this->dir_.spec(DS::kName, B::kMode, false, /*keep=*/true));
    DS ds(b, options());
  }
  B b(this->dir_.spec(DS::kName, B::kMode, /*reopen=*/true, /*keep=*/false));
  DsOptions other = options();
  other.value_size = 200;
  EXPECT_THROW(DS(b, other), UsageError);
}

template <class P>
class VolatileLifetimeTest : public OracleTest<P> {};
TYPED_TEST_SUITE(VolatileLifetimeTest, VolatileKvPairs, PairName);

// dram and pmem-volatile keep nothing: destroying a structure frees everything
// it allocated, so repetitions in one process do not accumulate memory.
TYPED_TEST(VolatileLifetimeTest, DestructionFreesEveryAllocation) {
  typename TypeParam::B b(this->dir_.spec(TypeParam::DS::kName, TypeParam::B::kMode));
  const CostCounters before = tl_costs;
  {
    typename TypeParam::DS ds(b, options());
    Oracle oracle;
    random_ops(ds, oracle, 21, 3000, kIds, options().codec);
    ASSERT_GT(oracle.size(), 0u);
  }
  CostCounters d = tl_costs;
  d -= before;
  EXPECT_GT(d.allocs, 0u);
  EXPECT_EQ(d.allocs, d.frees);
}

TEST(ArrayListTest, InsertBeyondCapacityIsARuntimeError) {
  ScratchDir dir;
  DramBackend b(dir.spec("arraylist", Mode::kDram));
  ArrayList<DramBackend> ds(b, options());
  EXPECT_THROW(ds.insert(options().codec.encode(kIds), value_for(1).data()), RuntimeError);
}

TEST(PoolTest, PoolOfAnotherLayoutIsRefusedAndUntouched) {
  ScratchDir dir;
  { PersistBackend b(dir.spec("hashtable", Mode::kPersist, false, /*keep=*/true)); }
  const auto from = dir.spec("hashtable", Mode::kPersist).path();
  const auto to = dir.spec("linkedlist", Mode::kPersist).path();
  std::filesystem::rename(from, to);
  const std::string before = read_file(to);
  EXPECT_THROW(PersistBackend(dir.spec("linkedlist", Mode::kPersist, /*reopen=*/true)), UsageError);
  EXPECT_THROW(PersistBackend(dir.spec("linkedlist", Mode::kPersist)), UsageError);  // exists
  EXPECT_THROW(TransBackend(dir.spec("linkedlist", Mode::kTrans, /*reopen=*/true)), UsageError);
  ASSERT_TRUE(std::filesystem::exists(to));
  EXPECT_TRUE(read_file(to) == before) << "refused pool was modified";
}

TEST(PoolTest, FileThatIsNotAPoolIsRefused) {
  ScratchDir dir;
  const auto path = dir.spec("hashtable", Mode::kPersist).path();
  std::ofstream(path) << std::string(16384, 'z');
  EXPECT_THROW(PersistBackend(dir.spec("hashtable", Mode::kPersist, /*reopen=*/true)), UsageError);
  EXPECT_EQ(read_file(path), std::string(16384, 'z'));
}

TEST(PoolTest, TransactionAbortRollsBack) {
  ScratchDir dir;
  TransBackend b(dir.spec("hashtable", Mode::kTrans));
  HashTable<TransBackend> ds(b, options());
  const uint64_t key = options().codec.encode(1);
  const std::string v1 = value_for(1);
  ASSERT_TRUE(ds.insert(key, v1.data()));
  uint64_t& word = b.root<uint64_t>()[0];  // the root header's magic word
  const uint64_t before = word;
  EXPECT_THROW(b.tx([&] {
    b.store(word, uint64_t{0});
    throw RuntimeError("injected");
  }),
               RuntimeError);
  EXPECT_EQ(word, before);
  EXPECT_EQ(ds.check(), 1u);
}

template <class B>
void expect_lock_slot_beside_root(B& b) {
  const char* root = reinterpret_cast<const char*>(b.template root<RootHeader>());
  const char* slot = static_cast<const char*>(b.lock_slot());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(slot) % kLockSlotBytes, 0u);
  EXPECT_GE(slot, root - kRootPrefix);
  EXPECT_LE(slot + kLockSlotBytes, root);
}

TEST(PoolTest, LockSlotIsAlignedAndBesideTheRoot) {
  ScratchDir dir;
  VolatileBackend v(dir.spec("hashtable", Mode::kVolatile));
  expect_lock_slot_beside_root(v);
  PersistBackend p(dir.spec("hashtable", Mode::kPersist));
  expect_lock_slot_beside_root(p);
  EXPECT_EQ(pmemobj_oid(p.lock_slot()).pool_uuid_lo,
            pmemobj_oid(p.root<RootHeader>()).pool_uuid_lo);
}

}  // namespace
}  // namespace pmemids::test
