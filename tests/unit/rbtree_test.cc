// Red-black-specific behaviour of RBTree; the shared ordered and oracle tests
// cover its map semantics. Here: the height bound under sequential insertion,
// deletes in random order keeping every invariant, the exact persistent stores of
// the first insert fix-up level and of a delete next to a red sibling, and
// check() catching each kind of planted corruption. Instantiated for dram,
// pmem-persist and pmem-trans.
#include "ds/rbtree.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "catalog_pairs.h"
#include "workload/generators.h"

namespace pmemids {

// Reaches into a tree's nodes to plant corruption. Writes go straight to the
// nodes, bypassing the backend: the pools are scratch.
struct RBTreeTestAccess {
  // Calls f(node, parent, side, depth) on every node in pre-order (parent null
  // for the root) until f returns true; returns whether it did.
  template <class T, class F>
  static bool find(const T& t, F&& f) {
    using Hdr = typename T::Hdr;
    struct Item {
      Hdr* n;
      Hdr* parent;
      int side;
      int depth;
    };
    std::vector<Item> stack;
    if (t.root_->top) stack.push_back({t.hdr(t.root_->top), nullptr, 0, 0});
    while (!stack.empty()) {
      const Item it = stack.back();
      stack.pop_back();
      if (f(it.n, it.parent, it.side, it.depth)) return true;
      for (int s = 0; s < 2; ++s) {
        if (it.n->child[s]) stack.push_back({t.hdr(it.n->child[s]), it.n, s, it.depth + 1});
      }
    }
    return false;
  }
  // The tree as text: key, colour (b/r), then the children in parentheses.
  template <class T>
  static std::string shape(const T& t) {
    return t.root_->top ? shape_of(t, t.hdr(t.root_->top)) : "-";
  }
  template <class T>
  static std::string shape_of(const T& t, const typename T::Hdr* n) {
    std::string s = fmt::format("{}{}", n->key, n->red ? "r" : "b");
    if (n->child[0] || n->child[1]) {
      s += "(";
      s += n->child[0] ? shape_of(t, t.hdr(n->child[0])) : "-";
      s += ",";
      s += n->child[1] ? shape_of(t, t.hdr(n->child[1])) : "-";
      s += ")";
    }
    return s;
  }
  template <class T>
  static auto* root(const T& t) {
    return t.hdr(t.root_->top);
  }
  template <class T>
  static void cut(T&, typename T::Hdr* n, int side) {
    n->child[side] = typename T::NodePtr();
  }
  template <class T>
  static void link_to_root(T& t, typename T::Hdr* n, int side) {
    n->child[side] = t.root_->top;
  }
};

namespace test {
namespace {

constexpr uint32_t kValueSize = 100;

DsOptions options() {
  return DsOptions{.capacity = 1 << 14,
                   .expected = 1 << 13,
                   .value_size = kValueSize,
                   .codec = KeyCodec{InsertOrder::kOrdered}};
}

std::string value_for(uint64_t n) {
  std::string v = fmt::format("rb{}:", n);
  v.resize(kValueSize, static_cast<char>('a' + n % 26));
  return v;
}

double height_bound(uint64_t n) { return 2 * std::log2(static_cast<double>(n) + 1); }

// The red-black tree in every mode it supports.
using RBPairs = BackendPairs<RBTree>;

template <class P>
class RBTreeTest : public ::testing::Test {
 protected:
  RBTreeTest() : b_(dir_.spec(P::DS::kName, P::B::kMode)), ds_(b_, options()) {}

  void insert_all(const std::vector<uint64_t>& keys) {
    for (uint64_t k : keys) ASSERT_TRUE(ds_.insert(k, value_for(k).data())) << k;
  }
  // check() with its message, so a failing expectation shows what it found.
  std::string check_message() {
    try {
      ds_.check();
    } catch (const InvariantViolation& e) {
      return e.what();
    }
    return "(no violation)";
  }
  // A tree of keys 1..n, inserted in order; many red nodes at several depths.
  void sequential(uint64_t n) {
    for (uint64_t k = 1; k <= n; ++k) ASSERT_TRUE(ds_.insert(k, value_for(k).data()));
    ASSERT_EQ(ds_.check(), n);
  }

