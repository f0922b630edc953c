// Freed but still linked: the crash checker's reachable-implies-allocated
// check (dangling_objects) and its post-recovery probe, on a test-only list
// whose remove frees its node with libpmemobj's atomic API before the unlink
// is durable (the planted bug), in both durable modes; the same list with the
// correct order passes.
#include <libpmemobj.h>

#include <cstring>

#include "catalog_pairs.h"
#include "crash/crash_impl.h"
#include "workload/properties.h"

namespace pmemids::test {
namespace {

// A key-value list for these tests only: insert prepends a sealed node
// published by one link store; remove unlinks the node (one transaction) and
// then frees it. With kFreeFirst the free comes first, with pmemobj_free
// outside the unlinking transaction: a crash before the unlink is durable
// leaves a freed node linked, which the next allocation may reuse. Walks are
// bounded (a reused node can close a cycle).
template <bool kFreeFirst>
struct PlantedList {
  template <Backend B>
  class With {
    struct Node;
    using NodePtr = typename B::template Ptr<Node>;
    struct Node {
      NodePtr next;
      uint64_t key;
      char* value() { return reinterpret_cast<char*>(&key + 1); }
    };
    struct Root {
      RootHeader hdr;
      NodePtr head;
    };
    static constexpr size_t kHeader = offsetof(Node, key) + sizeof(uint64_t);
    static constexpr uint64_t kMaxSteps = 1 << 16;

   public:
    static constexpr const char* kName = "planted-list";
    static constexpr OpSet kOpSet = OpSet::kKv;
    static constexpr Sync kSync = Sync::kExternal;
    enum : unsigned { kTypeNode = 1 };
    static uint64_t pool_bytes(const DsOptions& o) { return o.capacity * 512; }

    With(B& b, const DsOptions& o) : b_(b), vsize_(o.value_size) {
      root_ = b.template root<Root>();
      if (b.created()) {
        b.tx([&] { b.store(root_->hdr, RootHeader::make(o, 0)); });
      } else {
        root_->hdr.check_reopen(o, kName);
        repair_leaks(b_, *this);
      }
    }

    bool read(uint64_t key, char* out) const {
      Node* n = find(key).first;
      if (n != nullptr) std::memcpy(out, n->value(), vsize_);
      return n != nullptr;
    }
    bool update(uint64_t key, const char* v) {
      Node* n = find(key).first;
      if (n != nullptr) b_.tx([&] { b_.write_value(n->value(), v, vsize_); });
      return n != nullptr;
    }
    bool insert(uint64_t key, const char* v) {
      if (update(key, v)) return false;
      b_.tx([&] {
        NodePtr fresh = b_.template alloc<Node>(kHeader + vsize_, kTypeNode);
        Node* n = fresh.get();
        n->next = root_->head;
        n->key = key;
        std::memcpy(n->value(), v, vsize_);
        b_.seal(n, kHeader + vsize_);
        b_.store(root_->head, fresh);
      });
      return true;
    }
    bool remove(uint64_t key) {
      const auto [n, link] = find(key);
      if (n == nullptr) return false;
      NodePtr victim = *link;
      if constexpr (kFreeFirst) {
        PMEMoid oid = victim.oid();
        pmemobj_free(&oid);
      }
      b_.tx([&] {
        b_.store(*link, n->next);
        if constexpr (!kFreeFirst) b_.free(victim);
      });
      return true;
    }

    template <class F>
    void for_each(F&& f) const {
      walk([&](Node* n) { f(n->key, n->value()); });
    }
    template <class F>
    void for_each_object(F&& visit) const {
      for (NodePtr p = root_->head; p;) {
        Node* n = p.get();
        if (!visit(n)) return;
        p = n->next;
      }
    }
    uint64_t check() const {
      uint64_t count = 0;
      walk([&](Node*) { ++count; });
      return count;
    }

   private:
    template <class F>
    void walk(F&& f) const {
      uint64_t steps = 0;
      for (NodePtr p = root_->head; p; p = p.get()->next) {
        if (++steps > kMaxSteps) throw InvariantViolation("planted-list: the walk does not end");
        f(p.get());
      }
    }
    // The node holding key and the link that points at it.
    std::pair<Node*, NodePtr*> find(uint64_t key) const {
      uint64_t steps = 0;
      for (NodePtr* link = &root_->head; *link; link = &link->get()->next) {
        if (++steps > kMaxSteps) throw InvariantViolation("planted-list: the walk does not end");
        if (link->get()->key == key) return {link->get(), link};
      }
      return {nullptr, nullptr};
    }

    B& b_;
    uint32_t vsize_;
    Root* root_;
  };
};

template <class B>
class Dangling : public ::testing::Test {
 protected:
  ScratchDir dir_;
};
TYPED_TEST_SUITE(Dangling, CheckingBackends);

CrashWorkload workload() {
  PropertySet p;
  for (const char* kv :
       {"recordcount=12", "operationcount=30", "readproportion=0", "updateproportion=0.3",
        "insertproportion=0.4", "deleteproportion=0.3", "requestdistribution=uniform-inserted"}) {
    p.set_override(kv);
  }
  return crash_workload(p.build());
}

template <template <class> class DS, class B>
CrashReport run_all(const ScratchDir& dir, const CrashWorkload& w) {
  CrashOptions o;
  o.work_dir = dir.path();
  o.points = 100000;  // every point
  o.seed = 7;
  o.pmempool_check = false;  // not what these tests check; each check is a process
  return run_crash<DS, B>(o, w);
}

std::string describe(const CrashReport& r) {
  std::string s =
      fmt::format("points {}, lost {}, half {}, dangling {}, invariant failures {}", r.points,
                  r.lost_acknowledged, r.half_applied, r.dangling_objects, r.invariant_failures);
  for (const auto& f : r.failures) s += "\n  " + f;
  return s;
}

TYPED_TEST(Dangling, FreeBeforeUnlinkIsReported) {
  const CrashWorkload w = workload();
  const CrashReport r = run_all<PlantedList<true>::template With, TypeParam>(this->dir_, w);
  EXPECT_GT(r.dangling_objects, 0u) << describe(r);
  // The probe's inserts reuse a dangling node: reads or contents go wrong.
  EXPECT_GT(r.lost_acknowledged, 0u) << describe(r);
  EXPECT_TRUE(r.violation(TypeParam::kMode == Mode::kTrans)) << describe(r);
}

TYPED_TEST(Dangling, UnlinkBeforeFreePasses) {
  const CrashWorkload w = workload();
  const CrashReport r = run_all<PlantedList<false>::template With, TypeParam>(this->dir_, w);
  EXPECT_EQ(r.dangling_objects, 0u) << describe(r);
  EXPECT_FALSE(r.violation(TypeParam::kMode == Mode::kTrans)) << describe(r);
}

}  // namespace
}  // namespace pmemids::test
