// What the combining stacks (stack-dfc, stack-dfc-flat, stack-pbcomb,
// stack-fc-volatile) share: the combiner lock, the wait policy, and one
// combining pass over a batch of collected requests applied to the node stack
// (ds/node_stack.h) with elimination.
//
// The lock and the wait state are volatile (DRAM): a crash releases them.
// Every wait iteration calls b.relax(), the crash checker's scheduling point,
// so a waiter never spins without letting the combiner run.
#pragma once

#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "counters/cost_counters.h"
#include "ds/node_stack.h"
#include "pmemids/combining_options.h"
#include "pmemids/metric.h"
#include "pmemids/structure.h"

namespace pmemids {

// The combining stacks' knobs (pmemids/combining_options.h), each declared by
// the stacks that read it (kKnobs).
inline constexpr std::string_view kWaitChoices[] = {
    wait_policy_name(WaitPolicy::kSpin), wait_policy_name(WaitPolicy::kYield),
    wait_policy_name(WaitPolicy::kAdaptive)};  // in WaitPolicy's order
inline constexpr std::string_view kOnOff[] = {"on", "off"};
inline constexpr Knob kWaitKnob{
    .name = "wait",
    .type = KnobType::kChoice,
    .def = static_cast<double>(WaitPolicy::kAdaptive),
    .help =
        "Combining stacks: how a thread waits for the combiner: spin, yield, adaptive (spin "
        "while workers <= CPUs, yield when oversubscribed)",
    .choices = kWaitChoices,
    .get = [](const DsOptions& o) { return static_cast<double>(o.combining.wait); },
    .set = [](DsOptions& o,
              double v) { o.combining.wait = static_cast<WaitPolicy>(static_cast<int>(v)); }};
inline constexpr Knob kCombinerYieldKnob{
    .name = "combiner_yield",
    .type = KnobType::kFlag,
    .def = 0,
    .help = "Combining stacks: the combiner yields the CPU after each session",
    .get = [](const DsOptions& o) { return o.combining.combiner_yield ? 1.0 : 0.0; },
    .set = [](DsOptions& o, double v) { o.combining.combiner_yield = v != 0; }};
// on (index 0) and off (1), for the knobs that are switches with a value.
constexpr double on_off(bool on) { return on ? 0 : 1; }
inline constexpr Knob kPersistRequestsKnob{
    .name = "persist_requests",
    .type = KnobType::kChoice,
    .def = on_off(true),
    .help =
        "stack-dfc, stack-dfc-flat: threads persist their announcements (on) or leave it to "
        "the combiner (off)",
    .choices = kOnOff,
    .get = [](const DsOptions& o) { return on_off(o.combining.persist_requests); },
    .set = [](DsOptions& o, double v) { o.combining.persist_requests = v == on_off(true); }};
inline constexpr Knob kEliminationKnob{
    .name = "elimination",
    .type = KnobType::kChoice,
    .def = on_off(true),
    .help = "Combining stacks: answer push/pop pairs of a session directly",
    .choices = kOnOff,
    .get = [](const DsOptions& o) { return on_off(o.combining.elimination); },
    .set = [](DsOptions& o, double v) { o.combining.elimination = v == on_off(true); }};
inline constexpr Knob kRecycleKnob{
    .name = "recycle",
    .type = KnobType::kChoice,
    .def = on_off(true),
    .help = "Combining stacks: return popped nodes to the node pool",
    .choices = kOnOff,
    .get = [](const DsOptions& o) { return on_off(o.combining.recycle); },
    .set = [](DsOptions& o, double v) { o.combining.recycle = v == on_off(true); }};
inline constexpr Knob kCombiningRoundsKnob{
    .name = "combining_rounds",
    .type = KnobType::kUnsigned,
    .def = 20,
    .min = 1,
    .max = 1000,
    .help = "Combining stacks: passes over the requests per session",
    .get = [](const DsOptions& o) { return static_cast<double>(o.combining.rounds); },
    .set = [](DsOptions& o, double v) { o.combining.rounds = static_cast<uint32_t>(v); }};

// What the combining stacks count (CostCounters::ds): sessions a thread ran as
// combiner, operations those sessions served (its own included), operations
// they served by elimination, and spin-wait iterations while waiting to be
// served or for the combiner lock.
enum CombiningCount : int { kSessions, kCombinedOps, kEliminatedOps, kSpins };
inline constexpr Metric kCombiningMetrics[] = {
    {.name = "combining_sessions_per_op",
     .help = "combining sessions per operation",
     .count = kSessions,
     .unless_zero = kSessions},
    {.name = "mean_batch_size",
     .help = "operations a combining session served (its combiner's own included)",
     .count = kCombinedOps,
     .per = kSessions,
     .unless_zero = kSessions},
    {.name = "elimination_ratio",
     .help = "share of the combined operations served by elimination (push/pop pairs)",
     .count = kEliminatedOps,
     .per = kCombinedOps,
     .unless_zero = kSessions},
    {.name = "spins_per_op",
     .help = "spin-wait iterations per operation (waiting to be served or for the combiner lock)",
     .count = kSpins,
     .unless_zero = kSessions}};

// An odd/even lock word: odd while a combiner holds it (PBcomb's lock; DFC's
// combiner lock is the same thing). Its value counts sessions, so a waiter can
// tell that a session ended since it looked.
class CombinerLock {
 public:
  uint64_t value() const { return word_.load(std::memory_order_acquire); }
  bool try_lock() { return try_lock_from(word_.load(std::memory_order_relaxed)); }
  // Takes the lock only if its value is still `seen` (nothing happened since).
  bool try_lock_from(uint64_t seen) {
    return (seen & 1) == 0 &&
           word_.compare_exchange_strong(seen, seen + 1, std::memory_order_acquire,
                                         std::memory_order_relaxed);
  }
  void unlock() { word_.fetch_add(1, std::memory_order_release); }

