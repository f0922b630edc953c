// Streams of the queue, set and stack operation sets, and how a run's
// operations are split over its workers (see stream.h).
#include <utility>

#include "errors.h"
#include "util/stop_signals.h"
#include "workload/generators.h"
#include "workload/stream.h"

namespace pmemids {
namespace {

constexpr uint64_t kFillSalt = 0x66696c6c2d736574ULL;   // "fill-set"
constexpr uint64_t kValueSalt = 0x5eed5eed5eed5eedULL;  // as kv streams

// `n` distinct keys of [1, range], in the order drawn (Floyd's sampling; the
// keys chosen so far in a bitmap of the range: range / 8 bytes).
std::vector<uint64_t> distinct_keys(uint64_t range, uint64_t n, uint64_t seed) {
  Rng rng(mix64(seed ^ kFillSalt));
  std::vector<bool> chosen(range);
  std::vector<uint64_t> out;
  out.reserve(n);
  for (uint64_t j = range - n; j < range; ++j) {
    throw_if_stopped_at(j);
    uint64_t t = rng.below(j + 1);
    if (chosen[t]) t = j;
    chosen[t] = true;
    out.push_back(t + 1);
  }
  return out;
}

Stream set_stream(const WorkloadSpec& spec, uint64_t seed, const StreamShape& shape) {
  const uint64_t fill = spec.keyrange / 2;
  check_stream_memory(spec, fill, shape.operations);
  Stream st{.codec = KeyCodec{InsertOrder::kOrdered}, .values = ValuePool(1, seed, 1)};
  st.load_keys = distinct_keys(spec.keyrange, fill, spec.seed);
  Rng rng(seed);
  const double contains = spec.readproportion;
  const double insert = contains + spec.insertproportion;
  st.ops.reserve(shape.operations);
  for (uint64_t i = 0; i < shape.operations; ++i) {
    throw_if_stopped_at(i);
    const double u = rng.uniform01();
    const OpType t = u < contains ? OpType::kContains
                     : u < insert ? OpType::kInsert
                                  : OpType::kDelete;
    st.ops.push_back(Op{.key = 1 + rng.below(spec.keyrange), .value = nullptr, .type = t});
  }
  st.records_max = spec.keyrange;
  return st;
}

// Queue and stack: pushes carry distinct element ids (and, for queues,
// payloads of fieldlength bytes).
Stream push_pop_stream(const WorkloadSpec& spec, uint64_t seed, const StreamShape& shape) {
  check_stream_memory(spec, spec.recordcount, shape.operations);
  const bool payload = spec.operationset == OpSet::kQueue;
  Stream st{
      .codec = KeyCodec{InsertOrder::kOrdered},
      .values = payload ? ValuePool(spec.fieldlength, seed ^ kValueSalt) : ValuePool(1, seed, 1)};
  st.load_keys.reserve(spec.recordcount);
  for (uint64_t i = 0; i < spec.recordcount; ++i) {
    throw_if_stopped_at(i);
    st.load_keys.push_back(push_id(-1, i));
  }
  Rng rng(seed);
  uint64_t pushes = 0;
  st.ops.reserve(shape.operations);
  for (uint64_t i = 0; i < shape.operations; ++i) {
    throw_if_stopped_at(i);
    bool push = false;
    switch (shape.role) {
      case StreamRole::kProducer:
        push = true;
        break;
      case StreamRole::kConsumer:
        push = false;
        break;
      case StreamRole::kMixed:
        push = spec.pushpoppairs ? i % 2 == 0 : rng.uniform01() < spec.pushproportion;
        break;
    }
    if (push) {
      st.ops.push_back(Op{.key = push_id(shape.worker, pushes),
                          .value = payload ? st.values.get(pushes) : nullptr,
                          .type = OpType::kPush});
      ++pushes;
    } else {
      st.ops.push_back(Op{.key = 0, .value = nullptr, .type = OpType::kPop});
    }
  }
  st.records_max = spec.recordcount + pushes;
  return st;
}

// n items split over k parts: part i's share.
uint64_t share(uint64_t n, uint32_t i, uint64_t k) {
  return slice_part(n, StreamSlice{i, static_cast<uint32_t>(k)}).second;
}

}  // namespace

std::string_view role_name(StreamRole r) {
  switch (r) {
    case StreamRole::kMixed:
      return "mixed";
    case StreamRole::kProducer:
      return "producer";
    case StreamRole::kConsumer:
      return "consumer";
  }
  return "?";
}

Stream generate(const WorkloadSpec& spec, uint64_t stream_seed, const StreamShape& shape) {
  switch (spec.operationset) {
    case OpSet::kKv:
    case OpSet::kOrderedKv:
      return detail::kv_stream(spec, stream_seed, shape);
    case OpSet::kSet:
      return set_stream(spec, stream_seed, shape);
    case OpSet::kQueue:
    case OpSet::kStack:
      return push_pop_stream(spec, stream_seed, shape);
  }
  throw std::logic_error("unknown operation set");
}

namespace {

// The queue's producers and consumers in a shared instance: given, or one
// given and the other the rest of the workers, or neither (half each from two
// workers); both 0 when every worker pushes and pops.
std::pair<int64_t, int64_t> queue_roles(const WorkloadSpec& spec, int workers) {
  int64_t producers = spec.producers, consumers = spec.consumers;
  if (producers < 0 && consumers < 0) {
    producers = workers >= 2 ? workers / 2 : 0;
    consumers = workers >= 2 ? workers - producers : 0;
  } else if (producers < 0) {
    producers = workers - consumers;
  } else if (consumers < 0) {
    consumers = workers - producers;
  }
  const bool mixed = producers == 0 && consumers == 0;
  if (!mixed && (producers < 0 || consumers < 0 || producers + consumers != workers)) {
    throw UsageError(
        fmt::format("producers={} and consumers={} must add up to the {} workers sharing the queue "
                    "(or both be 0: every worker pushes and pops)",
                    spec.producers < 0 ? "auto" : std::to_string(spec.producers),
                    spec.consumers < 0 ? "auto" : std::to_string(spec.consumers), workers));
  }
  return {producers, consumers};
}

// Producers share the pushes, consumers the pops.
std::vector<StreamShape> role_shapes(const WorkloadSpec& spec, int64_t producers,
                                     int64_t consumers) {
  const auto pushes =
      static_cast<uint64_t>(static_cast<double>(spec.operationcount) * spec.pushproportion + 0.5);
  const uint64_t pops = spec.operationcount - pushes;
  if ((pushes > 0 && producers == 0) || (pops > 0 && consumers == 0)) {
    throw UsageError(fmt::format(
        "producers={} and consumers={}: the workload has {} pushes and {} pops; each kind "
        "needs at least one worker",
        producers, consumers, pushes, pops));
  }
  std::vector<StreamShape> out;
  const auto p = static_cast<uint64_t>(producers), c = static_cast<uint64_t>(consumers);
  for (uint32_t t = 0; t < p; ++t) out.push_back({share(pushes, t, p), StreamRole::kProducer, t});
  for (uint32_t t = 0; t < c; ++t) {
    out.push_back({share(pops, t, c), StreamRole::kConsumer, static_cast<uint32_t>(p + t)});
  }
  return out;
}

// Every one of `n` workers a share of the operations (of push/pop pairs with
// pushpoppairs); kv: slice t of n (stream.h); a set's keys need none.
std::vector<StreamShape> mixed_shapes(const WorkloadSpec& spec, uint64_t n) {
  const bool pairs = spec.pushpoppairs && spec.operationset != OpSet::kKv;
  const bool kv = spec.operationset == OpSet::kKv || spec.operationset == OpSet::kOrderedKv;
  const uint64_t units = pairs ? spec.operationcount / 2 : spec.operationcount;
  std::vector<StreamShape> out;
  for (uint32_t t = 0; t < n; ++t) {
    uint64_t ops = pairs ? 2 * share(units, t, n) : share(units, t, n);
    if (pairs && t + 1 == n) ops += spec.operationcount % 2;  // a lone last push
    out.push_back({ops, StreamRole::kMixed, t,
                   kv ? StreamSlice{t, static_cast<uint32_t>(n)} : StreamSlice{}});
  }
  return out;
}

}  // namespace

std::vector<StreamShape> plan_streams(const WorkloadSpec& spec, int workers, bool shared) {
  const auto n = static_cast<uint64_t>(workers);
  if (!shared) {
    std::vector<StreamShape> out;
    for (uint32_t t = 0; t < n; ++t) out.push_back({spec.operationcount, StreamRole::kMixed, t});
    return out;
  }
  const auto [producers, consumers] = spec.operationset == OpSet::kQueue
                                          ? queue_roles(spec, workers)
                                          : std::pair<int64_t, int64_t>{0, 0};
  if (producers + consumers > 0) return role_shapes(spec, producers, consumers);
  return mixed_shapes(spec, n);
}

}  // namespace pmemids
