// What the crash checker compares a recovered structure with, per operation
// set: the structure's contents as a list of items, a sequential model of the
// acknowledged operations, and the comparison that classifies differences
// (see crash/crash.h for the rules).
//
// The interface structures expose to the checker (ds/traits.h): check() (own
// invariants, element count) and for_each (contents in the set's order: kv
// and set ascending by key, queue oldest first, stack top first). A
// detectable structure (seed 004's stacks) also provides recovered(t)
// (ds/detectable.h).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ds/common.h"
#include "ds/detectable.h"
#include "ds/traits.h"
#include "errors.h"
#include "workload/stream.h"

namespace pmemids {

namespace crash_detail {

// One element as the checker sees it: a key or element id, and its value or
// payload bytes (empty for sets and stacks).
struct Item {
  uint64_t key;
  std::string bytes;
  bool operator==(const Item&) const = default;
  auto operator<=>(const Item&) const = default;
};
using Items = std::vector<Item>;

constexpr bool keyed(OpSet s) {
  return s == OpSet::kKv || s == OpSet::kOrderedKv || s == OpSet::kSet;
}

// The structure's contents, at most `bound` items (InvariantViolation beyond:
// a cycle).
template <OpSet S, class DS>
Items collect(const DS& ds, uint32_t vsize, uint64_t bound) {
  Items out;
  const auto add = [&](uint64_t k, const char* v) {
    if (out.size() >= bound) throw InvariantViolation("the contents walk does not end (cycle?)");
    out.push_back({k, v != nullptr ? std::string(v, vsize) : std::string()});
  };
  if constexpr (S == OpSet::kSet || S == OpSet::kStack) {
    ds.for_each([&](uint64_t k) { add(k, nullptr); });
  } else {
    ds.for_each([&](uint64_t k, const char* v) { add(k, v); });
  }
  return out;
}

// The state the acknowledged operations leave, applied one by one (values are
// pointers into the workload's streams, valid in forked processes too).
template <OpSet S>
class SeqModel {
 public:
  void apply(const Op& op) {
    if constexpr (S == OpSet::kKv || S == OpSet::kOrderedKv) {
      switch (op.type) {
        case OpType::kInsert:
          kv_[op.key] = op.value;
          break;
        case OpType::kUpdate:
        case OpType::kReadModifyWrite:
          if (auto it = kv_.find(op.key); it != kv_.end()) it->second = op.value;
          break;
        case OpType::kDelete:
          kv_.erase(op.key);
          break;
        default:
          break;
      }
    } else if constexpr (S == OpSet::kSet) {
      if (op.type == OpType::kInsert) set_.insert(op.key);
      if (op.type == OpType::kDelete) set_.erase(op.key);
    } else {
      if (op.type == OpType::kPush && (capacity_ == 0 || seq_.size() < capacity_)) {
        seq_.push_back({op.key, op.value});
      } else if (op.type == OpType::kPop && !seq_.empty()) {
        if constexpr (S == OpSet::kQueue) {
          seq_.pop_front();
        } else {
          seq_.pop_back();
        }
      }
    }
  }
  // A bounded queue or stack refuses pushes beyond `capacity` (0: unbounded).
  void set_capacity(uint64_t capacity) { capacity_ = capacity; }

  // The state `items` lists (in the structure's order); values point into
  // `items`, which must outlive the model.
  static SeqModel from(const Items& items, uint64_t capacity) {
    SeqModel m;
    m.set_capacity(capacity);
    const bool push = S == OpSet::kQueue || S == OpSet::kStack;
    const auto add = [&](const Item& i) {
      m.apply(Op{.key = i.key,
                 .value = i.bytes.empty() ? nullptr : i.bytes.data(),
                 .type = push ? OpType::kPush : OpType::kInsert});
    };
    if constexpr (S == OpSet::kStack) {
      for (auto it = items.rbegin(); it != items.rend(); ++it) add(*it);  // listed top first
    } else {
      for (const Item& i : items) add(i);
    }
    return m;
  }

