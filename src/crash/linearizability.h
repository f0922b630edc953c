// A linearizability checker for short recorded concurrent histories (2-4
// threads, tens of operations) of queues, stacks and sets, used by the tests
// of concurrent structures and by the multi-thread crash checker.
//
// A history is a list of operations, each with its thread, type, argument,
// response (ok: took effect / found; out: the id a pop returned) and two
// timestamps from one clock: invoke and response (kPending: it never
// returned, as at a crash). It is linearizable when the operations can be
// ordered so that (1) every completed operation appears, (2) a pending one
// appears at most once, or must / must not appear when `must` says so
// (detectable recovery), (3) an operation that returned before another was
// invoked comes first, (4) replaying the order on the sequential
// specification gives every completed operation its recorded response, and
// (5) when `final` is given, the replay ends in that state.
//
// Method: Wing and Gong's search with Lowe's memoisation of (operations
// linearised, state) pairs: depth-first, at each step trying every operation
// invoked before the earliest response of those not yet linearised. Sets are
// checked key by key (a set history is linearizable iff each key's
// sub-history is, since operations on different keys commute). The search is
// exponential in the worst case; `budget` bounds the states it visits
// (exceeded: Result::undecided).
//
// Specifications: queue (FIFO, capacity 0 = unbounded), stack (LIFO) and
// one set key (present or absent). Their states are vectors of element ids.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "util/fnv1a.h"
#include "workload/op_set.h"

namespace pmemids {

struct HistoryOp {
  static constexpr uint64_t kPending = std::numeric_limits<uint64_t>::max();
  enum Must : uint8_t { kMay, kApplied, kNotApplied };

  uint32_t thread = 0;
  OpType type = OpType::kPush;
  uint64_t arg = 0;  // pushed id, or the set key
  bool ok = false;   // response: "found" as tallies count it (workload/op_set.h)
  uint64_t out = 0;  // pop: the id returned
  uint64_t invoke = 0;
  uint64_t response = kPending;
  Must must = kMay;      // pending ops: what a detectable recovery reported
  bool must_ok = false;  // with kApplied: the reported response
  uint64_t must_out = 0;

  bool pending() const { return response == kPending; }
};

struct LinResult {
  bool ok = false;
  bool undecided = false;  // the budget ran out
  std::string why;         // when not ok
};

namespace lin_detail {

// A sequential specification's state: element ids (queue: oldest first; stack:
// bottom first; set key: empty or {1}).
using State = std::vector<uint64_t>;

struct Spec {
  OpSet set;
  uint64_t capacity = 0;  // queue, stack: 0 = unbounded

  // Applies op to s; false when the specification's response differs from
  // the recorded one (completed ops) or the reported one (pending ops that a
  // detectable recovery reported applied); other pending ops take any.
  bool step(State& s, const HistoryOp& op) const {
    bool ok = false;
    uint64_t out = 0;
    switch (op.type) {
      case OpType::kPush:
        ok = capacity == 0 || s.size() < capacity;
        if (ok) s.push_back(op.arg);
        break;
      case OpType::kPop:
        ok = !s.empty();
        if (ok) {
          if (set == OpSet::kQueue) {
            out = s.front();
            s.erase(s.begin());
          } else {
            out = s.back();
            s.pop_back();
          }
        }
        break;
      case OpType::kInsert:  // set key: s is {} or {1}; ok = already present
        ok = !s.empty();
        s.assign(1, 1);
        break;
      case OpType::kDelete:  // ok = was present
        ok = !s.empty();
        s.clear();
        break;
      case OpType::kContains:
        ok = !s.empty();
        break;
      default:
        return false;
    }
    if (!op.pending()) return ok == op.ok && (op.type != OpType::kPop || !ok || out == op.out);
    if (op.must == HistoryOp::kApplied) {
      return ok == op.must_ok && (op.type != OpType::kPop || !ok || out == op.must_out);
    }
    return true;
  }
};

inline uint64_t hash_state(const State& s) {
  uint64_t h = kFnv1aOffset;  // FNV-1a's step over whole words
  for (uint64_t x : s) h = (h ^ x) * kFnv1aPrime;
  return h ^ s.size();
}

class Search {
 public:
  Search(const Spec& spec, const std::vector<HistoryOp>& h, const std::optional<State>& final,
         uint64_t budget)
      : spec_(spec), h_(h), final_(final), budget_(budget), done_(h.size(), false) {}

