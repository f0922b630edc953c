// One repetition of one (structure, backend) pair: create or reopen the pool,
// build or recover the structure, load (untimed, reported separately), run the
// pre-generated stream (timed), and return what was measured.
//
// Only the stream walk sits between the two clock reads; pool creation, loading
// and counter snapshots are outside it.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "backend/counters.h"
#include "backend/pool.h"
#include "ds/common.h"
#include "run/execute.h"
#include "workload/properties.h"
#include "workload/stream.h"

namespace pmemids {

struct RunRequest {
  std::string pool_dir;
  uint64_t pool_size = 0;  // bytes; 0 derives it from the workload
  bool keep_pool = false;
  bool reopen = false;
  double load_factor = 0.75;
  uint32_t max_height = 16;  // skiplist
  uint32_t node_keys = 0;    // B-tree / B+-tree keys per node; 0 = default
  const WorkloadSpec* spec = nullptr;
  const Stream* stream = nullptr;
};

struct RepResult {
  OpTally tally;
  double seconds = 0;
  CostCounters costs;
  uint64_t load_ops = 0;
  double load_seconds = 0;
  CostCounters load_costs;
  double open_seconds = 0;      // creating or opening the pool
  double recovery_seconds = 0;  // attaching to a reopened pool and rebuilding DRAM state
  uint64_t pool_bytes = 0;
};

inline DsOptions ds_options(const RunRequest& req) {
  return DsOptions{.capacity = req.stream->records_max,
                   .expected = req.spec->recordcount,
                   .value_size = req.spec->fieldlength,
                   .load_factor = req.load_factor,
                   .codec = req.stream->codec,
                   .seed = req.spec->seed,
                   .max_height = req.max_height,
                   .node_keys = req.node_keys};
}

template <template <class> class DS, class B>
RepResult run_rep(const RunRequest& req) {
  using Clock = std::chrono::steady_clock;
  const auto secs = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  const Stream& st = *req.stream;
  const DsOptions opts = ds_options(req);
  PoolSpec ps{
      .dir = req.pool_dir,
      .ds = DS<B>::kName,
      .mode = std::string(mode_name(B::kMode)),
      .bytes = req.pool_size != 0 ? req.pool_size : DS<B>::pool_bytes(opts) * 2 + (64 << 20),
      .reopen = req.reopen,
      .keep = req.keep_pool};
  RepResult r;

  const auto t0 = Clock::now();
  B backend(ps);
  const auto t1 = Clock::now();
  r.pool_bytes = backend.pool_bytes();
  DS<B> ds(backend, opts);
  const auto t2 = Clock::now();
  r.open_seconds = secs(t0, t1);
  if (req.reopen) r.recovery_seconds = secs(t1, t2);

  if (!req.reopen) {
    const CostCounters before = tl_costs;
    const auto l0 = Clock::now();
    for (uint64_t i = 0; i < st.load_keys.size(); ++i) ds.insert(st.load_keys[i], st.values.get(i));
    r.load_seconds = secs(l0, Clock::now());
    r.load_costs = tl_costs;
    r.load_costs -= before;
    r.load_ops = st.load_keys.size();
  }

  const uint32_t scan_max = req.spec->scanproportion > 0 ? req.spec->maxscanlength : 1;
  std::vector<char> buf(size_t{req.spec->fieldlength} * scan_max);
  const CostCounters before = tl_costs;
  const auto s0 = Clock::now();
  execute(ds, st.ops.data(), st.ops.data() + st.ops.size(), buf.data(), req.spec->fieldlength,
          r.tally);
  const auto s1 = Clock::now();
  r.seconds = secs(s0, s1);
  r.costs = tl_costs;
  r.costs -= before;
  return r;
}

}  // namespace pmemids
