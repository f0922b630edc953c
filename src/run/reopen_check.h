// `run --reopen` checks every pool it is about to reopen before it trusts it
// (backend/pool_check.h): in a child process, on a copy-on-write view, the
// structure is recovered with every pointer it follows validated against the
// pool's objects, then its full check() runs (order, fill, cycles). Only a
// pool that passes is opened for the run, so a corrupt one is reported
// (exit 1, the file untouched) instead of crashing or hanging the run.
#pragma once

#include <fmt/format.h>

#include "backend/pool_check.h"
#include "run/runner.h"

namespace pmemids {

template <template <class> class DS, class B>
void check_reopened_pools(const RunRequest& req) {
  const bool parallel = req.thread_mode == ThreadMode::kParallel;
  const int n = parallel ? req.threads : 1;
  for (int t = 0; t < n; ++t) {
    const Stream& st = *req.feeds[parallel ? t : 0].stream;
    const DsOptions opts = ds_options(req, st);
    const PoolSpec ps = pool_spec<DS, B>(req, opts, parallel ? t : -1);
    const double timeout =
        req.pool_check_timeout_s > 0 ? req.pool_check_timeout_s : default_check_timeout(ps);
    const PoolCheckTime took = check_pool_in_child(ps, timeout, [&] {
      B b(ps);
      b.index_objects();
      const DS<B> ds(b, opts);
      ds.check();
    });
    fmt::print(stderr,
               "pmemids: pool '{}' checked before reopening it ({:.2f} s, {:.2f} s of CPU)\n",
               ps.path(), took.wall_s, took.cpu_s);
  }
}

// The run function the registry stores: run_rep, after the reopen check.
template <template <class> class DS, class B>
RepResult run_rep_checked(const RunRequest& req) {
  if constexpr (B::kDurable) {
    if (req.reopen && req.check_reopened) check_reopened_pools<DS, B>(req);
  }
  return run_rep<DS, B>(req);
}

}  // namespace pmemids
