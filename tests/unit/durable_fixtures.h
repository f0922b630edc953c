// Small durable structures of the queue, set and stack operation sets, for
// testing the machinery every such structure gets (oracles, the per-op-set
// crash models, the multi-thread crash variant, crashes inside recovery)
// before real durable designs exist — each with a planted defect the checkers
// must catch. They synchronise themselves with one spin lock that waits
// through b.relax() (kInternal), so the cooperative crash scheduler can switch
// threads while one waits.
//
//   TestQueue  a bounded FIFO ring: slot written and persisted, then the tail
//              (the commit point) stored and persisted. Planted: the tail
//              first (a crash exposes a slot that was never durable); or a
//              recovery that compacts the ring to position 0 in three
//              persisted steps (correct, but a crash inside it leaves a ring a
//              second recovery cannot repair).
//   TestSet    a sorted list of slab nodes: node persisted, then linked with
//              one persisted 8-byte store; recovery rebuilds the slab bitmap
//              from the reachable nodes. Planted: link before persisting.
//   TestStack  a detectable stack: per-thread announcement records; each
//              operation announces itself in one transaction and applies
//              itself and records its response in a second one, so recovery
//              reports every thread's last operation as applied (with its
//              response) or not applied. Planted: the response is recorded,
//              durably, before the stack changes.
#pragma once

#include <atomic>
#include <cstring>
#include <optional>
#include <vector>

#include "backend/backend.h"
#include "crash/models.h"
#include "ds/common.h"
#include "ds/slab.h"

namespace pmemids::test {

// One lock for the whole structure; waiting is a sequence of b.relax().
template <class B>
class SpinLock {
 public:
  explicit SpinLock(B& b) : b_(b) {}
  void lock() {
    while (held_.exchange(true, std::memory_order_acquire)) b_.relax();
  }
  void unlock() { held_.store(false, std::memory_order_release); }

 private:
  B& b_;
  std::atomic<bool> held_{false};
};

// A handle that forwards to the structure (one lock: nothing per thread).
template <class DS>
struct Forward {
  DS* ds;
  int t;
};

template <Backend B, bool kPublishFirst, bool kCompact = false>
class TestQueueT {
  struct Root {
    RootHeader hdr;
    typename B::template Ptr<char> ring;
    uint64_t slots;
  };

 public:
  static constexpr const char* kName = kPublishFirst ? "test-queue-bad"
                                       : kCompact    ? "test-queue-compact"
                                                     : "test-queue";
  static constexpr const char* kDescription = "test fixture: durable bounded FIFO ring";
  static constexpr OpSet kOpSet = OpSet::kQueue;
  static constexpr Sync kSync = Sync::kInternal;
  static constexpr ModeSet kModes = kEveryMode;
  static constexpr DomainSet kDomains = kEveryDomain;
  static constexpr bool kHarness = false;

  static uint64_t element_bytes(uint32_t v) { return v + 8; }
  static uint64_t pool_bytes(const DsOptions& o) { return (o.queueslots + 2) * stride(o) + 64; }

  struct Handle : Forward<TestQueueT> {
    bool push(uint64_t id, const char* v) { return this->ds->push(id, v); }
    bool pop(uint64_t& id, char* out) { return this->ds->pop(id, out); }
  };

  TestQueueT(B& b, const DsOptions& o)
      : b_(b), lock_(b), q_(o.queueslots), stride_(stride(o)), vsize_(o.value_size) {
    root_ = b.template root<Root>();
    if (!b.created()) {
      root_->hdr.check_reopen(o, kName);
      attach();
      if (kCompact) compact();
      return;
    }
    b.tx([&] {
      b.store(root_->ring, b.template zalloc<char>(2 * kCacheLine + q_ * stride_ + 64, 1));
      b.store(root_->slots, q_);
      b.store(root_->hdr, RootHeader::make(o, q_));
    });
    b.seal(root_, sizeof(Root));
    attach();
  }
  ~TestQueueT() {
    if constexpr (!B::kDurable) b_.free(root_->ring);
  }
  TestQueueT(const TestQueueT&) = delete;
  TestQueueT& operator=(const TestQueueT&) = delete;

  Handle handle(int t) { return Handle{{this, t}}; }

  uint64_t check() const {
    const uint64_t head = *head_, tail = *tail_;
    if (head > tail || tail - head > q_) {
      throw InvariantViolation(fmt::format("{}: head {} tail {}", kName, head, tail));
    }
    return tail - head;
  }
  template <class F>
  void for_each(F&& f) const {
    for (uint64_t p = *head_; p < *tail_; ++p) f(id_at(p), slot(p) + 8);
  }
  template <class F>
  void for_each_object(F&& visit) const {
    visit(static_cast<const void*>(root_->ring.get()));
  }

