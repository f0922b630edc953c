// The pre-generated operation stream of one run.
//
// generate() turns a WorkloadSpec into the load-phase keys and the whole
// transaction-phase operation list before anything is timed; the timed loop
// only walks `ops`. Keys are 8-byte integers derived from record ids by a
// KeyCodec (pmemids/key_codec.h): `hashed` insert order scrambles ids with a
// bijection (so distinct ids give distinct keys and structures that address by
// id can invert it); `ordered` uses the id itself. Read misses use ids from
// [kMissBase, 2^63), which no insert ever reaches.
//
// Queue, set and stack workloads (workload/op_set.h) have their own streams:
//   set    load: keyrange/2 distinct keys uniform in [1, keyrange], drawn from
//          spec.seed (the same for every stream of a run); ops: contains /
//          insert / delete by proportion, keys uniform in [1, keyrange]
//          (ASCYLIB's rule).
//   queue, stack  load: recordcount pushes; ops: push / pop by proportion, or
//          alternating push, pop (pushpoppairs). A producer stream holds only
//          pushes, a consumer stream only pops. Every push carries a distinct
//          element id in `key`, (worker + 1) << 40 | n (load pushes: n), and a
//          payload in `value`, so checkers can follow each element.
//
// A StreamShape describes one worker's stream: its size, its role and, for kv
// workloads whose workers share one instance (concurrent, native), its slice.
// A kv slice (StreamSlice) t of n is generated from its own seed, holds its
// share of operationcount, and inserts the ids recordcount + j*n + t (its j-th
// insert), so slices never insert the same id. Its other operations target
// only the loaded ids [0, recordcount), which every slice shares, or ids it
// inserted itself earlier: no operation aims at a key another worker may not
// have inserted yet. In the slice's local id space, local index k <
// recordcount is the loaded id k and k >= recordcount its (k -
// recordcount)-th insert (Stream::global_id); a single-thread stream is slice
// 0 of 1, where local and global ids coincide. Set streams are not sliced:
// their keys are uniform in [1, keyrange] whoever draws them, so an insert of
// a present key or a delete or contains of an absent one is the workload's
// own (ASCYLIB's), not a miss the split invents; they share the fill.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "pmemids/key_codec.h"
#include "workload/op_set.h"
#include "workload/properties.h"

namespace pmemids {

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

// Which operations a queue stream holds: both, only pushes, only pops.
enum class StreamRole : uint8_t { kMixed, kProducer, kConsumer };
std::string_view role_name(StreamRole r);

// One worker's stream, as plan_streams() shapes it (see above).
struct StreamShape {
  uint64_t operations = 0;
  StreamRole role = StreamRole::kMixed;
  uint32_t worker = 0;  // makes push element ids distinct between workers
  StreamSlice slice;    // kv: which slice of the workload's ids ({0, 1}: all)
};

// Part `slice` of n items split contiguously: its first index and its count
// (a slice's operations; a trace's concurrent slices alike).
constexpr std::pair<uint64_t, uint64_t> slice_part(uint64_t n, StreamSlice slice) {
  const uint64_t first = n * slice.index / slice.count;
  return {first, n * (slice.index + 1) / slice.count - first};
}

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

// Deterministic in (spec, stream_seed, shape); `stream_seed` lets threads draw
// independent streams from one recorded spec.seed. This overload: slice
// `slice` of a kv workload (its share of operationcount), or, for the other
// operation sets, a mixed stream of that share drawn as worker slice.index.
// Ignores spec.tracefile
// (workload/sources.h builds a run's streams from either).
Stream generate(const WorkloadSpec& spec, uint64_t stream_seed, StreamSlice slice = {});

// The stream of one worker of a run: shape.operations operations; kv
// workloads slice shape.slice of the workload's ids (and ignore role and
// worker), queue and stack workloads shape.role's operations with
// shape.worker's push ids, set workloads neither.
Stream generate(const WorkloadSpec& spec, uint64_t stream_seed, const StreamShape& shape);

namespace detail {
// generate()'s kv case (stream.cc; the other operation sets: op_set_streams.cc).
Stream kv_stream(const WorkloadSpec& spec, uint64_t stream_seed, const StreamShape& shape);
}  // namespace detail

// The element id of the n-th push of a stream drawn by `worker` (load pushes:
// worker -1).
constexpr uint64_t push_id(int64_t worker, uint64_t n) {
  return (static_cast<uint64_t>(worker + 1) << 40) | n;
}

// The streams of a run with `workers` workers. `shared`: the workers share one
// instance and split operationcount between them (kv: worker t is slice t of
// n; queue: producers push and consumers pop, by default half the workers
// each, the pushes and pops split between them by pushproportion; set and
// stack: a share each); otherwise each runs the whole operationcount on its
// own instance. UsageError when producers/consumers do
// not fit the workers or the proportions.
std::vector<StreamShape> plan_streams(const WorkloadSpec& spec, int workers, bool shared);

// What one instance that `streams` (a run's, in worker order) share must
// hold (DsOptions::capacity). kv and set streams address one id space (kv
// slices' global ids, a set's [1, keyrange]): the highest records_max. Queue
// and stack streams count elements (push ids are not indices): stream 0's
// load and pushes plus every other stream's pushes.
uint64_t shared_capacity(OpSet set, std::span<const Stream* const> streams);

// UsageError, naming spec's recordcount (keyrange for a set workload) and
// operationcount, when `keys` load keys and `ops` operations would not fit in
// half of this machine's memory.
void check_stream_memory(const WorkloadSpec& spec, uint64_t keys, uint64_t ops);

}  // namespace pmemids
