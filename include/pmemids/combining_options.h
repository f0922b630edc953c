// The knobs of the combining stacks (seed 004), carried in DsOptions and
// recorded in a run's configuration. Structures that do not combine ignore
// them.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace pmemids {

// How a thread waits for the combiner: spin (pause only), yield (pause, then
// sched_yield), adaptive (spin while workers <= online CPUs, yield when
// oversubscribed), as PBcomb's benchmark does.
enum class WaitPolicy : uint8_t { kSpin, kYield, kAdaptive };

constexpr std::string_view wait_policy_name(WaitPolicy w) {
  switch (w) {
    case WaitPolicy::kSpin:
      return "spin";
    case WaitPolicy::kYield:
      return "yield";
    case WaitPolicy::kAdaptive:
      return "adaptive";
  }
  return "?";
}
constexpr std::optional<WaitPolicy> find_wait_policy(std::string_view s) {
  for (WaitPolicy w : {WaitPolicy::kSpin, WaitPolicy::kYield, WaitPolicy::kAdaptive}) {
    if (wait_policy_name(w) == s) return w;
  }
  return std::nullopt;
}

struct CombiningOptions {
  WaitPolicy wait = WaitPolicy::kAdaptive;
  bool combiner_yield = false;    // the combiner calls sched_yield after each session
  bool persist_requests = true;   // DFC: announcements persisted by their threads
  bool elimination = true;        // push/pop pairs of a session answered directly
  bool recycle = true;            // popped nodes return to the pool
  uint32_t rounds = 20;           // PBcomb: passes over the requests per session
  uint64_t poolnodes = 0;         // node pool size; 0: derived from the workload
  bool planted_misflush = false;  // tests only: DFC flushes the artifact's wrong addresses
};

inline CombiningOptions with_poolnodes(CombiningOptions o, uint64_t poolnodes) {
  o.poolnodes = poolnodes;
  return o;
}

}  // namespace pmemids
