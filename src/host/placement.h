// Where worker threads run and where their memory goes: pinning (--pin),
// NUMA CPU binding (--cpu-node) and memory binding (--mem-node), via libnuma.
//
// plan_placement() validates the request against this machine (UsageError
// naming the nodes that exist) and decides each thread's CPU set;
// apply_placement() runs in the worker thread, binds it, and verifies from the
// kernel that the binding took effect (RuntimeError otherwise).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pmemids {

enum class PinPolicy { kNone, kCompact, kScatter, kCores };

struct PlacementRequest {
  PinPolicy pin = PinPolicy::kNone;
  std::optional<int> cpu_node;
  std::optional<int> mem_node;
  int threads = 1;
};

struct Placement {
  // Per thread: the CPUs it is bound to; empty means left to the scheduler.
  std::vector<std::vector<int>> thread_cpus;
  std::optional<int> mem_node;
  int allowed_cpus = 0;               // CPUs the workers may run on, together
  std::vector<std::string> warnings;  // e.g. more threads than CPUs
};

// compact: consecutive threads on consecutive hardware threads of a core, then
// the next core, node by node. scatter: one thread per node in turn, first
// hardware thread of each core before any sibling. cores: as scatter over the
// first hardware thread of each core only, threads beyond the cores wrapping
// around (the workers never use a sibling: SMT off for them; allowed_cpus counts
// the cores). none: not pinned (bound to the node's CPUs when cpu_node is
// given). More threads than allowed CPUs (oversubscribed) is a warning,
// whatever the policy.
Placement plan_placement(const PlacementRequest& req);

// Binds the calling thread to placement.thread_cpus[t] (none when t is past
// its end) and its allocations to mem_node, then reads both back. Returns the
// CPUs the thread may run on.
std::vector<int> apply_placement(const Placement& placement, int t);

// Restricts the calling thread's future allocations to `node` (MPOL_BIND).
void bind_memory(int node);

// Runs the calling thread on `node`'s CPUs.
void run_on_node(int node);

// NUMA nodes present on this machine, for messages and records.
std::vector<int> numa_nodes();

// The CPUs of NUMA node `node` (empty when libnuma does not know it).
std::vector<int> node_cpus(int node);

// The CPUs the calling thread may run on now.
std::vector<int> current_cpus();

}  // namespace pmemids
