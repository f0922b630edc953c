#include "workload/sources.h"

#include <fmt/format.h>

#include "errors.h"
#include "workload/trace.h"

namespace pmemids {

RunStreams build_streams(const WorkloadSpec& spec, int count) {
  std::vector<StreamShape> shapes(static_cast<size_t>(count));
  for (int t = 0; t < count; ++t) {
    shapes[static_cast<size_t>(t)] = {.operations = spec.operationcount,
                                      .worker = static_cast<uint32_t>(t)};
  }
  return build_streams(spec, shapes);
}

RunStreams build_streams(const WorkloadSpec& spec, const std::vector<StreamShape>& shapes) {
  const int count = static_cast<int>(shapes.size());
  RunStreams out;
  out.streams.reserve(shapes.size());
  for (int t = 0; t < count; ++t) out.seeds.push_back(spec.seed + static_cast<uint64_t>(t));
  if (spec.tracefile.empty()) {
    for (size_t t = 0; t < shapes.size(); ++t) {
      out.streams.push_back(generate(spec, out.seeds[t], shapes[t]));
    }
    return out;
  }
  const Trace trace = read_trace(spec.tracefile, spec);
  const bool split = count > 1 && trace.threaded;
  if (split && trace.threads != count) {
    throw UsageError(fmt::format(
        "tracefile '{}' has operations for threads 0..{}; parallel workers run one thread's "
        "operations each: use --threads {}",
        spec.tracefile, trace.threads - 1, trace.threads));
  }
  for (int t = 0; t < count; ++t) {
    out.streams.push_back(stream_from_trace(spec, trace, split ? t : -1, out.seeds[t]));
    if (out.streams.back().ops.empty()) {
      throw UsageError(
          fmt::format("tracefile '{}' has no operations for thread {}; expected "
                      "each of threads 0..{} to have some",
                      spec.tracefile, t, count - 1));
    }
  }
  return out;
}

std::pair<size_t, size_t> worker_slice(size_t ops, int t, int n) {
  return {ops * static_cast<size_t>(t) / static_cast<size_t>(n),
          ops * static_cast<size_t>(t + 1) / static_cast<size_t>(n)};
}

}  // namespace pmemids
