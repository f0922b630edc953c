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

struct RunStreams {
  std::vector<Stream> streams;  // never reallocated after build_streams returns
  std::vector<uint64_t> seeds;  // stream t's seed: spec.seed + t
};

// `count` streams: one per parallel worker, else one. Generated, stream t from
// spec.seed + t; or, with a tracefile, read once and split: with one stream
// every line, with more, worker t runs the lines of thread t (all lines when
// the trace has no thread column). A threaded trace whose threads do not match
// `count` workers is a UsageError naming the file.
RunStreams build_streams(const WorkloadSpec& spec, int count);
// The same for the worker streams plan_streams() shaped (generated: stream t
// is generate(spec, spec.seed + t, shapes[t]); a trace: as above, one stream
// per shape).
RunStreams build_streams(const WorkloadSpec& spec, const std::vector<StreamShape>& shapes);

// Concurrent mode's split of one stream of `ops` operations among `n` workers:
// worker t runs the contiguous operations [first, second).
std::pair<size_t, size_t> worker_slice(size_t ops, int t, int n);

}  // namespace pmemids