  ScratchDir dir_;
  typename P::B b_;
  typename P::DS ds_;
};
TYPED_TEST_SUITE(RBTreeTest, RBPairs, PairName);

TYPED_TEST(RBTreeTest, HeightStaysWithinTwiceLog2UnderSequentialInsertion) {
  auto& ds = this->ds_;
  uint64_t n = 0;
  // Ascending from 0, then descending from UINT64_MAX: a plain BST would degrade
  // to a list of height n.
  for (uint64_t k = 0; k < 3000; ++k, ++n) {
    ASSERT_TRUE(ds.insert(k, value_for(k).data()));
    ASSERT_LE(ds.height(), height_bound(n + 1)) << "after inserting " << k;
  }
  for (uint64_t k = ~uint64_t{0}; k > ~uint64_t{0} - 3000; --k, ++n) {
    ASSERT_TRUE(ds.insert(k, value_for(k).data()));
    ASSERT_LE(ds.height(), height_bound(n + 1)) << "after inserting " << k;
  }
  EXPECT_EQ(ds.check(), n);
  EXPECT_GE(ds.height(), 13u);  // log2(6001) rounded up: the tree is a tree
}

TYPED_TEST(RBTreeTest, DeletingInRandomOrderKeepsInvariants) {
  auto& ds = this->ds_;
  Rng rng(5);
  std::vector<uint64_t> keys = {0, ~uint64_t{0}};
  for (int i = 0; i < 1500; ++i) keys.push_back(rng.next());
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::vector<uint64_t> order = keys;
  std::shuffle(order.begin(), order.end(), std::mt19937_64(6));
  this->insert_all(order);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(7));
  char buf[kValueSize];
  uint64_t left = keys.size();
  for (size_t i = 0; i < order.size(); ++i) {
    ASSERT_TRUE(ds.remove(order[i])) << order[i];
    --left;
    ASSERT_EQ(ds.check(), left) << "after deleting " << order[i] << ": " << this->check_message();
    ASSERT_LE(ds.height(), height_bound(left));
    ASSERT_FALSE(ds.read(order[i], buf));
    if (i + 1 < order.size()) {  // a survivor keeps its value
      ASSERT_TRUE(ds.read(order[i + 1], buf));
      ASSERT_EQ(std::string(buf, kValueSize), value_for(order[i + 1]));
    }
  }
  EXPECT_EQ(ds.height(), 0u);
}

// The first fix-up level: z lands under a red parent with a black (null) uncle.
// As the inner grandchild it is published directly in its grandparent's place
// (two links, one colour); as the outer grandchild the parent rotates up
// (publication plus three links, two colours). pmem-trans logs each node
// header it changes once, whole (48 bytes), and the root link (16 bytes).
TYPED_TEST(RBTreeTest, FirstLevelRotationsStoreOnlyWhatChanges) {
  using A = RBTreeTestAccess;
  using B = typename TypeParam::B;
  auto& ds = this->ds_;
  this->insert_all({10, 30});
  CostCounters before = tl_costs;
  ASSERT_TRUE(ds.insert(20, value_for(20).data()));  // inner grandchild of 10
  CostCounters inner = tl_costs;
  inner -= before;
  EXPECT_EQ(A::shape(ds), "20b(10r,30r)");
  ASSERT_TRUE(ds.insert(40, value_for(40).data()));  // colour flip
  ASSERT_TRUE(ds.insert(50, value_for(50).data()));  // outer grandchild of 30
  before = tl_costs;
  ASSERT_TRUE(ds.insert(60, value_for(60).data()));  // colour flip
  ASSERT_TRUE(ds.insert(70, value_for(70).data()));  // outer grandchild of 50
  CostCounters outer = tl_costs;
  outer -= before;
  EXPECT_EQ(A::shape(ds), "20b(10b,40r(30b,60b(50r,70r)))");
  EXPECT_EQ(ds.check(), 7u);
  if constexpr (B::kMode == Mode::kTrans) {
    // 20: the root link, and 10's link and colour.
    EXPECT_EQ(inner.tx_add_range_calls, 2u);
    EXPECT_EQ(inner.tx_bytes, 16u + 48u);
    // 60: 50's link and colour, 30's and 40's colours; 70: 60's link and
    // colour, 40's link, 50's link and colour.
    EXPECT_EQ(outer.tx_add_range_calls, 3u + 3u);
    EXPECT_EQ(outer.tx_bytes, 6 * 48u);
  }
  if constexpr (B::kMode == Mode::kPersist) {
    // seal (3 lines: value, value, header), publish, cut g's link, colour g.
    EXPECT_EQ(inner.persists, 4u);
    EXPECT_EQ(inner.flushed_lines, 6u);
    EXPECT_EQ(outer.persists, (2u + 3u) + (2u + 3u + 2u));
  }
}

// A delete whose sibling is red: the sibling's rotation is merged with the step
// after it, so no link is stored twice. The unmerged sequence (two rotations at
// the same parent) would log 6 or 8 links instead of 3 or 6.
TYPED_TEST(RBTreeTest, DeleteMergesTheRedSiblingRotation) {
  using A = RBTreeTestAccess;
  using B = typename TypeParam::B;
  auto& ds = this->ds_;
  // Far nephew red: 20b(10b,50r(30b(-,40r),60b)).
  this->insert_all({10, 20, 50, 30, 60, 40});
  ASSERT_EQ(A::shape(ds), "20b(10b,50r(30b(-,40r),60b))");
  CostCounters before = tl_costs;
  ASSERT_TRUE(ds.remove(10));
  CostCounters far = tl_costs;
  far -= before;
  EXPECT_EQ(A::shape(ds), "50b(30r(20b,40b),60b)");
  ASSERT_EQ(ds.check(), 5u);
  // Near nephew red: 20b(10b,50r(40b(30r,-),60b)).
  for (uint64_t k : {20, 30, 40, 50, 60}) ASSERT_TRUE(ds.remove(k));
  this->insert_all({20, 40, 10, 50, 60, 30});
  ASSERT_EQ(A::shape(ds), "20b(10b,50r(40b(30r,-),60b))");
  before = tl_costs;
  ASSERT_TRUE(ds.remove(10));
  CostCounters near = tl_costs;
  near -= before;
  EXPECT_EQ(A::shape(ds), "50b(30r(20b,40b),60b)");
  ASSERT_EQ(ds.check(), 5u);
  if constexpr (B::kMode == Mode::kTrans) {
    // The root link; the headers of 20, 30, 50 and 40 (links and colours; 10
    // is unlinked from 20's, already logged).
    EXPECT_EQ(far.tx_add_range_calls, 5u);
    EXPECT_EQ(far.tx_bytes, 16u + 4 * 48u);
    // The root link; the headers of 20, 40, 50 and 30.
    EXPECT_EQ(near.tx_add_range_calls, 5u);
    EXPECT_EQ(near.tx_bytes, 16u + 4 * 48u);
  }
  if constexpr (B::kMode == Mode::kPersist) {
    EXPECT_EQ(far.persists, 3u + 3u + 1u);
    EXPECT_EQ(near.persists, 6u + 1u + 1u);
  }
}

TYPED_TEST(RBTreeTest, CheckCatchesARedNodeWithARedChild) {
  using A = RBTreeTestAccess;
  this->sequential(300);
  // A black child of a red node turns red. Its own subtree's black height drops
  // too, but the red-red pair is met first on the way down.
  const bool planted = A::find(this->ds_, [](auto* n, auto* parent, int, int) {
    if (parent == nullptr || !parent->red || n->red) return false;
    n->red = 1;
    return true;
  });
  ASSERT_TRUE(planted);
  EXPECT_THROW(this->ds_.check(), InvariantViolation);
  EXPECT_NE(this->check_message().find("has a red parent"), std::string::npos)
      << this->check_message();
}

TYPED_TEST(RBTreeTest, CheckCatchesUnequalBlackHeights) {
  using A = RBTreeTestAccess;
  this->sequential(300);
  // Cut a black leaf off its parent: one path loses a black node, no colour
  // pattern changes.
  std::function<void()> restore;
  const bool planted = A::find(this->ds_, [&](auto* n, auto* parent, int side, int) {
    if (parent == nullptr || n->red || n->child[0] || n->child[1]) return false;
    restore = [parent, side, leaf = parent->child[side]] { parent->child[side] = leaf; };
    A::cut(this->ds_, parent, side);
    return true;
  });
  ASSERT_TRUE(planted);
  EXPECT_THROW(this->ds_.check(), InvariantViolation);
  EXPECT_NE(this->check_message().find("black height"), std::string::npos) << this->check_message();
  restore();  // the leaf back: the destructor frees every node
}

TYPED_TEST(RBTreeTest, CheckCatchesAKeyOutsideAnAncestorsRange) {
  using A = RBTreeTestAccess;
  this->sequential(300);
  // A leaf in the root's left subtree that is its parent's right child takes a key
  // above the root's: still larger than its parent, so only the bound inherited
  // from the root catches it.
  const uint64_t root_key = A::root(this->ds_)->key;
  const bool planted = A::find(this->ds_, [&](auto* n, auto*, int side, int depth) {
    if (depth < 2 || side != 1 || n->key > root_key || n->child[0] || n->child[1]) return false;
    n->key = root_key + 1;
    return true;
  });
  ASSERT_TRUE(planted);
  EXPECT_THROW(this->ds_.check(), InvariantViolation);
  EXPECT_NE(this->check_message().find("order"), std::string::npos) << this->check_message();
}

TYPED_TEST(RBTreeTest, CheckCatchesACycleAndARedRoot) {
  using A = RBTreeTestAccess;
  this->sequential(50);
  A::root(this->ds_)->red = 1;
  EXPECT_NE(this->check_message().find("is red"), std::string::npos) << this->check_message();
  A::root(this->ds_)->red = 0;
  ASSERT_EQ(this->ds_.check(), 50u);
  decltype(A::root(this->ds_)) looped = nullptr;
  const bool planted = A::find(this->ds_, [&](auto* n, auto*, int, int) {
    if (n->child[1]) return false;
    A::link_to_root(this->ds_, n, 1);
    looped = n;
    return true;
  });
  ASSERT_TRUE(planted);
  EXPECT_NE(this->check_message().find("reached twice"), std::string::npos)
      << this->check_message();
  looped->child[1] = {};  // undo, so the tree can be torn down
  EXPECT_EQ(this->ds_.check(), 50u);
}

}  // namespace
}  // namespace test
}  // namespace pmemids
