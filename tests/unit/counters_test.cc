// Cost counters: a known operation gives exactly the expected counts in each
// mode. These figures are the per-op minimums the docs derive: a new node is
// persisted (2 lines: 24-byte header + 100-byte value on a 64-byte aligned
// node) and published (1 line); an update persists or logs exactly the value.
#include "catalog_pairs.h"

namespace pmemids::test {
namespace {

constexpr uint32_t kValueSize = 100;

DsOptions options() {
  return DsOptions{.capacity = 1024,
                   .expected = 512,
                   .value_size = kValueSize,
                   .load_factor = 0.75,
                   .codec = KeyCodec{InsertOrder::kHashed}};
}

struct Expected {
  uint64_t persists, flushed_lines, tx, tx_bytes, allocs, frees, fences;
};

// Runs `op` on ds and returns the counters it added on this thread.
template <class F>
CostCounters cost_of(F&& op) {
  const CostCounters before = tl_costs;
  op();
  CostCounters d = tl_costs;
  d -= before;
  return d;
}

void expect_costs(const CostCounters& c, const Expected& e, const char* what) {
  EXPECT_EQ(c.persists, e.persists) << what;
  EXPECT_EQ(c.flushed_lines, e.flushed_lines) << what;
  EXPECT_EQ(c.tx, e.tx) << what;
  EXPECT_EQ(c.tx_bytes, e.tx_bytes) << what;
  EXPECT_EQ(c.allocs, e.allocs) << what;
  EXPECT_EQ(c.frees, e.frees) << what;
  EXPECT_EQ(c.fences, e.fences) << what;
  EXPECT_EQ(c.flushes_elided, 0u) << what;
}

// Expected costs of insert-new, update and delete for the node-based
// structures (hashtable, linked list), per mode.
template <class B>
void node_structure_costs(const char* name, auto make) {
  ScratchDir dir;
  B b(dir.spec(name, B::kMode));
  auto ds = make(b);
  const uint64_t key = options().codec.encode(9);
  const std::string v(kValueSize, 'x');
  const CostCounters ins = cost_of([&] { ASSERT_TRUE(ds.insert(key, v.data())); });
  const CostCounters upd = cost_of([&] { ASSERT_TRUE(ds.update(key, v.data())); });
  const CostCounters del = cost_of([&] { ASSERT_TRUE(ds.remove(key)); });
  constexpr uint64_t kPtr = sizeof(typename B::template Ptr<char>);
  switch (B::kMode) {
    case Mode::kDram:
    case Mode::kVolatile:
      expect_costs(ins, {0, 0, 0, 0, 1, 0, 0}, "insert");
      expect_costs(upd, {0, 0, 0, 0, 0, 0, 0}, "update");
      expect_costs(del, {0, 0, 0, 0, 0, 1, 0}, "delete");
      break;
    case Mode::kPersist:  // node sealed then published; each ordered by its own fence
      expect_costs(ins, {2, 3, 0, 0, 1, 0, 2}, "insert");
      expect_costs(upd, {1, 2, 0, 0, 0, 0, 1}, "update");
      expect_costs(del, {1, 1, 0, 0, 0, 1, 1}, "delete");
      break;
    case Mode::kTrans:  // libpmemobj writes back and fences at commit
      expect_costs(ins, {0, 0, 1, kPtr, 1, 0, 0}, "insert");
      expect_costs(upd, {0, 0, 1, kValueSize, 0, 0, 0}, "update");
      expect_costs(del, {0, 0, 1, kPtr, 0, 1, 0}, "delete");
      EXPECT_GT(ins.lib_fences, 0u);
      EXPECT_GT(upd.lib_flushed_lines, 0u);
      break;
  }
}

template <class P>
class CostTest : public ::testing::Test {};
TYPED_TEST_SUITE(CostTest, Backends<>, BackendName);

TYPED_TEST(CostTest, HashTableInsertUpdateDelete) {
  node_structure_costs<TypeParam>("hashtable",
                                  [](TypeParam& b) { return HashTable<TypeParam>(b, options()); });
}

TYPED_TEST(CostTest, LinkedListInsertUpdateDelete) {
  node_structure_costs<TypeParam>("linkedlist",
                                  [](TypeParam& b) { return LinkedList<TypeParam>(b, options()); });
}

TYPED_TEST(CostTest, ArrayListInsertUpdateDelete) {
  using B = TypeParam;
  ScratchDir dir;
  B b(dir.spec("arraylist", B::kMode));
  ArrayList<B> ds(b, options());
  const uint64_t key = options().codec.encode(9);
  const std::string v(kValueSize, 'x');
  const CostCounters ins = cost_of([&] { ASSERT_TRUE(ds.insert(key, v.data())); });
  const CostCounters upd = cost_of([&] { ASSERT_TRUE(ds.update(key, v.data())); });
  const CostCounters del = cost_of([&] { ASSERT_TRUE(ds.remove(key)); });
  switch (B::kMode) {
    case Mode::kDram:
    case Mode::kVolatile:
      for (const auto* c : {&ins, &upd, &del}) expect_costs(*c, {0, 0, 0, 0, 0, 0, 0}, "op");
      break;
    case Mode::kPersist:  // value (2 lines), then the present word (1 line)
      EXPECT_EQ(ins.persists, 2u);
      EXPECT_EQ(upd.persists, 1u);
      EXPECT_EQ(upd.flushed_lines, 2u);
      EXPECT_EQ(ins.fences, 2u);
      expect_costs(del, {1, 1, 0, 0, 0, 0, 1}, "delete");
      break;
    case Mode::kTrans:
      expect_costs(ins, {0, 0, 1, kValueSize + 8, 0, 0, 0}, "insert");
      expect_costs(upd, {0, 0, 1, kValueSize, 0, 0, 0}, "update");
      expect_costs(del, {1, 1, 0, 0, 0, 0, 1}, "delete");  // a lone 8-byte store
      break;
  }
}

TYPED_TEST(CostTest, ReadsTranslateOncePerNodeVisited) {
  using B = TypeParam;
  ScratchDir dir;
  B b(dir.spec("hashtable", B::kMode));
  HashTable<B> ds(b, options());
  const uint64_t key = options().codec.encode(3);
  const std::string v(kValueSize, 'y');
  ASSERT_TRUE(ds.insert(key, v.data()));
  char buf[kValueSize];
  const CostCounters rd = cost_of([&] { ASSERT_TRUE(ds.read(key, buf)); });
  EXPECT_EQ(rd.translations, B::kDurable ? 1u : 0u);
  EXPECT_EQ(rd.persists + rd.tx + rd.allocs, 0u);
}

// A tree's leaf insert writes back the new value object and the shifted
// regions in one batch and fences once, then publishes with the count (the
// second fence): fewer fences than write-backs.
template <template <class> class Tree>
void leaf_insert_costs(const char* name, uint64_t persists) {
  ScratchDir dir;
  PersistBackend b(dir.spec(name, Mode::kPersist));
  Tree<PersistBackend> ds(b, options());
  const std::string v(kValueSize, 'z');
  const CostCounters ins = cost_of([&] { ASSERT_TRUE(ds.insert(11, v.data())); });
  EXPECT_EQ(ins.persists, persists) << name;
  EXPECT_EQ(ins.fences, 2u) << name;
}

TEST(CountersTest, TreeLeafInsertsFenceTwice) {
  leaf_insert_costs<BPlusTree>("bplustree", 4);           // value, keys, value refs | count
  leaf_insert_costs<BTree>("btree", 4);                   // value, keys, value refs | count
  leaf_insert_costs<BTreeEmbedded>("btree-embedded", 3);  // keys, values | count
}

// A bare object (kTypeBare) has no libpmemobj header: no type, its data on a
// cache line and filling its unit's whole lines, and its allocation writes
// back no header line. A typed object of the same size keeps all three.
template <class B>
class BareObjectTest : public ::testing::Test {};
TYPED_TEST_SUITE(BareObjectTest, Backends<durable_mode>, BackendName);

TYPED_TEST(BareObjectTest, HasNoHeaderAndAllocatingItWritesNoneBack) {
  using B = TypeParam;
  ScratchDir dir;
  B b(dir.spec("btree", B::kMode));
  b.template root<uint64_t>();
  typename B::template Ptr<char> bare, typed;
  const CostCounters bare_cost =
      cost_of([&] { b.tx([&] { bare = b.template alloc<char>(kValueSize, kTypeBare); }); });
  const CostCounters typed_cost =
      cost_of([&] { b.tx([&] { typed = b.template alloc<char>(kValueSize, 1); }); });
  EXPECT_EQ(pmemobj_type_num(bare.oid()), uint64_t{kTypeBare});
  EXPECT_EQ(pmemobj_alloc_usable_size(bare.oid()), 128u) << "two whole lines";
  EXPECT_EQ(reinterpret_cast<uintptr_t>(bare.get()) % 64, 0u);
  EXPECT_EQ(pmemobj_type_num(typed.oid()), 1u);
  EXPECT_EQ(pmemobj_alloc_usable_size(typed.oid()), 112u) << "two lines less the header";
  EXPECT_EQ(reinterpret_cast<uintptr_t>(typed.get()) % 64, 0u);
  EXPECT_LT(bare_cost.lib_flushed_lines, typed_cost.lib_flushed_lines) << "the header's line";
}

TEST(CountersTest, LinesCovered) {
  alignas(64) char buf[256];
  EXPECT_EQ(lines_covered(buf, 0), 0u);
  EXPECT_EQ(lines_covered(buf, 1), 1u);
  EXPECT_EQ(lines_covered(buf, 64), 1u);
  EXPECT_EQ(lines_covered(buf, 65), 2u);
  EXPECT_EQ(lines_covered(buf + 63, 2), 2u);
  EXPECT_EQ(lines_covered(buf + 24, 100), 2u);
  EXPECT_EQ(lines_covered(buf + 40, 100), 3u);
}

}  // namespace
}  // namespace pmemids::test