  // What apply_op (crash/crash_impl.h) must answer for `op` in this state:
  // found (workload/op_set.h's response: a read or contains finds the key, an
  // insert finds it present, a push is accepted, a pop finds an element), the
  // id a pop returns and the bytes a read or a queue pop copies out (nullptr:
  // nothing to compare). `checked` is false for a stack's push: the model
  // does not know the node pool's bound, so a refused push is not a fault.
  struct Response {
    bool found = false;
    bool checked = true;
    uint64_t out = 0;
    const char* bytes = nullptr;
  };
  Response respond(const Op& op) const {
    Response r;
    if constexpr (S == OpSet::kKv || S == OpSet::kOrderedKv) {
      const auto it = kv_.find(op.key);
      r.found = it != kv_.end();
      if (r.found && op.type == OpType::kRead) r.bytes = it->second;
    } else if constexpr (S == OpSet::kSet) {
      r.found = set_.count(op.key) != 0;
    } else if (op.type == OpType::kPush) {
      r.found = capacity_ == 0 || seq_.size() < capacity_;
      r.checked = S == OpSet::kQueue;
    } else if (!seq_.empty()) {
      const auto& e = S == OpSet::kQueue ? seq_.front() : seq_.back();
      r.found = true;
      r.out = e.first;
      if (S == OpSet::kQueue) r.bytes = e.second;
    }
    return r;
  }

  // The items in the structure's order.
  Items items(uint32_t vsize) const {
    Items out;
    const auto bytes = [&](const char* v) { return v != nullptr ? std::string(v, vsize) : ""; };
    if constexpr (S == OpSet::kKv || S == OpSet::kOrderedKv) {
      for (const auto& [k, v] : kv_) out.push_back({k, bytes(v)});
    } else if constexpr (S == OpSet::kSet) {
      for (uint64_t k : set_) out.push_back({k, ""});
    } else if constexpr (S == OpSet::kQueue) {
      for (const auto& [k, v] : seq_) out.push_back({k, bytes(v)});
    } else {
      for (auto it = seq_.rbegin(); it != seq_.rend(); ++it) out.push_back({it->first, ""});
    }
    return out;
  }