  bool push(uint64_t id, const char* v) {
    const std::lock_guard g(lock_);
    const uint64_t tail = b_.load(*tail_);
    if (tail - b_.load(*head_) >= q_) return false;
    if (kPublishFirst) commit(*tail_, tail + 1);
    char* s = slot(tail);
    b_.put(s, &id, 8);
    b_.put(s + 8, v, vsize_);
    b_.persist(s, 8 + vsize_);
    if (!kPublishFirst) commit(*tail_, tail + 1);
    return true;
  }
  bool pop(uint64_t& id, char* out) {
    const std::lock_guard g(lock_);
    const uint64_t head = b_.load(*head_);
    if (head == b_.load(*tail_)) return false;
    id = id_at(head);
    std::memcpy(out, slot(head) + 8, vsize_);
    commit(*head_, head + 1);
    return true;
  }

 private:
  static uint64_t stride(const DsOptions& o) { return (o.value_size + 8 + 63) / 64 * 64; }
  void attach() {
    char* base = align_line(root_->ring.get());
    head_ = reinterpret_cast<uint64_t*>(base);
    tail_ = reinterpret_cast<uint64_t*>(base + kCacheLine);
    slots_ = base + 2 * kCacheLine;
  }
  void commit(uint64_t& w, uint64_t v) {
    b_.atomic_store(w, v);
    b_.persist(&w, 8);
  }
  // Moves the elements to positions 0.. (slots, then head, then tail).
  void compact() {
    const uint64_t head = *head_, n = *tail_ - head;
    if (head == 0) return;
    std::vector<char> copy(n * stride_);
    for (uint64_t i = 0; i < n; ++i) std::memcpy(&copy[i * stride_], slot(head + i), stride_);
    for (uint64_t i = 0; i < n; ++i) {
      b_.put(slot(i), &copy[i * stride_], stride_);
      b_.persist(slot(i), stride_);
    }
    commit(*head_, 0);
    commit(*tail_, n);
  }
  char* slot(uint64_t p) const { return slots_ + (p % q_) * stride_; }
  uint64_t id_at(uint64_t p) const {
    uint64_t id;
    std::memcpy(&id, slot(p), 8);
    return id;
  }

  B& b_;
  SpinLock<B> lock_;
  uint64_t q_, stride_;
  uint32_t vsize_;
  Root* root_ = nullptr;
  uint64_t* head_ = nullptr;
  uint64_t* tail_ = nullptr;
  char* slots_ = nullptr;
};
template <Backend B>
using TestQueue = TestQueueT<B, false>;
template <Backend B>
using TestQueueBad = TestQueueT<B, true>;
template <Backend B>
using TestQueueCompact = TestQueueT<B, false, true>;

template <Backend B, bool kPublishFirst>
class TestSetT {
  struct Node {
    uint64_t key;
    uint64_t next;  // index, 0 = end
  };
  struct Root {
    RootHeader hdr;
    typename B::template Ptr<char> slab;
    uint64_t capacity;
  };
  static constexpr uint64_t kHead = 1;

 public:
  static constexpr const char* kName = kPublishFirst ? "test-set-bad" : "test-set";
  static constexpr const char* kDescription = "test fixture: durable sorted list of slab nodes";
  static constexpr OpSet kOpSet = OpSet::kSet;
  static constexpr Sync kSync = Sync::kInternal;
  static constexpr ModeSet kModes = kEveryMode;
  static constexpr DomainSet kDomains = kEveryDomain;
  static constexpr bool kHarness = false;

  static uint64_t element_bytes(uint32_t) { return sizeof(Node); }
  static uint64_t capacity(const DsOptions& o) { return o.keyrange + 2; }
  static uint64_t pool_bytes(const DsOptions& o) {
    return Slab<B>::bytes(capacity(o), sizeof(Node));
  }

  struct Handle : Forward<TestSetT> {
    bool insert(uint64_t k) { return this->ds->insert(k); }
    bool remove(uint64_t k) { return this->ds->remove(k); }
    bool contains(uint64_t k) { return this->ds->contains(k); }
  };

  TestSetT(B& b, const DsOptions& o) : b_(b), lock_(b) {
    root_ = b.template root<Root>();
    if (!b.created()) {
      root_->hdr.check_reopen(o, kName);
      slab_.emplace(root_->slab, root_->capacity, sizeof(Node));
      slab_->rebuild([&](auto&& mark) {  // recovery: the reachable nodes are in use
        for (uint64_t x = kHead; x != 0; x = node(x).next) mark(x);
      });
      return;
    }
    b.tx([&] {
      slab_.emplace(b, capacity(o), sizeof(Node), 1);
      b.store(root_->slab, slab_->array());
      b.store(root_->capacity, capacity(o));
      b.store(root_->hdr, RootHeader::make(o, o.keyrange));
    });
    b.seal(root_, sizeof(Root));
    typename Slab<B>::Cursor c;
    if (slab_->alloc(c) != kHead) throw std::logic_error("test-set: head misplaced");
  }
  ~TestSetT() {
    if constexpr (!B::kDurable) b_.free(slab_->array());
  }
  TestSetT(const TestSetT&) = delete;
  TestSetT& operator=(const TestSetT&) = delete;

