// How a --duration run replays its stream without changing the workload.
//
// Replaying the operations as they are would turn every insert of the second
// cycle into an update of the key the first cycle inserted, and every delete
// into a miss. Instead, cycle c (from 0) shifts every target of the stream in
// its slice's local id space (workload/stream.h) by c x inserts-per-cycle:
// inserts get ids no cycle used before, and an operation that in cycle 0
// targeted a loaded id or one inserted earlier in the slice targets, in cycle
// c, the id that is in the same position now (loaded ids that earlier cycles
// did not shift past, or ids the slice inserted in earlier cycles). Without
// deletes every target is live, so the found fractions of every cycle are
// those of the first; deletes of earlier cycles stay deleted, as in one long
// run. Read misses stay misses.
//
// The structure grows by the stream's inserts every cycle. Instances are sized
// before the run for replay_cycles() cycles; a worker that reaches them stops
// the run (DriveEnd::budget_exhausted), short of --duration, rather than
// overflow its pool.
//
// Cycle 0 runs the stored operations as every non-cyclic run does; later
// cycles rewrite one kChunk of operations at a time into a worker-owned
// scratch buffer (fill()), so the per-operation loop is the same in both.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "workload/stream.h"

namespace pmemids {

// Budget of a cyclic run's growth: what the fastest structure here inserts at
// this rate over --duration, and at most this many bytes of elements
// (structures' pool_bytes() estimates, all instances together).
inline constexpr double kReplayOpsPerSecBound = 20e6;
inline constexpr uint64_t kReplayGrowthBytes = uint64_t{512} << 20;
inline constexpr uint64_t kUnboundedCycles = std::numeric_limits<uint64_t>::max();

class Replay {
 public:
  Replay() = default;
  explicit Replay(const Stream& st) : st_(&st), local_(st.ops.size()) {
    for (size_t i = 0; i < st.ops.size(); ++i)
      local_[i] = st.local_id(st.codec.decode(st.ops[i].key));
  }

  // Operations [first, first + n) of cycle `cycle` into out[0, n).
  void fill(uint64_t cycle, size_t first, size_t n, Op* out) const {
    const uint64_t shift = cycle * st_->inserts;
    for (size_t i = 0; i < n; ++i) {
      Op op = st_->ops[first + i];
      const uint64_t k = local_[first + i];
      if (k < kMissBase) op.key = st_->codec.encode(st_->global_id(k + shift));
      out[i] = op;
    }
  }

 private:
  const Stream* st_ = nullptr;
  std::vector<uint64_t> local_;  // per operation: its target's local id
};

// One past the highest record id `st` addresses when replayed for `cycles` cycles.
inline uint64_t ids_after(const Stream& st, uint64_t cycles) {
  if (st.inserts == 0) return st.records_max;
  return st.global_id(st.recordcount + st.inserts * cycles - 1) + 1;
}

// Cycles (cycle 0 included) to size an instance for, which `streams` share:
// the ids they insert per cycle at kReplayOpsPerSecBound over `duration`,
// within this instance's share (1 / instances) of kReplayGrowthBytes at
// `bytes_per_id`; unbounded when nothing grows.
inline uint64_t replay_cycles(double duration, std::span<const Stream* const> streams,
                              uint64_t bytes_per_id, int instances) {
  uint64_t ops = 0, inserts = 0;
  for (const Stream* s : streams) {
    ops += s->ops.size();
    inserts += s->inserts;
  }
  if (inserts == 0 || bytes_per_id == 0) return kUnboundedCycles;
  const double by_rate =
      duration * kReplayOpsPerSecBound * static_cast<double>(inserts) / static_cast<double>(ops);
  const double by_bytes =
      static_cast<double>(kReplayGrowthBytes) / instances / static_cast<double>(bytes_per_id);
  const double ids = std::min(by_rate, by_bytes);
  return 1 + std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(ids / inserts)));
}

}  // namespace pmemids
