// `pmemids crash` planned: its options parsed and checked once, before
// anything runs, into the (structure, durable mode) pairs to crash-test and
// the workload of each operation set. Every refusal is a UsageError (exit 2)
// raised here, before a pool is created.
//
// plan_crash() decides what the options decide; resolve_domain() then probes
// the pool directory (after the stop signals are installed: the probe writes
// a scratch file there) and settles the persistence policy and the pairs it
// keeps.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.h"
#include "options/persistence_options.h"
#include "options/workload_options.h"
#include "pmem/policy.h"
#include "run/context.h"

namespace pmemids {

struct DsEntry;

struct CrashCliOptions {
  std::string ds;
  bool all = false;
  std::string mode;            // empty: every durable mode each structure supports
  std::string points = "100";  // a positive count, or "all"
  std::string model = "power";
  std::string survive = "none";
  double survive_probability = 0.5;
  uint32_t grain = 64;
  uint32_t jobs = 1;
  std::string pool_dir;
  std::string out;
  bool fail_on_violation = false;
  WorkloadOptions workload;  // -P, -p, --seed (also the seed of points and surviving lines)
  PersistenceOptions persistence;
  std::string store_buffer_loss = "none";
  uint32_t threads = 1;
  uint32_t recovery_points = 0;
  bool unsafe = false;
};

struct CrashPlan {
  std::vector<std::pair<const DsEntry*, Mode>> pairs;  // in run order
  uint32_t points = 0;                                 // kAllPoints: every one
  std::map<OpSet, WorkloadSpec> specs;                 // per operation set (workload_set)
  std::string pool_dir;
  // resolve_domain's:
  PmemProbe probe;
  PersistencePolicy policy;

  const WorkloadSpec& spec_of(const DsEntry& e) const;
};

// The operation set whose workload a structure runs: ordered-kv runs kv's.
OpSet workload_set(const DsEntry& e);

CrashPlan plan_crash(const CrashCliOptions& o);

// Probes the pool directory and resolves the persistence policy; --all leaves
// out the designs not crash-consistent under its domain and the modes not
// failure-atomic by design (with --unsafe they are negative controls); a named
// pair not crash-consistent there is refused.
void resolve_domain(CrashPlan& plan, const CrashCliOptions& o);

}  // namespace pmemids