  Handle handle(int t) { return Handle{{this, t}}; }

  uint64_t check() const {
    std::vector<uint64_t> used;
    uint64_t prev = 0, n = 0;
    for (uint64_t x = kHead; x != 0; x = node(x).next) {
      if (x > slab_->capacity() || used.size() > slab_->capacity()) {
        throw InvariantViolation(fmt::format("{}: link to node {}", kName, x));
      }
      if (x != kHead) {
        if (node(x).key <= prev) {
          throw InvariantViolation(fmt::format("{}: key {} after {}", kName, node(x).key, prev));
        }
        prev = node(x).key;
        ++n;
      }
      used.push_back(x);
    }
    slab_->verify(used, kName);
    return n;
  }
  template <class F>
  void for_each(F&& f) const {
    for (uint64_t x = node(kHead).next; x != 0; x = node(x).next) f(node(x).key);
  }
  template <class F>
  void for_each_object(F&& visit) const {
    visit(static_cast<const void*>(slab_->array().get()));
  }

  bool insert(uint64_t key) {
    const std::lock_guard g(lock_);
    uint64_t pred = find(key);
    const uint64_t next = node(pred).next;
    if (next != 0 && node(next).key == key) return false;
    typename Slab<B>::Cursor c;
    const uint64_t n = slab_->alloc(c);
    if (n == 0) throw RuntimeError("test-set: slab full");
    const Node fresh{key, next};
    b_.put(&node(n), &fresh, sizeof fresh);
    if (!kPublishFirst) b_.persist(&node(n), sizeof fresh);
    b_.atomic_store(node(pred).next, n);
    b_.persist(&node(pred).next, 8);
    if (kPublishFirst) b_.persist(&node(n), sizeof fresh);
    return true;
  }
  bool remove(uint64_t key) {
    const std::lock_guard g(lock_);
    const uint64_t pred = find(key), x = node(pred).next;
    if (x == 0 || node(x).key != key) return false;
    b_.atomic_store(node(pred).next, node(x).next);
    b_.persist(&node(pred).next, 8);
    slab_->free(x);
    return true;
  }
  bool contains(uint64_t key) {
    const std::lock_guard g(lock_);
    const uint64_t x = node(find(key)).next;
    return x != 0 && node(x).key == key;
  }

 private:
  Node& node(uint64_t i) const { return slab_->template at<Node>(i); }
  // The last node with key < `key` (the head when none).
  uint64_t find(uint64_t key) {
    uint64_t pred = kHead;
    for (uint64_t x = b_.load(node(kHead).next); x != 0 && node(x).key < key;
         x = b_.load(node(x).next)) {
      pred = x;
    }
    return pred;
  }

  B& b_;
  SpinLock<B> lock_;
  Root* root_ = nullptr;
  std::optional<Slab<B>> slab_;
};
template <Backend B>
using TestSet = TestSetT<B, false>;
template <Backend B>
using TestSetBad = TestSetT<B, true>;

template <Backend B, bool kEarlyResponse>
class TestStackT {
  struct Node {
    uint64_t id;
    uint64_t next;  // index, 0 = bottom
  };
  // One line per thread: its last announced operation and, once applied,
  // the response.
  struct alignas(64) Record {
    uint64_t seq;   // the thread's operations announced so far
    uint64_t op;    // 0 none, 1 push, 2 pop
    uint64_t arg;   // push: the id
    uint64_t done;  // 1 once applied
    uint64_t ok;
    uint64_t response;
  };
  struct Root {
    RootHeader hdr;
    typename B::template Ptr<char> slab;
    typename B::template Ptr<char> records;
    uint64_t capacity;
    uint64_t threads;
    uint64_t top;
  };

 public:
  static constexpr const char* kName = kEarlyResponse ? "test-stack-bad" : "test-stack";
  static constexpr const char* kDescription = "test fixture: detectable durable stack";
  static constexpr OpSet kOpSet = OpSet::kStack;
  static constexpr Sync kSync = Sync::kInternal;
  static constexpr ModeSet kModes{Mode::kPersist, Mode::kTrans};
  static constexpr DomainSet kDomains = kEveryDomain;
  static constexpr bool kHarness = false;

  static uint64_t element_bytes(uint32_t) { return sizeof(Node); }
  static uint64_t pool_bytes(const DsOptions& o) {
    return Slab<B>::bytes(o.capacity + 1, sizeof(Node)) + (o.threads + 1) * sizeof(Record);
  }