 private:
  std::map<uint64_t, const char*> kv_;
  std::set<uint64_t> set_;
  std::deque<std::pair<uint64_t, const char*>> seq_;
  uint64_t capacity_ = 0;
};

// Operations run on a recovered structure after its checks (post-recovery
// probe): reads of every key it holds (set: contains; queue, stack: none),
// then `fresh` inserts or pushes of elements it does not hold (taken from
// `candidates`, the workload's operations, so every structure accepts their
// keys), so that they allocate; then reads of every key again (queue, stack:
// pops until empty, and one more). A node freed but still linked is reused
// by such an allocation, and the reads, the pops or the contents afterwards
// show it.
template <OpSet S>
std::vector<Op> probe_ops(const Items& held, const std::vector<Op>& candidates, uint32_t fresh) {
  std::set<uint64_t> have;
  for (const Item& i : held) have.insert(i.key);
  std::vector<Op> added;
  for (const Op& c : candidates) {
    if (added.size() == fresh) break;
    if (have.count(c.key) != 0) continue;
    if ((c.type == OpType::kInsert || c.type == OpType::kPush) &&
        (c.value != nullptr || S == OpSet::kSet || S == OpSet::kStack)) {
      have.insert(c.key);
      added.push_back(Op{.key = c.key, .value = c.value, .type = c.type});
    }
  }
  std::vector<Op> out;
  constexpr bool seq = S == OpSet::kQueue || S == OpSet::kStack;
  const auto reads = [&] {
    if constexpr (!seq) {
      const OpType look = S == OpSet::kSet ? OpType::kContains : OpType::kRead;
      for (uint64_t k : have) out.push_back(Op{.key = k, .value = nullptr, .type = look});
    }
  };
  reads();
  out.insert(out.end(), added.begin(), added.end());
  if constexpr (seq) {
    for (size_t i = 0; i <= held.size() + added.size(); ++i) {
      out.push_back(Op{.key = 0, .value = nullptr, .type = OpType::kPop});
    }
  } else {
    reads();
  }
  return out;
}

// What comparing recovered contents with the model found.
struct Verdict {
  uint64_t lost = 0;  // acknowledged effects missing
  uint64_t half = 0;  // in-flight effects half there, duplicates, strangers, wrong order
  uint64_t torn = 0;  // the in-flight overwrite's value torn, where the design admits it
  std::string message;
  void note(const std::string& m) {
    if (message.empty()) message = m;
  }
};

// Keyed sets and maps: each key's state in `got` against `before` and, for
// the in-flight operation's key, `after` (see compare).
inline void compare_keyed(Verdict& v, const Items& got, const Items& before, const Items& after,
                          std::optional<uint64_t> inflight_key, const char* inflight_name,
                          bool torn_overwrite_ok) {
  std::map<uint64_t, std::string> have, b, a;
  for (const Item& i : got) {
    if (!have.emplace(i.key, i.bytes).second) {
      ++v.half;
      v.note(fmt::format("key {:#x} listed twice", i.key));
    }
  }
  for (const Item& i : before) b.emplace(i.key, i.bytes);
  for (const Item& i : after) a.emplace(i.key, i.bytes);
  std::set<uint64_t> keys;
  for (const auto* m : {&have, &b, &a}) {
    for (const auto& kv : *m) keys.insert(kv.first);
  }
  const auto state = [](const std::map<uint64_t, std::string>& m,
                        uint64_t k) -> std::optional<std::string> {
    auto it = m.find(k);
    if (it == m.end()) return std::nullopt;
    return it->second;
  };
  for (uint64_t k : keys) {
    const auto h = state(have, k), want = state(b, k);
    if (h == want) continue;
    if (inflight_key == k) {
      if (h == state(a, k)) continue;
      if (torn_overwrite_ok && h && want && state(a, k)) {
        ++v.torn;
        continue;
      }
      ++v.half;
      v.note(fmt::format("in-flight {} of key {:#x} half-applied ({})", inflight_name, k,
                         h ? "value torn" : "key missing"));
      continue;
    }
    ++v.lost;
    v.note(fmt::format("key {:#x}: {}", k,
                       !h      ? "acknowledged key missing"
                       : !want ? "deleted key present"
                               : "acknowledged value wrong"));
  }
}

// Sequences (queue, stack): count the differences from the nearer state.
inline void compare_sequence(Verdict& v, OpSet s, const Items& got, const Items& before,
                             const Items& after) {
  std::multiset<uint64_t> seen;
  for (const Item& i : got) {
    if (seen.count(i.key) != 0) {
      ++v.half;
      v.note(fmt::format("element {:#x} present twice", i.key));
    }
    seen.insert(i.key);
  }
  std::map<uint64_t, std::string> b, a;
  for (const Item& i : before) b.emplace(i.key, i.bytes);
  for (const Item& i : after) a.emplace(i.key, i.bytes);
  for (const Item& i : got) {
    const auto in_b = b.find(i.key), in_a = a.find(i.key);
    if (in_b == b.end() && in_a == a.end()) {
      ++v.half;
      v.note(fmt::format("element {:#x} was never pushed or was popped", i.key));
    } else if ((in_b != b.end() ? in_b->second : in_a->second) != i.bytes) {
      ++v.half;
      v.note(fmt::format("element {:#x} has a torn payload", i.key));
    }
  }
  // Acknowledged elements missing: those of `before` absent from `got`, less
  // the one an in-flight pop may have taken.
  for (const Item& i : before) {
    if (seen.count(i.key) == 0 && a.count(i.key) != 0) {
      ++v.lost;
      v.note(fmt::format("acknowledged element {:#x} missing", i.key));
    }
  }
  if (v.lost == 0 && v.half == 0) {
    ++v.half;
    v.note(fmt::format("elements out of {} order", s == OpSet::kQueue ? "FIFO" : "LIFO"));
  }
}

// Compares `got` with `before` (acknowledged operations only) and `after`
// (the in-flight one applied too; equal to before when none was in flight).
// `inflight_key`: the in-flight operation's key (keyed sets only).
// `torn_overwrite_ok`: the design overwrites values in place (kTornValueModes),
// so an in-flight overwrite (the key held a value before and after) whose
// value is neither is counted as torn, not as half-applied.
inline Verdict compare(OpSet s, const Items& got, const Items& before, const Items& after,
                       std::optional<uint64_t> inflight_key, const char* inflight_name,
                       bool torn_overwrite_ok = false) {
  Verdict v;
  if (got == before || got == after) return v;
  if (keyed(s)) {
    compare_keyed(v, got, before, after, inflight_key, inflight_name, torn_overwrite_ok);
  } else {
    compare_sequence(v, s, got, before, after);
  }
  return v;
}

}  // namespace crash_detail
}  // namespace pmemids