 private:
  alignas(64) std::atomic<uint64_t> word_{0};
};

// How a waiting thread spends one iteration (combining_options.h), and the
// combiner's optional yield after a session.
class Waiter {
 public:
  Waiter(const CombiningOptions& o, uint32_t threads)
      : yield_(o.wait == WaitPolicy::kYield ||
               (o.wait == WaitPolicy::kAdaptive && threads > online_cpus())),
        combiner_yield_(o.combiner_yield) {}

  template <class B>
  void pause(B& b) const {
    ++tl_costs.ds[kSpins];
    b.relax();
    if (yield_) sched_yield();
  }
  void after_session() const {
    if (combiner_yield_) sched_yield();
  }

 private:
  static uint32_t online_cpus() {
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? static_cast<uint32_t>(n) : 1;
  }
  bool yield_;
  bool combiner_yield_;
};

// One collected request and, once a pass has applied it, its response.
struct StackRequest {
  enum Type : uint8_t { kNone = 0, kPush = 1, kPop = 2 };
  uint32_t thread = 0;
  Type type = kNone;
  uint64_t arg = 0;   // push: the id
  uint64_t seq = 0;   // the thread's operation number (detectability)
  uint32_t slot = 0;  // DFC: which of the thread's two records
  bool ok = false;    // push: not full; pop: not empty
  uint64_t out = 0;   // pop: the id popped
};

// A worker's handle on combining stack S: push and pop as thread t through
// S::op(t, type, arg, out) (S befriends it). One thread uses a handle; it is
// valid while S lives. combining_handle() refuses a thread beyond S's count.
template <class S>
class CombiningHandle {
 public:
  CombiningHandle(S* s, uint32_t t) : s_(s), t_(t) {}
  bool push(uint64_t id) {
    uint64_t out;
    return s_->op(t_, StackRequest::kPush, id, out);
  }
  bool pop(uint64_t& id) { return s_->op(t_, StackRequest::kPop, 0, id); }

 private:
  S* s_;
  uint32_t t_;
};

template <class S>
CombiningHandle<S> combining_handle(S* s, uint32_t threads, int t) {
  if (t < 0 || static_cast<uint32_t>(t) >= threads) {
    throw std::logic_error(std::string(S::kName) +
                           ": handle for a thread beyond DsOptions::threads");
  }
  return CombiningHandle<S>(s, static_cast<uint32_t>(t));
}

// Volatile per-thread request slots (PBcomb's requests, flat combining's
// publication list): thread t posts {type, arg, seq}; a combiner takes the
// requests whose seq is above what it has served.
class RequestBoard {
 public:
  explicit RequestBoard(uint32_t threads) : slots_(std::make_unique<Slot[]>(threads)) {}