  struct Handle : Forward<TestStackT> {
    bool push(uint64_t id) { return this->ds->push(this->t, id); }
    bool pop(uint64_t& id) { return this->ds->pop(this->t, id); }
  };

  TestStackT(B& b, const DsOptions& o) : b_(b), lock_(b) {
    root_ = b.template root<Root>();
    if (!b.created()) {
      root_->hdr.check_reopen(o, kName);
      slab_.emplace(root_->slab, root_->capacity, sizeof(Node));
      records_ = reinterpret_cast<Record*>(align_line(root_->records.get()));
      slab_->rebuild([&](auto&& mark) {
        for (uint64_t x = root_->top; x != 0; x = node(x).next) mark(x);
      });
      return;
    }
    b.durable_tx([&] {
      slab_.emplace(b, o.capacity, sizeof(Node), 1);
      b.tx_snapshot(root_, sizeof(Root));
      root_->slab = slab_->array();
      root_->records = b.template zalloc<char>((o.threads + 1) * sizeof(Record), 2);
      root_->capacity = o.capacity;
      root_->threads = o.threads;
      root_->hdr = RootHeader::make(o, o.capacity);
    });
    records_ = reinterpret_cast<Record*>(align_line(root_->records.get()));
  }

  Handle handle(int t) { return Handle{{this, t}}; }

  RecoveredOp recovered(int t) const {
    const Record& r = records_[t];
    if (r.op == 0) return {};
    if (r.done == 0) return {RecoveredOp::kNotApplied, r.seq, false, 0};
    return {RecoveredOp::kApplied, r.seq, r.ok != 0, r.response};
  }

  uint64_t check() const {
    std::vector<uint64_t> used;
    for (uint64_t x = root_->top; x != 0; x = node(x).next) {
      if (x > slab_->capacity() || used.size() > slab_->capacity()) {
        throw InvariantViolation(fmt::format("{}: link to node {}", kName, x));
      }
      used.push_back(x);
    }
    slab_->verify(used, kName);
    return used.size();
  }
  template <class F>
  void for_each(F&& f) const {
    for (uint64_t x = root_->top; x != 0; x = node(x).next) f(node(x).id);
  }
  template <class F>
  void for_each_object(F&& visit) const {
    visit(static_cast<const void*>(slab_->array().get()));
    visit(static_cast<const void*>(root_->records.get()));
  }

  bool push(int t, uint64_t id) {
    const std::lock_guard g(lock_);
    Record& r = announce(t, 1, id);
    typename Slab<B>::Cursor c;
    const uint64_t n = slab_->alloc(c);
    if (n == 0) {
      respond(r, false, 0);
      return false;
    }
    const Node fresh{id, root_->top};
    b_.put(&node(n), &fresh, sizeof fresh);
    b_.persist(&node(n), sizeof fresh);
    apply(r, true, 0, [&] { root_->top = n; });
    return true;
  }
  bool pop(int t, uint64_t& id) {
    const std::lock_guard g(lock_);
    Record& r = announce(t, 2, 0);
    const uint64_t top = root_->top;
    if (top == 0) {
      apply(r, false, 0, [] {});
      return false;
    }
    id = node(top).id;
    apply(r, true, id, [&] { root_->top = node(top).next; });
    slab_->free(top);
    return true;
  }

 private:
  Node& node(uint64_t i) const { return slab_->template at<Node>(i); }
  Record& announce(int t, uint64_t op, uint64_t arg) {
    Record& r = records_[t];
    b_.durable_tx([&] {
      b_.tx_snapshot(&r, sizeof r);
      r = Record{r.seq + 1, op, arg, 0, 0, 0};
    });
    return r;
  }
  void respond(Record& r, bool ok, uint64_t response) {
    b_.durable_tx([&] {
      b_.tx_snapshot(&r.done, 3 * sizeof(uint64_t));
      r.done = 1;
      r.ok = ok;
      r.response = response;
    });
  }
  // The change and the response in one transaction (planted: the response
  // first, in its own).
  template <class F>
  void apply(Record& r, bool ok, uint64_t response, F&& change) {
    if (kEarlyResponse) respond(r, ok, response);
    b_.durable_tx([&] {
      b_.tx_snapshot(&root_->top, sizeof root_->top);
      change();
      if (!kEarlyResponse) {
        b_.tx_snapshot(&r.done, 3 * sizeof(uint64_t));
        r.done = 1;
        r.ok = ok;
        r.response = response;
      }
    });
  }

  B& b_;
  SpinLock<B> lock_;
  Root* root_ = nullptr;
  Record* records_ = nullptr;
  std::optional<Slab<B>> slab_;
};
template <Backend B>
using TestStack = TestStackT<B, false>;
template <Backend B>
using TestStackBad = TestStackT<B, true>;

}  // namespace pmemids::test
