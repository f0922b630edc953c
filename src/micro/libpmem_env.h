// What a micro point needs from libpmem's environment, and running the points
// the current process cannot serve in a child that can.
//
// libpmem reads PMEM_NO_FLUSH and PMEM_MOVNT_THRESHOLD once, in its load-time
// constructor: setting them later changes nothing. So a point that needs
// another value (copy --movnt-threshold 128; any point under emulated eADR,
// where libpmem and libpmemobj must skip their flushes as pmemids skips its
// own) runs in a child: this binary again, with the same arguments, the
// variables set, and PMEMIDS_MICRO_GROUP naming the requirement, so the child
// runs exactly the points of that group (and prints no table header).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace pmemids::micro {

// libpmem's environment as the process started with it.
struct StartEnv {
  bool no_flush = false;             // PMEM_NO_FLUSH=1
  uint64_t movnt_threshold = 256;    // PMEM_MOVNT_THRESHOLD, else libpmem's 256
  std::optional<std::string> group;  // PMEMIDS_MICRO_GROUP: this is a group's child
};

// Read before anything sets a PMEM variable (cheap: call it first).
const StartEnv& start_env();

struct LibpmemNeed {
  std::optional<bool> no_flush;             // nullopt: either
  std::optional<uint64_t> movnt_threshold;  // nullopt: any

  bool satisfied_by(const StartEnv& e) const;
  // "" when nothing is needed, else e.g. "PMEM_NO_FLUSH=1 PMEM_MOVNT_THRESHOLD=128".
  std::string key() const;
  bool operator==(const LibpmemNeed&) const = default;
};

// Runs /proc/self/exe with this process' arguments and environment, adjusted
// to satisfy `need`, and PMEMIDS_MICRO_GROUP=need.key(); stdout and stderr are
// shared. Returns the child's exit code; RuntimeError when it cannot start or
// dies of a signal.
int run_group_child(const LibpmemNeed& need);

}  // namespace pmemids::micro
