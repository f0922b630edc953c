#include "workload/stream.h"

#include <unistd.h>

#include <memory>

#include "errors.h"
#include "workload/generators.h"

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

namespace {

// Chooses the record id an existing-key operation targets, among the
// `inserted` ids so far.
class KeyChooser {
 public:
  static constexpr int kMaxRedraws = 64;

  KeyChooser(const WorkloadSpec& s, uint64_t expected_ids) : s_(s) {
    const double theta = s.zipfianconstant;
    if (s.requestdistribution == Distribution::kZipfian) {
      zipf_ = std::make_unique<Zipfian>(expected_ids, theta);
    } else if (s.requestdistribution == Distribution::kLatest) {
      zipf_ = std::make_unique<Zipfian>(s.recordcount, theta);
    }
  }

  uint64_t next(Rng& rng, uint64_t inserted) {
    switch (s_.requestdistribution) {
      case Distribution::kUniform:
        return rng.below(inserted);
      case Distribution::kZipfian:
        // Scrambled zipfian (YCSB's "zipfian"): ranks over the expected id count
        // are hashed across the id space; ids not inserted yet are redrawn, as
        // YCSB does. When few ids exist yet (tiny recordcount, many inserts)
        // redraws could go on for ever, so after kMaxRedraws the hashed rank
        // is folded onto the ids that exist.
        for (int tries = 0;; ++tries) {
          const uint64_t h = fnv1a64(zipf_->next(rng));
          if (tries == kMaxRedraws) return h % inserted;
          if (h % zipf_->items() < inserted) return h % zipf_->items();
        }
      case Distribution::kLatest:
        return inserted - 1 - zipf_->next(rng, inserted);
      case Distribution::kHotspot: {
        const auto hot =
            static_cast<uint64_t>(static_cast<double>(inserted) * s_.hotspotdatafraction);
        if (hot > 0 && (hot == inserted || rng.uniform01() < s_.hotspotopnfraction)) {
          return rng.below(hot);
        }
        return hot + rng.below(inserted - hot);
      }
      case Distribution::kSequential:
        return sequential_++ % inserted;
    }
    return 0;
  }

 private:
  const WorkloadSpec& s_;
  std::unique_ptr<Zipfian> zipf_;
  uint64_t sequential_ = 0;
};

}  // namespace

void check_stream_memory(uint64_t keys, uint64_t ops) {
  const double need =
      static_cast<double>(keys) * sizeof(uint64_t) + static_cast<double>(ops) * sizeof(Op);
  const double have =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
  if (need > have / 2) {
    throw UsageError(
        fmt::format("{} load keys and {} operations need {:.1f} GiB for the pre-generated keys "
                    "and operations (recordcount, keyrange, operationcount); this machine has "
                    "{:.1f} GiB",
                    keys, ops, need / (1 << 30), have / (1 << 30)));
  }
}

Stream generate(const WorkloadSpec& spec, uint64_t stream_seed) {
  if (spec.operationset != OpSet::kKv) {
    return generate(spec, stream_seed, StreamShape{.operations = spec.operationcount});
  }
  check_stream_memory(spec.recordcount, spec.operationcount);
  Stream st{.codec = KeyCodec{spec.insertorder},
            .values = ValuePool(spec.fieldlength, stream_seed ^ 0x5eed5eed5eed5eedULL)};
  Rng rng(stream_seed);

  st.load_keys.reserve(spec.recordcount);
  for (uint64_t id = 0; id < spec.recordcount; ++id) st.load_keys.push_back(st.codec.encode(id));

  constexpr int kKvTypes = 6;  // read .. delete, in OpType order
  const double cut[kKvTypes] = {
      spec.readproportion,
      spec.readproportion + spec.updateproportion,
      spec.readproportion + spec.updateproportion + spec.insertproportion,
      spec.readproportion + spec.updateproportion + spec.insertproportion + spec.scanproportion,
      1.0 - spec.deleteproportion,
      1.0,
  };
  const auto expected_inserts =
      static_cast<uint64_t>(static_cast<double>(spec.operationcount) * spec.insertproportion * 2.0);
  KeyChooser chooser(spec, spec.recordcount + expected_inserts);

  uint64_t inserted = spec.recordcount;
  st.ops.reserve(spec.operationcount);
  for (uint64_t i = 0; i < spec.operationcount; ++i) {
    const double u = rng.uniform01();
    int t = 0;
    while (t < kKvTypes - 1 && u >= cut[t]) ++t;
    Op op{.key = 0, .value = nullptr, .type = static_cast<OpType>(t), .scan_len = 0};
    switch (op.type) {
      case OpType::kInsert:
        op.key = st.codec.encode(inserted++);
        op.value = st.values.get(i);
        break;
      case OpType::kRead:
        if (spec.readmissrate > 0 && rng.uniform01() < spec.readmissrate) {
          op.key = st.codec.encode(kMissBase + rng.below(kMissBase));
          ++st.read_misses;
        } else {
          op.key = st.codec.encode(chooser.next(rng, inserted));
        }
        break;
      case OpType::kScan:
        op.key = st.codec.encode(chooser.next(rng, inserted));
        op.scan_len = static_cast<uint32_t>(1 + rng.below(spec.maxscanlength));
        break;
      case OpType::kUpdate:
      case OpType::kReadModifyWrite:
        op.key = st.codec.encode(chooser.next(rng, inserted));
        op.value = st.values.get(i);
        break;
      case OpType::kDelete:
        op.key = st.codec.encode(chooser.next(rng, inserted));
        break;
      case OpType::kContains:
      case OpType::kPush:
      case OpType::kPop:
        break;  // not kv operations
    }
    st.ops.push_back(op);
  }
  st.records_max = inserted;
  return st;
}

}  // namespace pmemids
