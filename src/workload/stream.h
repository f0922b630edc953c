// The pre-generated operation stream of one run.
//
// generate() turns a WorkloadSpec into the load-phase keys and the whole
// transaction-phase operation list before anything is timed; the timed loop
// only walks `ops`. Keys are 8-byte integers derived from record ids by a
// KeyCodec: `hashed` insert order scrambles ids with a bijection (so distinct
// ids give distinct keys and structures that address by id can invert it);
// `ordered` uses the id itself. Read misses use ids from [kMissBase, 2^63),
// which no insert ever reaches.
//
// A concurrent run's workers each walk a slice of their own (StreamSlice):
// slice t of n is generated from its own seed, holds its share of
// operationcount, and inserts the ids recordcount + j*n + t (its j-th insert),
// so slices never insert the same id. Its other operations target only the
// loaded ids [0, recordcount), which every slice shares, or ids it inserted
// itself earlier: no operation aims at a key another worker may not have
// inserted yet. In the slice's local id space, local index k < recordcount
// is the loaded id k and k >= recordcount its (k - recordcount)-th insert
// (Stream::global_id); a single-thread stream is slice 0 of 1, where local and
// global ids coincide.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "workload/properties.h"

namespace pmemids {

enum class OpType : uint8_t { kRead, kUpdate, kInsert, kScan, kReadModifyWrite, kDelete };
inline constexpr int kOpTypes = 6;
std::string_view op_name(OpType t);

struct KeyCodec {
  InsertOrder order = InsertOrder::kHashed;
  uint64_t encode(uint64_t id) const;
  uint64_t decode(uint64_t key) const;
};

inline constexpr uint64_t kMissBase = uint64_t{1} << 62;

struct Op {
  uint64_t key;
  const char* value;  // fieldlength bytes for update / insert / read-modify-write
  OpType type;
  uint32_t scan_len;  // scan only
};

// Distinct value payloads shared by all operations (values are not unique per
// operation; structures copy them, so sharing does not change the work done).
class ValuePool {
 public:
  ValuePool(uint32_t fieldlength, uint64_t seed, size_t count = 1024);
  const char* get(uint64_t i) const { return bytes_.data() + (i % count_) * len_; }

 private:
  uint32_t len_;
  size_t count_;
  std::vector<char> bytes_;
};

struct StreamSlice {
  uint32_t index = 0;
  uint32_t count = 1;
};

struct Stream {
  KeyCodec codec;
  ValuePool values;
  std::vector<uint64_t> load_keys;  // recordcount keys, in insertion order (slice 0 only)
  std::vector<Op> ops;              // operationcount operations (a slice: its share)
  uint64_t records_max = 0;         // bound on the record ids addressed: highest + 1
  uint64_t read_misses = 0;         // reads aimed at never-inserted keys
  uint32_t max_scan_len = 0;        // the longest scan in ops (0: no scans)
  uint64_t key_folds = 0;           // key draws folded after bounded redraws (KeyChooser)
  uint64_t recordcount = 0;         // loaded ids: [0, recordcount)
  uint64_t inserts = 0;             // insert operations in ops
  StreamSlice slice;

  // The record id of local index `k` (see above); ids from kMissBase up are
  // misses and map to themselves.
  uint64_t global_id(uint64_t k) const {
    if (k < recordcount || k >= kMissBase) return k;
    return recordcount + (k - recordcount) * slice.count + slice.index;
  }
  // The inverse, for ids this slice addresses.
  uint64_t local_id(uint64_t id) const {
    if (id < recordcount || id >= kMissBase) return id;
    return recordcount + (id - recordcount) / slice.count;
  }
};

// The machine's physical memory; streams and traces refuse to take over half.
double physical_memory_bytes();

// A stream with spec's key codec, the values drawn from stream_seed and, with
// `load`, the load phase's recordcount keys (ids 0 .. recordcount - 1); no
// operations.
Stream stream_base(const WorkloadSpec& spec, uint64_t stream_seed, bool load = true);

// Deterministic in (spec, stream_seed, slice); `stream_seed` lets threads draw
// independent streams from one recorded spec.seed. Ignores spec.tracefile
// (workload/sources.h builds a run's streams from either).
Stream generate(const WorkloadSpec& spec, uint64_t stream_seed, StreamSlice slice = {});

}  // namespace pmemids
