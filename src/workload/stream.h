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
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "workload/op_set.h"
#include "workload/properties.h"

namespace pmemids {

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

struct Stream {
  KeyCodec codec;
  ValuePool values;
  std::vector<uint64_t> load_keys;  // recordcount keys, in insertion order
  std::vector<Op> ops;              // operationcount operations
  uint64_t records_max = 0;         // record ids ever inserted: recordcount + inserts in ops
  uint64_t read_misses = 0;         // reads aimed at never-inserted keys
  uint32_t max_scan_len = 0;        // the longest scan in ops (0: no scans)
  uint64_t key_folds = 0;           // key draws folded after bounded redraws (KeyChooser)
};

// The machine's physical memory; streams and traces refuse to take over half.
double physical_memory_bytes();

// A stream with spec's key codec, the values drawn from stream_seed and, with
// `load`, the load phase's recordcount keys (ids 0 .. recordcount - 1); no
// operations.
Stream stream_base(const WorkloadSpec& spec, uint64_t stream_seed, bool load = true);

// Deterministic in (spec, stream_seed); `stream_seed` lets threads draw
// independent streams from one recorded spec.seed. One stream of
// operationcount operations, role kMixed, worker 0. Ignores spec.tracefile
// (workload/sources.h builds a run's streams from either).
Stream generate(const WorkloadSpec& spec, uint64_t stream_seed);

// Which operations a queue stream holds: both, only pushes, only pops.
enum class StreamRole : uint8_t { kMixed, kProducer, kConsumer };
std::string_view role_name(StreamRole r);

struct StreamShape {
  uint64_t operations = 0;
  StreamRole role = StreamRole::kMixed;
  uint32_t worker = 0;  // makes push element ids distinct between workers
};

// The stream of one worker of a run (queue, set and stack workloads; kv
// workloads take operations from the shape and ignore role and worker).
Stream generate(const WorkloadSpec& spec, uint64_t stream_seed, const StreamShape& shape);

// The element id of the n-th push of a stream drawn by `worker` (load pushes:
// worker -1).
constexpr uint64_t push_id(int64_t worker, uint64_t n) {
  return (static_cast<uint64_t>(worker + 1) << 40) | n;
}

// The streams of a run with `workers` workers. `shared`: the workers share one
// instance and split operationcount between them (queue: producers push and
// consumers pop, by default half the workers each, the pushes and pops split
// between them by pushproportion); otherwise each runs the whole
// operationcount on its own instance. UsageError when producers/consumers do
// not fit the workers or the proportions.
std::vector<StreamShape> plan_streams(const WorkloadSpec& spec, int workers, bool shared);

// UsageError when `keys` load keys and `ops` operations would not fit in half
// of this machine's memory.
void check_stream_memory(uint64_t keys, uint64_t ops);

}  // namespace pmemids
