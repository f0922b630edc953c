// What a detectable structure (seed 004's stacks) reports after recovery,
// for the crash checker (crash/models.h). Such a structure provides
//   RecoveredOp recovered(int t) const
// after recovery: what thread t's last announced operation did — applied
// (with its response: ok, and the popped id) or not applied — and which of
// the thread's operations that was (seq: 1 for its first), or kUnknown when
// the thread announced nothing.
#pragma once

#include <concepts>
#include <cstdint>

namespace pmemids {

struct RecoveredOp {
  enum Status : uint8_t { kUnknown, kApplied, kNotApplied };
  Status status = kUnknown;
  uint64_t seq = 0;       // the thread's operation number, from 1
  bool ok = false;        // the response: the op took effect (push: not full; pop: not empty)
  uint64_t response = 0;  // pop: the id it returned
};

template <class DS>
concept Detectable = requires(const DS& ds, int t) {
  { ds.recovered(t) } -> std::same_as<RecoveredOp>;
};

}  // namespace pmemids
