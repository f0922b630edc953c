// The shape of pmem-trans transactions, held to each design's minimum: for
// every key-value structure of the catalog that runs in pmem-trans, a fixed
// sequence of inserts, updates and deletes, each operation checked on its own
// against the ranges it logged (pmemobj_tx_add_range_direct calls) and the
// bytes it changed (expect_minimal below). Updates are the same everywhere: one
// range, the value's bytes.
//
// The sequence: 300 records loaded (record ids 0..299, hashed keys, a distinct
// value each), then 100 inserts of new ids, 100 updates and 100 deletes of
// loaded ids.
//
// The documented figures per structure and operation (docs/performance.md,
// "Transaction shapes") are checked against what a run logs by
// tests/cli/test_tx_shapes.py, so a structure's shape is written down once, in
// the table a reader sees, and a change that logs one more range fails there.
#include <map>
#include <string>
#include <vector>

#include "ds/catalog.h"
#include "oracle_driver.h"
#include "test_support.h"

namespace pmemids::test {
namespace {

constexpr uint64_t kLoaded = 300, kEach = 100;

DsOptions options() {
  return DsOptions{.capacity = kLoaded + kEach,
                   .expected = kLoaded + kEach,
                   .value_size = kValueSize,
                   .load_factor = 0.75,
                   .codec = KeyCodec{InsertOrder::kHashed}};
}

struct Shape {
  uint64_t ranges = 0, bytes = 0;
  bool operator==(const Shape&) const = default;
};
// The pmem-trans backend, with a hook that lists the ranges it logs.
struct LogList : NoShadow {
  std::vector<ByteRange> ranges;
  void logged(const void* p, size_t n) { ranges.push_back({p, n}); }
};
using Backend = TransBackendT<LogList>;

// The bytes of every object of the pool, by address.
using Objects = std::map<const char*, std::string>;
Objects snapshot(const Backend& b) {
  Objects out;
  for (const ByteRange& r : b.object_ranges()) {
    const char* p = static_cast<const char*>(r.p);
    out.emplace(p, std::string(p, r.n));
  }
  return out;
}

// Holds one operation to the minimum of the design: every byte it changed in an
// object that existed before is inside a range it logged (or it was a lone
// 8-byte store outside the transaction: a persist); an object it did not
// change is not logged, unless the operation freed it (unlinked first, then
// freed: the rbtree's delete rotates at the node it removes); and no object
// gets more ranges than its changed bytes form clusters kTxMergeGapBytes apart.
void expect_minimal(const Objects& before, const Backend& b, const CostCounters& k,
                    const std::vector<ByteRange>& logged, uint64_t id) {
  std::map<const char*, uint64_t> ranges_in;  // per object of `before`
  for (const ByteRange& r : logged) {
    const char* p = static_cast<const char*>(r.p);
    auto it = before.upper_bound(p);
    ASSERT_NE(it, before.begin()) << "id " << id << ": a range outside every object";
    --it;
    ASSERT_LE(p + r.n, it->first + it->second.size()) << "id " << id << ": a range past its object";
    ++ranges_in[it->first];
  }
  const auto covered = [&](const char* byte) {
    for (const ByteRange& r : logged) {
      const char* p = static_cast<const char*>(r.p);
      if (p <= byte && byte < p + r.n) return true;
    }
    return false;
  };
  uint64_t unlogged = 0, freed_logged = 0;
  std::map<const char*, bool> alive;
  for (const ByteRange& r : b.object_ranges()) {
    const char* now = static_cast<const char*>(r.p);
    const auto it = before.find(now);
    if (it == before.end()) continue;  // allocated by the operation: needs no log
    alive[now] = true;
    const std::string& old = it->second;
    uint64_t clusters = 0;
    size_t last = 0;
    bool any = false;
    for (size_t i = 0; i < std::min(old.size(), r.n); ++i) {
      if (old[i] == now[i]) continue;
      if (!any || i - last > kTxMergeGapBytes) ++clusters;
      any = true;
      last = i;
      unlogged += covered(now + i) ? 0 : 1;
    }
    EXPECT_LE(ranges_in[now], clusters)
        << "id " << id << ": object at offset " << (now - before.begin()->first) << " logged "
        << ranges_in[now] << " times for " << clusters << " clusters of changed bytes";
  }
  for (const auto& [p, n] : ranges_in) freed_logged += alive.count(p) == 0 ? n : 0;
  EXPECT_LE(freed_logged, k.frees) << "id " << id << ": ranges logged in objects it freed";
  EXPECT_LE(unlogged, 8 * k.persists)
      << "id " << id << ": " << unlogged << " bytes changed unlogged";
}

// Runs op once per id, adding up what it logged, each operation held to the minimum.
template <class Op>
Shape run_each(Backend& b, uint64_t first, uint64_t last, Op&& op) {
  Shape s;
  for (uint64_t id = first; id < last; ++id) {
    const Objects before = snapshot(b);
    b.hook().ranges.clear();
    const CostCounters k0 = tl_costs;
    op(id);
    CostCounters k = tl_costs;
    k -= k0;
    s.ranges += k.tx_add_range_calls;
    s.bytes += k.tx_bytes;
    EXPECT_EQ(b.hook().ranges.size(), k.tx_add_range_calls);
    expect_minimal(before, b, k, b.hook().ranges, id);
  }
  return s;
}

// Every structure of the catalog, as a gtest type.
template <template <class> class DS_>
struct Structure {
  template <class B>
  using With = DS_<B>;
};
template <class List>
struct AsTypes;
template <template <class> class... DS>
struct AsTypes<StructureList<DS...>> {
  using type = ::testing::Types<Structure<DS>...>;
};
struct StructureName {
  template <class S>
  static std::string GetName(int) {
    std::string ds(S::template With<DramBackend>::kName);
    for (char& c : ds) c = c == '-' ? '_' : c;
    return ds;
  }
};

template <class S>
class TxShapeTest : public ::testing::Test {};
TYPED_TEST_SUITE(TxShapeTest, AsTypes<Catalog>::type, StructureName);

TYPED_TEST(TxShapeTest, EveryOperationLogsItsDesignsMinimum) {
  using Traits = typename TypeParam::template With<DramBackend>;
  constexpr bool kv = Traits::kOpSet == OpSet::kKv || Traits::kOpSet == OpSet::kOrderedKv;
  if constexpr (!Traits::kModes.has(Mode::kTrans) || Traits::kHarness || !kv) {
    GTEST_SKIP() << "not a key-value structure of pmem-trans";
  } else {
    using DS = typename TypeParam::template With<Backend>;
    ScratchDir dir;
    Backend b(dir.spec(Traits::kName, Mode::kTrans));
    DS ds(b, options());
    const KeyCodec codec = options().codec;
    for (uint64_t id = 0; id < kLoaded; ++id) {
      ASSERT_TRUE(ds.insert(codec.encode(id), value_for(id).data()));
    }
    run_each(b, kLoaded, kLoaded + kEach, [&](uint64_t id) {
      ASSERT_TRUE(ds.insert(codec.encode(id), value_for(id).data()));
    });
    const Shape upd = run_each(b, 0, kEach, [&](uint64_t id) {
      ASSERT_TRUE(ds.update(codec.encode(id), value_for(id + 1).data()));
    });
    run_each(b, kEach, 2 * kEach, [&](uint64_t id) { ASSERT_TRUE(ds.remove(codec.encode(id))); });
    EXPECT_EQ(ds.check(), kLoaded);
    EXPECT_EQ(upd, (Shape{kEach, kEach * kValueSize})) << "update: one range, the value";
  }
}

}  // namespace
}  // namespace pmemids::test
