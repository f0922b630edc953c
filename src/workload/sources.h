// Where a run's operations come from: generated from the workload's seed, or
// read from spec.tracefile. One function builds them for `pmemids run` and
// `pmemids stream`, so the stream a user dumps is the stream a run executes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "workload/properties.h"
#include "workload/stream.h"

namespace pmemids {

// How a run's workers share the workload.
enum class StreamShare {
  kOwn,     // single and parallel: each worker its own stream (own instance)
  kSlices,  // concurrent, native: the workers share one instance and split the
            // workload (plan_streams: kv slice t of n, queue roles, shares)
};

struct RunStreams {
  std::vector<Stream> streams;      // never reallocated after build_streams returns
  std::vector<uint64_t> seeds;      // stream t's seed: spec.seed + t
  std::vector<StreamShape> shapes;  // stream t's shape (a trace's: operations as planned)
  StreamShare share = StreamShare::kOwn;
};

// `count` workers' streams, as plan_streams(spec, count, share == kSlices)
// shapes them (RunStreams::shapes). kOwn: generated, stream t from
// spec.seed + t; or, with a tracefile, read once and split: with one stream
// every line, with more, worker t runs the lines of thread t (all lines when
// the trace has no thread column). A threaded trace whose threads do not
// match `count` workers is a UsageError naming the file.
// kSlices: generated, stream t from spec.seed + t: for kv workloads slice t
// of `count` (workload/stream.h: disjoint insert ids, targets only loaded ids
// and its own earlier inserts; only stream 0 loads), for queue, set and stack
// workloads its role's or share's operations; with a tracefile (kv only),
// every line in one stream (loaded as one), cut into `count` contiguous
// slices (worker_slice), stream 0 holding the load. A concurrent stream
// written by `pmemids stream` (slices in worker order) is cut back into the
// same slices.
RunStreams build_streams(const WorkloadSpec& spec, int count,
                         StreamShare share = StreamShare::kOwn);

// The contiguous split of `ops` operations among `n` workers (a trace's in
// concurrent mode; slice sizes of generated slices alike): worker t runs the
// operations [first, second).
std::pair<size_t, size_t> worker_slice(size_t ops, int t, int n);

}  // namespace pmemids
