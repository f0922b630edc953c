// A run of structure DS in DRAM in the native thread mode, as the registry
// runs it (run_rep_checked, the function it stores): one instance, no lock,
// two workers with a stream each (queues: a producer and a consumer). For the
// thread suites, which link no registry.
#pragma once

#include <string>
#include <vector>

#include "run/reopen_check.h"
#include "workload/generators.h"

namespace pmemids::test {

template <template <class> class DS>
RepResult run_native_pair(const std::string& pool_dir, const WorkloadSpec& spec) {
  const auto shapes = plan_streams(spec, 2, true);
  std::vector<Stream> streams;
  RunRequest req{.pool_dir = pool_dir,
                 .spec = &spec,
                 .thread_mode = ThreadMode::kNative,
                 .threads = 2,
                 .placement = Placement{.thread_cpus = std::vector<std::vector<int>>(2)}};
  streams.reserve(shapes.size());
  for (size_t t = 0; t < shapes.size(); ++t) {
    streams.push_back(generate(spec, spec.seed + t, shapes[t]));
    req.feeds.push_back({&streams.back(), {}});
  }
  return run_rep_checked<DS, DramBackend>(req);
}

}  // namespace pmemids::test