  LinResult run(State s) {
    LinResult r;
    r.ok = dfs(s);
    r.undecided = !r.ok && exhausted_;
    return r;
  }

 private:
  bool complete() const {
    for (size_t i = 0; i < h_.size(); ++i) {
      if (done_[i]) continue;
      if (!h_[i].pending() || h_[i].must == HistoryOp::kApplied) return false;
    }
    return true;
  }
  bool dfs(State& s) {
    if (complete() && (!final_ || s == *final_)) return true;
    if (visited_.size() >= budget_) {
      exhausted_ = true;
      return false;
    }
    if (!visited_.insert(key(s)).second) return false;
    uint64_t horizon = HistoryOp::kPending;  // earliest response among those left
    for (size_t i = 0; i < h_.size(); ++i) {
      if (!done_[i]) horizon = std::min(horizon, h_[i].response);
    }
    for (size_t i = 0; i < h_.size(); ++i) {
      if (done_[i] || h_[i].invoke > horizon) continue;
      if (h_[i].pending() && h_[i].must == HistoryOp::kNotApplied) continue;
      State next = s;
      if (!spec_.step(next, h_[i])) continue;
      done_[i] = true;
      const bool found = dfs(next);
      done_[i] = false;
      if (found) return true;
    }
    return false;
  }
  std::string key(const State& s) const {
    std::string k(done_.size() + 8, '\0');
    for (size_t i = 0; i < done_.size(); ++i) k[i] = done_[i] ? '1' : '0';
    const uint64_t h = hash_state(s);
    std::memcpy(k.data() + done_.size(), &h, sizeof h);
    return k;
  }

  const Spec& spec_;
  const std::vector<HistoryOp>& h_;
  const std::optional<State>& final_;
  uint64_t budget_;
  std::vector<bool> done_;
  std::unordered_set<std::string> visited_;
  bool exhausted_ = false;
};

}  // namespace lin_detail

// Queue or stack history from the state `initial` (ids, queue oldest first,
// stack bottom first); `final`: the recovered contents in the same order.
inline LinResult check_sequence_history(OpSet set, const std::vector<HistoryOp>& h,
                                        const std::vector<uint64_t>& initial,
                                        const std::optional<std::vector<uint64_t>>& final,
                                        uint64_t capacity = 0, uint64_t budget = 2000000) {
  const lin_detail::Spec spec{set, capacity};
  LinResult r = lin_detail::Search(spec, h, final, budget).run(initial);
  if (!r.ok) {
    r.why = r.undecided ? "undecided: the search budget ran out"
                        : fmt::format("no linearisation of the {} operations{} exists", h.size(),
                                      final ? " ends in the recovered contents" : "");
  }
  return r;
}

// Set history, key by key, from the keys `initial`; `final`: the recovered keys.
inline LinResult check_set_history(const std::vector<HistoryOp>& h,
                                   const std::vector<uint64_t>& initial,
                                   const std::optional<std::vector<uint64_t>>& final,
                                   uint64_t budget = 2000000) {
  std::map<uint64_t, std::vector<HistoryOp>> by_key;
  for (const HistoryOp& op : h) by_key[op.arg].push_back(op);
  const std::unordered_set<uint64_t> init(initial.begin(), initial.end());
  std::unordered_set<uint64_t> fin;
  if (final) fin.insert(final->begin(), final->end());
  if (final) {
    for (uint64_t k : init) {
      if (by_key.count(k) == 0 && fin.count(k) == 0) {
        return {false, false, fmt::format("key {} vanished without an operation on it", k)};
      }
    }
    for (uint64_t k : fin) {
      if (by_key.count(k) == 0 && init.count(k) == 0) {
        return {false, false, fmt::format("key {} appeared without an operation on it", k)};
      }
    }
  }
  const lin_detail::Spec spec{OpSet::kSet};
  for (const auto& [k, ops] : by_key) {
    std::optional<lin_detail::State> f;
    if (final) f = fin.count(k) != 0 ? lin_detail::State{1} : lin_detail::State{};
    const lin_detail::State start = init.count(k) != 0 ? lin_detail::State{1} : lin_detail::State{};
    LinResult r = lin_detail::Search(spec, ops, f, budget).run(start);
    if (!r.ok) {
      r.why = r.undecided ? fmt::format("key {}: undecided (search budget)", k)
                          : fmt::format("key {}: no linearisation of its {} operations{}", k,
                                        ops.size(), final ? " ends in the recovered state" : "");
      return r;
    }
  }
  return {true, false, {}};
}

}  // namespace pmemids