  void post(uint32_t t, StackRequest::Type type, uint64_t arg, uint64_t seq) {
    slots_[t].arg.store(arg, std::memory_order_relaxed);
    slots_[t].op.store(type | seq << 3, std::memory_order_release);
  }
  // Thread t's request when its seq is above `served`.
  bool pending(uint32_t t, uint64_t served, StackRequest& out) const {
    const uint64_t op = slots_[t].op.load(std::memory_order_acquire);
    if ((op >> 3) <= served) return false;
    out = {.thread = t,
           .type = static_cast<StackRequest::Type>(op & 3),
           .arg = slots_[t].arg.load(std::memory_order_relaxed),
           .seq = op >> 3};
    return true;
  }
  // Responses kept in the board (stack-fc-volatile): seq << 1 | ok, and out.
  void answer(const StackRequest& q) {
    slots_[q.thread].out.store(q.out, std::memory_order_relaxed);
    slots_[q.thread].resp.store(q.seq << 1 | uint64_t{q.ok}, std::memory_order_release);
  }
  uint64_t response(uint32_t t) const { return slots_[t].resp.load(std::memory_order_acquire); }
  uint64_t out(uint32_t t) const { return slots_[t].out.load(std::memory_order_relaxed); }

 private:
  struct alignas(64) Slot {
    std::atomic<uint64_t> op{0};  // type | seq << 3
    std::atomic<uint64_t> arg{0};
    std::atomic<uint64_t> resp{0};
    std::atomic<uint64_t> out{0};
  };
  std::unique_ptr<Slot[]> slots_;
};

// Applies `batch` to the stack whose top is `top` and returns the new top.
// With elimination, the i-th push and the i-th pop of the batch answer each
// other (the pop returns the push's id; neither touches the stack); the
// others are applied in batch order. New nodes are passed to `fresh(index)`
// (to flush them), popped nodes appended to `popped`. Counts the requests
// (served, eliminated) in the caller's cost counters; the caller counts its
// sessions. All requests of a batch are pending at once, so
// any order is a linearisation.
template <class B, class Fresh>
uint64_t apply_batch(NodeStack<B>& nodes, typename NodeStack<B>::Cursor& cursor, uint64_t top,
                     std::span<StackRequest> batch, bool eliminate, std::vector<uint64_t>& popped,
                     Fresh&& fresh) {
  size_t push_i = 0, pop_i = 0;
  const auto next_of = [&](size_t& i, StackRequest::Type t) -> StackRequest* {
    while (i < batch.size() && batch[i].type != t) ++i;
    return i < batch.size() ? &batch[i++] : nullptr;
  };
  uint64_t eliminated = 0;
  if (eliminate) {
    for (;;) {
      const size_t save_push = push_i, save_pop = pop_i;
      StackRequest* pu = next_of(push_i, StackRequest::kPush);
      StackRequest* po = next_of(pop_i, StackRequest::kPop);
      if (pu == nullptr || po == nullptr) {
        push_i = save_push;
        pop_i = save_pop;
        break;
      }
      pu->ok = true;
      po->ok = true;
      po->out = pu->arg;
      eliminated += 2;
    }
  }
  // The surplus (all of the batch without elimination), in batch order.
  for (size_t i = std::min(push_i, pop_i); i < batch.size(); ++i) {
    StackRequest& r = batch[i];
    if (r.type == StackRequest::kPush && i >= push_i) {
      const uint64_t x = nodes.make(cursor, r.arg, top);
      r.ok = x != 0;
      if (x != 0) {
        fresh(x);
        top = x;
      }
    } else if (r.type == StackRequest::kPop && i >= pop_i) {
      r.ok = top != 0;
      if (top != 0) {
        r.out = nodes.id(top);
        popped.push_back(top);
        top = nodes.next(top);
      }
    }
  }
  tl_costs.ds[kCombinedOps] += batch.size();
  tl_costs.ds[kEliminatedOps] += eliminated;
  return top;
}

}  // namespace pmemids
