#include "workload/stream.h"

#include <unistd.h>

#include <algorithm>

#include "errors.h"
#include "util/stop_signals.h"
#include "workload/generators.h"
#include "workload/key_chooser.h"

namespace pmemids {

uint64_t KeyCodec::encode(uint64_t id) const {
  return order == InsertOrder::kHashed ? mix64(id) : id;
}
uint64_t KeyCodec::decode(uint64_t key) const {
  return order == InsertOrder::kHashed ? unmix64(key) : key;
}

ValuePool::ValuePool(uint32_t fieldlength, uint64_t seed, size_t count)
    : len_(fieldlength), count_(count), bytes_(size_t{fieldlength} * count) {
  Rng rng(seed);
  for (auto& b : bytes_) b = static_cast<char>('!' + rng.below(94));  // printable, like YCSB
}

double physical_memory_bytes() {
  return static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

Stream stream_base(const WorkloadSpec& spec, uint64_t stream_seed, bool load) {
  Stream st{.codec = KeyCodec{spec.insertorder},
            .values = ValuePool(spec.fieldlength, stream_seed ^ 0x5eed5eed5eed5eedULL)};
  if (!load) return st;
  st.load_keys.reserve(spec.recordcount);
  for (uint64_t id = 0; id < spec.recordcount; ++id) {
    throw_if_stopped_at(id);
    st.load_keys.push_back(st.codec.encode(id));
  }
  return st;
}

void check_stream_memory(const WorkloadSpec& spec, uint64_t keys, uint64_t ops) {
  // A set's fill is drawn with a bitmap of its key range.
  const double need = static_cast<double>(keys) * sizeof(uint64_t) +
                      static_cast<double>(ops) * sizeof(Op) +
                      (spec.op_set() == OpSet::kSet ? static_cast<double>(spec.keyrange) / 8 : 0);
  const double have = physical_memory_bytes();
  if (need > have / 2) {
    const std::string what = spec.op_set() == OpSet::kSet
                                 ? fmt::format("keyrange={}", spec.keyrange)
                                 : fmt::format("recordcount={}", spec.recordcount);
    throw UsageError(fmt::format(
        "{} and operationcount={}: {} load keys and {} operations need {:.1f} GiB for the "
        "pre-generated keys and operations; this machine has {:.1f} GiB",
        what, spec.operationcount, keys, ops, need / (1 << 30), have / (1 << 30)));
  }
}

uint64_t shared_capacity(OpSet set, std::span<const Stream* const> streams) {
  uint64_t capacity = 0;
  if (set == OpSet::kQueue || set == OpSet::kStack) {
    capacity = streams[0]->records_max;
    for (const Stream* s : streams.subspan(1)) capacity += s->records_max - s->load_keys.size();
  } else {
    for (const Stream* s : streams) capacity = std::max(capacity, s->records_max);
  }
  return capacity;
}

Stream generate(const WorkloadSpec& spec, uint64_t stream_seed, StreamSlice slice) {
  return generate(spec, stream_seed,
                  StreamShape{.operations = slice_part(spec.operationcount, slice).second,
                              .worker = slice.index,
                              .slice = slice});
}

namespace detail {

Stream kv_stream(const WorkloadSpec& spec, uint64_t stream_seed, const StreamShape& shape) {
  const StreamSlice slice = shape.slice;
  // The slices of a workload hold its operations together: check them all.
  check_stream_memory(spec, spec.recordcount, shape.operations * slice.count);
  Stream st = stream_base(spec, stream_seed, slice.index == 0);
  st.recordcount = spec.recordcount;
  st.slice = slice;
  Rng rng(stream_seed);

  const uint64_t op_count = shape.operations;
  const auto key_of = [&](uint64_t local) { return st.codec.encode(st.global_id(local)); };

  constexpr int kKvTypes = 6;  // read .. delete, in OpType order
  const double cut[kKvTypes] = {
      spec.readproportion,
      spec.readproportion + spec.updateproportion,
      spec.readproportion + spec.updateproportion + spec.insertproportion,
      spec.readproportion + spec.updateproportion + spec.insertproportion + spec.scanproportion,
      1.0 - spec.deleteproportion,
      1.0,
  };
  WorkloadSpec own = spec;  // the slice's key space: its share of the inserts
  own.operationcount = op_count;
  KeyChooser chooser(own);

  uint64_t inserted = spec.recordcount;  // local ids
  st.ops.reserve(op_count);
  for (uint64_t i = 0; i < op_count; ++i) {
    throw_if_stopped_at(i);
    const double u = rng.uniform01();
    int t = 0;
    while (t < kKvTypes - 1 && u >= cut[t]) ++t;
    Op op{.key = 0, .value = nullptr, .type = static_cast<OpType>(t), .scan_len = 0};
    switch (op.type) {
      case OpType::kInsert:
        op.key = key_of(inserted++);
        op.value = st.values.get(i);
        break;
      case OpType::kRead:
        if (spec.readmissrate > 0 && rng.uniform01() < spec.readmissrate) {
          op.key = st.codec.encode(kMissBase + rng.below(kMissBase));
          ++st.read_misses;
        } else {
          op.key = key_of(chooser.next(rng, inserted));
        }
        break;
      case OpType::kScan:
        op.key = key_of(chooser.next(rng, inserted));
        op.scan_len = static_cast<uint32_t>(1 + rng.below(spec.maxscanlength));
        st.max_scan_len = std::max(st.max_scan_len, op.scan_len);
        break;
      case OpType::kUpdate:
      case OpType::kReadModifyWrite:
        op.key = key_of(chooser.next(rng, inserted));
        op.value = st.values.get(i);
        break;
      case OpType::kDelete:
        op.key = key_of(chooser.next(rng, inserted));
        break;
      case OpType::kContains:
      case OpType::kPush:
      case OpType::kPop:
        break;  // not kv operations
    }
    st.ops.push_back(op);
  }
  st.inserts = inserted - spec.recordcount;
  st.records_max = st.inserts == 0 ? spec.recordcount : st.global_id(inserted - 1) + 1;
  st.key_folds = chooser.folds();
  return st;
}

}  // namespace detail

}  // namespace pmemids
