#include "registry/footprint.h"

#include <fmt/format.h>
#include <libpmemobj.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "backend/pool.h"
#include "ds/common.h"
#include "workload/stream.h"

namespace pmemids {
namespace {

constexpr uint64_t kValuePayloads = 1024;  // ValuePool's distinct values per stream

// Record ids (set: keys) a run may hold: the load plus the expected inserts
// (pushes) of the stream; a set's whole key range.
long double records_max(const WorkloadSpec& spec) {
  const auto ops = static_cast<long double>(spec.operationcount);
  switch (spec.op_set()) {
    case OpSet::kSet:
      return static_cast<long double>(spec.keyrange);
    case OpSet::kQueue:
    case OpSet::kStack:
      return static_cast<long double>(spec.recordcount) +
             std::ceil(ops * (spec.pushpoppairs ? 0.5L : spec.pushproportion));
    case OpSet::kKv:
    case OpSet::kOrderedKv:
      break;
  }
  return static_cast<long double>(spec.recordcount) + std::ceil(ops * spec.insertproportion);
}

// A stream's load keys, operations, value payloads and sampled positions; a
// set's fill is drawn with a bitmap of its key range (workload/stream.h).
long double stream_bytes(const WorkloadSpec& spec, double latency_sample) {
  const bool set = spec.op_set() == OpSet::kSet;
  const long double load_keys = set ? static_cast<long double>(spec.keyrange / 2)
                                    : static_cast<long double>(spec.recordcount);
  const long double payloads = spec.op_set() == OpSet::kKv || spec.op_set() == OpSet::kOrderedKv ||
                                       spec.op_set() == OpSet::kQueue
                                   ? static_cast<long double>(kValuePayloads) * spec.fieldlength
                                   : 1.0L;
  return load_keys * sizeof(uint64_t) + (set ? static_cast<long double>(spec.keyrange) / 8 : 0) +
         static_cast<long double>(spec.operationcount) * (sizeof(Op) + 8.0L * latency_sample) +
         payloads;
}

DsOptions options(const WorkloadSpec& spec, const KnobValues& knobs) {
  DsOptions o{.capacity = saturated(records_max(spec)),
              .expected = spec.recordcount,
              .value_size = spec.fieldlength,
              .seed = spec.seed,
              .keyrange = spec.keyrange,
              .queueslots = spec.queueslots,
              .slotsize = spec.slotsize};
  for (const auto& [knob, value] : knobs) knob->assign(o, value);
  return o;
}

std::string inputs_of(const WorkloadSpec& spec) {
  std::string s =
      spec.op_set() == OpSet::kSet
          ? fmt::format("keyrange={}, operationcount={}", spec.keyrange, spec.operationcount)
          : fmt::format("recordcount={}, operationcount={}, fieldlength={}", spec.recordcount,
                        spec.operationcount, spec.fieldlength);
  if (spec.insertproportion > 0 && spec.op_set() != OpSet::kSet) {
    s += fmt::format(", insertproportion={}", spec.insertproportion);
  }
  return s;
}

}  // namespace

Footprint run_footprint(const DsEntry& e, Mode m, const WorkloadSpec& spec, const RunShape& shape) {
  Footprint f;
  f.subject = fmt::format("{} in {}", e.name, mode_name(m));
  f.inputs = inputs_of(spec);
  const DsOptions o = options(spec, shape.knobs);
  const long double one = static_cast<long double>(e.in(m).structure_bytes(o));
  const long double structures = one * shape.instances;
  const long double streams = stream_bytes(spec, shape.latency_sample) * shape.streams;
  const long double scan_bufs = static_cast<long double>(spec.fieldlength) *
                                (spec.scanproportion > 0 ? spec.maxscanlength : 1) * shape.workers;
  long double memory = streams + scan_bufs;
  f.breakdown = fmt::format("streams {}", format_bytes(saturated(streams)));
  if (!durable(m)) {
    memory += structures;
    f.breakdown += fmt::format(", structure {}", format_bytes(saturated(structures)));
    if (shape.instances > 1) f.breakdown += fmt::format(" ({} instances)", shape.instances);
  } else if (!shape.reopen) {
    const uint64_t pool =
        shape.pool_size != 0 ? shape.pool_size : default_pool_bytes(saturated(one));
    f.pool_files = saturated(static_cast<long double>(std::max<uint64_t>(pool, PMEMOBJ_MIN_POOL)) *
                             shape.instances);
    f.breakdown += fmt::format(", pool files {}", format_bytes(f.pool_files));
    f.inputs += " (or --pool-size)";
  }
  f.memory = saturated(memory);
  return f;
}

Footprint crash_footprint(const DsEntry& e, Mode m, const WorkloadSpec& spec, uint32_t jobs) {
  Footprint f;
  f.subject = fmt::format("crash of {} in {}", e.name, mode_name(m));
  f.inputs = inputs_of(spec);
  const DsOptions o = options(spec, {});
  const long double pool = 2.0L * static_cast<long double>(e.in(m).structure_bytes(o)) + (8 << 20);
  f.pool_files = saturated(pool * (1 + jobs));
  // The stream, and the checker's model of acknowledged values (a key and a
  // pointer per record, in a std::map).
  f.memory = saturated(stream_bytes(spec, 0) + 64.0L * records_max(spec));
  f.breakdown = fmt::format("stream and model {}, pool and {} crash image(s) {}",
                            format_bytes(f.memory), jobs, format_bytes(f.pool_files));
  return f;
}

}  // namespace pmemids
