#include "workload/sources.h"

#include <fmt/format.h>

#include "errors.h"
#include "workload/trace.h"

namespace pmemids {

namespace {

// A trace's one stream cut into `count` contiguous slices; values are taken
// from each slice's own pool as stream_from_trace() takes them.
void cut_trace(const WorkloadSpec& spec, const Trace& trace, int count, RunStreams& out) {
  Stream whole = stream_from_trace(spec, trace, -1, out.seeds[0]);
  const std::vector<Op> ops = std::move(whole.ops);
  std::vector<uint64_t> load = std::move(whole.load_keys);
  whole.ops.clear();
  whole.load_keys.clear();
  for (int t = 0; t < count; ++t) {
    const auto [lo, hi] = worker_slice(ops.size(), t, count);
    Stream& part = out.streams.emplace_back(whole);
    part.read_misses = 0;
    for (size_t i = lo; i < hi; ++i) {
      Op op = ops[i];
      if (op.value != nullptr) op.value = part.values.get(i);
      if (op.type == OpType::kRead && part.codec.decode(op.key) >= kMissBase) ++part.read_misses;
      part.ops.push_back(op);
    }
    if (t == 0) part.load_keys = std::move(load);
  }
}

}  // namespace

RunStreams build_streams(const WorkloadSpec& spec, int count, StreamShare share) {
  RunStreams out;
  out.share = share;
  out.shapes = plan_streams(spec, count, share == StreamShare::kSlices);
  out.streams.reserve(static_cast<size_t>(count));
  for (int t = 0; t < count; ++t) out.seeds.push_back(spec.seed + static_cast<uint64_t>(t));
  const bool slices = share == StreamShare::kSlices;
  if (spec.tracefile.empty()) {
    for (size_t t = 0; t < out.shapes.size(); ++t) {
      out.streams.push_back(generate(spec, out.seeds[t], out.shapes[t]));
    }
    return out;
  }
  const Trace trace = read_trace(spec.tracefile, spec);
  if (slices) {
    cut_trace(spec, trace, count, out);
    return out;
  }
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
  const auto [first, size] =
      slice_part(ops, StreamSlice{static_cast<uint32_t>(t), static_cast<uint32_t>(n)});
  return {first, first + size};
}

}  // namespace pmemids
