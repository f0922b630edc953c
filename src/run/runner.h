// One repetition of one (structure, backend) pair in one thread mode: create or
// reopen the pool(s), build or recover the structure(s), load (untimed,
// reported separately), run the pre-generated operations (timed), and return
// what was measured. Worker t always runs feeds[t].
//
//   single      one worker, one instance (pool <ds>.<mode>.pool).
//   parallel    N workers, each with its own instance and pool
//               (<ds>.<mode>.<t>.pool) and its own stream (feeds[t]); each
//               creates and loads its instance itself before the barrier.
//   concurrent  one instance, created and loaded by the calling thread (from
//               feeds[0]'s load keys) before the workers start; worker t
//               runs feeds[t], as plan_streams() shaped it (workload/stream.h):
//               for kv workloads slice t of n of the workload, so no
//               operation targets a key another worker inserts; for queue,
//               set and stack workloads its role's or its share's operations;
//               every operation holds the run's global lock.
//   native      as concurrent without the lock: only for kInternal structures
//               (ds/traits.h); each worker obtains its handle (worker_target)
//               in its untimed set-up.
//
// In every mode ops_per_sec is all operations over the common window (first
// worker's start to last worker's end, run/crew.h); sum_of_rates adds each
// worker's own ops / seconds (what parallel mode reported before).
// A cyclic run (--duration) sizes every instance for the replay cycles its
// budget allows (run/replay.h).
//
// Instances are built with DsOptions::threads = the workers that share them.
// Only the workers' drive loops sit between their two clock reads. With a
// target rate (timing.target) the workers run drive_paced instead of drive,
// and sampled operations are also timed from their due time (intended_latency).
#pragma once

#include <algorithm>
#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "backend/pool.h"
#include "counters/cost_counters.h"
#include "ds/common.h"
#include "run/crew.h"
#include "run/locks.h"
#include "run/replay.h"
#include "util/stop_signals.h"
#include "workload/properties.h"
#include "workload/stream.h"

namespace pmemids {

enum class ThreadMode : uint8_t { kSingle, kParallel, kConcurrent, kNative };

// A stream and the indices of its operations whose latency is sampled.
struct Feed {
  const Stream* stream = nullptr;
  std::vector<uint64_t> samples;  // ascending
};

struct RunRequest {
  std::string pool_dir;
  uint64_t pool_size = 0;  // bytes per instance; 0 derives it from the workload
  bool keep_pool = false;
  bool reopen = false;
  // reopen: check each pool in a child process before opening it (run/reopen_check.h),
  // for at most this many seconds (0: default_check_timeout of the pool's size).
  bool check_reopened = true;
  double pool_check_timeout_s = 0;
  // The structures' knobs (pmemids/knob.h): every knob of the catalog; a
  // structure reads its own.
  KnobValues knobs;
  const WorkloadSpec* spec = nullptr;
  ThreadMode thread_mode = ThreadMode::kSingle;
  int threads = 1;
  LockKind lock = LockKind::kPthreadDram;  // concurrent only
  Placement placement;                     // thread_cpus has `threads` entries
  CrewTiming timing;
  std::vector<Feed> feeds;  // one per worker
};

struct ThreadResult {
  uint64_t ops = 0;
  double seconds = 0;
  uint64_t cycles = 1;    // passes over its operations begun (--duration)
  std::vector<int> cpus;  // the CPUs it was allowed to run on
  int start_cpu = -1;
  ThreadUsage usage;
};

struct RepResult {
  OpSet op_set = OpSet::kKv;  // the structure's: which operation types records list
  Mode mode = Mode::kDram;
  std::span<const Metric> metrics;  // the structure's own (ds/traits.h), from costs.ds
  OpTally tally;
  double seconds = 0;             // the common window of the timed phase
  double ops_per_sec = 0;         // all operations / seconds
  double sum_of_rates = 0;        // sum over workers of ops / own seconds
  uint64_t cycles = 1;            // the most passes any worker began
  bool cycles_exhausted = false;  // a worker reached the replay budget and stopped the run
  ThreadUsage usage;              // all workers' timed phases
  uint64_t operationcount = 0;    // the workload's, as its streams were generated
  int workers = 1;                // --threads
  int allowed_cpus = 0;           // CPUs the workers were allowed, together
  CostCounters costs;
  uint64_t load_ops = 0;
  double load_seconds = 0;  // the slowest loader
  CostCounters load_costs;
  double open_seconds = 0;      // creating or opening the pool(s): the slowest
  double recovery_seconds = 0;  // attaching to reopened pool(s) and rebuilding DRAM state
  uint64_t pool_bytes = 0;      // all instances
  // The structures' size as each estimates it to size its pool (DS::pool_bytes of the
  // run's options), all instances: the working set claims compare with the LLC.
  uint64_t footprint_bytes = 0;
  std::vector<ThreadResult> threads;
  LatencySet latency;
  LatencySet intended_latency;   // under a target: from each sample's due time
  std::vector<double> timeline;  // ops/s per timeline interval
};

// `capacity`: what the structure must hold (0: the stream's records_max; see
// detail::sized_for()).
inline DsOptions ds_options(const RunRequest& req, const Stream& st, uint64_t capacity = 0) {
  const bool shared =
      req.thread_mode == ThreadMode::kConcurrent || req.thread_mode == ThreadMode::kNative;
  DsOptions o{.capacity = capacity != 0 ? capacity : st.records_max,
              .expected = req.spec->recordcount,
              .value_size = req.spec->fieldlength,
              .codec = st.codec,
              .seed = req.spec->seed,
              .threads = static_cast<uint32_t>(shared ? req.threads : 1),
              .keyrange = req.spec->keyrange,
              .queueslots = req.spec->queueslots,
              .slotsize = req.spec->slotsize,
              .combining = with_poolnodes({}, req.spec->poolnodes)};
  for (const auto& [knob, value] : req.knobs) knob->assign(o, value);
  return o;
}

// Loads a stream's load phase into `t` (a structure or a handle of it):
// kv and set insert the load keys, queue and stack push them.
template <OpSet S, class T>
void load_stream(T& t, const Stream& st) {
  for (uint64_t i = 0; i < st.load_keys.size(); ++i) {
    if (i % 4096 == 0) throw_if_stopped();  // untimed: a long load stops on SIGINT too
    bool ok = true;
    if constexpr (S == OpSet::kKv || S == OpSet::kOrderedKv) {
      t.insert(st.load_keys[i], st.values.get(i));
    } else if constexpr (S == OpSet::kSet) {
      t.insert(st.load_keys[i]);
    } else if constexpr (S == OpSet::kQueue) {
      ok = t.push(st.load_keys[i], st.values.get(i));
    } else {
      ok = t.push(st.load_keys[i]);
    }
    if (!ok) {
      throw UsageError(
          fmt::format("load: the structure is full after {} of recordcount={} "
                      "pushes (raise queueslots or lower recordcount)",
                      i, st.load_keys.size()));
    }
  }
}

// The pool of `instance` (-1: the only one) of structure DS in backend B.
template <template <class> class DS, class B>
PoolSpec pool_spec(const RunRequest& req, const DsOptions& opts, int instance) {
  return PoolSpec{
      .dir = req.pool_dir,
      .ds = DS<B>::kName,
      .mode = std::string(mode_name(B::kMode)),
      .instance = instance,
      .bytes = req.pool_size != 0 ? req.pool_size : default_pool_bytes(DS<B>::pool_bytes(opts)),
      .reopen = req.reopen,
      .keep = req.keep_pool};
}

namespace detail {

using Clock = std::chrono::steady_clock;
inline double secs(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// One structure instance in its backend, and what setting it up cost.
template <template <class> class DS, class B>
struct Instance {
  std::optional<B> backend;
  std::optional<DS<B>> ds;
  double open_seconds = 0, recovery_seconds = 0, load_seconds = 0;
  uint64_t load_ops = 0;
  uint64_t footprint_bytes = 0;
  CostCounters load_costs;

  // `st` holds the load keys; `capacity` as in ds_options().
  void build(const RunRequest& req, const Stream& st, uint64_t capacity, int instance) {
    const DsOptions opts = ds_options(req, st, capacity);
    footprint_bytes = DS<B>::pool_bytes(opts);
    const auto t0 = Clock::now();
    backend.emplace(pool_spec<DS, B>(req, opts, instance));
    const auto t1 = Clock::now();
    ds.emplace(*backend, opts);
    const auto t2 = Clock::now();
    open_seconds = secs(t0, t1);
    if (req.reopen) {
      recovery_seconds = secs(t1, t2);
      return;
    }
    const CostCounters before = tl_costs;
    {
      auto&& t = worker_target(*ds, 0);
      load_stream<DS<B>::kOpSet>(t, st);
    }
    load_seconds = secs(t2, Clock::now());
    load_costs = tl_costs;
    load_costs -= before;
    load_ops = st.load_keys.size();
  }
};

// One worker's scratch buffers and replay (built in set-up, never timed) and
// what it measured in its timed phase.
struct WorkerOut {
  std::vector<char> buf;
  std::vector<Op> scratch;  // a replay cycle's chunk (cyclic runs)
  Replay replay;
  uint64_t max_cycles = kUnboundedCycles;
  OpTally tally;
  CostCounters costs;
  LatencySet latency;
  LatencySet intended;  // drive_paced only
  DriveEnd end;

  // A read copies one value; a scan every value it visits.
  void prepare(const RunRequest& req, const Feed& feed) {
    buf.assign(size_t{req.spec->fieldlength} * std::max<uint32_t>(feed.stream->max_scan_len, 1), 0);
    if (req.timing.duration > 0) {
      scratch.resize(kChunk);
      replay = Replay(*feed.stream);
    }
  }
};

// Not inlined: one call per worker and repetition, and the symbol callgrind's
// --toggle-collect=*timed_drive* measures the timed phase by
// (scripts/callgrind-ops.sh). `t`: the structure or the worker's handle of it.
template <OpSet S, class T, class Lock>
[[gnu::noinline]] void timed_drive(T& t, Lock& lock, const RunRequest& req, const Feed& feed,
                                   const DriveControl& ctl, WorkerOut& out) {
  const DriveInput in{.ops = feed.stream->ops,
                      .samples = feed.samples,
                      .replay = &out.replay,
                      .scratch = out.scratch.data(),
                      .max_cycles = out.max_cycles};
  const CostCounters before = tl_costs;
  if (ctl.pace_ns > 0) {
    out.end = drive_paced<S>(t, lock, in, out.buf.data(), req.spec->fieldlength, ctl, out.tally,
                             out.latency, out.intended);
  } else {
    out.end =
        drive<S>(t, lock, in, out.buf.data(), req.spec->fieldlength, ctl, out.tally, out.latency);
  }
  out.costs = tl_costs;
  out.costs -= before;
}

// What an instance that `streams` share must hold, and the replay cycles it
// is sized for (1 without --duration): shared_capacity() (workload/stream.h),
// or for kv streams replayed a bounded number of cycles the highest id any of
// them reaches by then. Queue, set and stack streams never insert new ids
// (Stream::inserts is 0): their replay cycles are unbounded and repeat the
// same operations (a set's keys stay in [1, keyrange]; a queue or stack
// grows or shrinks only as the workload's push and pop proportions say).
// A reopened pool was sized by the run that created it: its replay does not
// grow it (one cycle, when the streams insert).
template <class DS>
std::pair<uint64_t, uint64_t> sized_for(const RunRequest& req,
                                        std::span<const Stream* const> streams, int instances) {
  uint64_t cycles = 1;
  if (req.timing.duration > 0 && req.reopen) {
    cycles = kUnboundedCycles;
    for (const Stream* s : streams) cycles = s->inserts > 0 ? 1 : cycles;
  } else if (req.timing.duration > 0) {
    DsOptions one = ds_options(req, *streams[0], 1), two = ds_options(req, *streams[0], 2);
    cycles = replay_cycles(req.timing.duration, streams, DS::pool_bytes(two) - DS::pool_bytes(one),
                           instances);
  }
  if (cycles == 1 || cycles == kUnboundedCycles) {
    return {shared_capacity(DS::kOpSet, streams), cycles};
  }
  uint64_t capacity = 0;  // only kv streams insert, so only they replay a bounded number of cycles
  for (const Stream* s : streams) capacity = std::max(capacity, ids_after(*s, cycles));
  return {capacity, cycles};
}

template <template <class> class DS, class B>
void add_setup(RepResult& r, const Instance<DS, B>& in) {
  r.open_seconds = std::max(r.open_seconds, in.open_seconds);
  r.recovery_seconds = std::max(r.recovery_seconds, in.recovery_seconds);
  r.load_seconds = std::max(r.load_seconds, in.load_seconds);
  r.load_ops += in.load_ops;
  r.load_costs += in.load_costs;
  r.pool_bytes += in.backend->pool_bytes();
  r.footprint_bytes += in.footprint_bytes;
}

inline void add_workers(RepResult& r, const RunRequest& req, const CrewRun& crew,
                        const std::vector<WorkerOut>& outs) {
  r.operationcount = req.spec->operationcount;
  r.workers = req.threads;
  r.allowed_cpus = req.placement.allowed_cpus;
  r.seconds = crew.wall_seconds;
  r.timeline = crew.timeline;
  for (size_t t = 0; t < outs.size(); ++t) {
    r.tally += outs[t].tally;
    r.costs += outs[t].costs;
    r.usage += crew.thread_usage[t];
    r.cycles = std::max(r.cycles, outs[t].end.cycles);
    r.cycles_exhausted |= outs[t].end.budget_exhausted;
    for (int k = 0; k < kOpTypes; ++k) {
      r.latency[k].merge(outs[t].latency[k]);
      r.intended_latency[k].merge(outs[t].intended[k]);
    }
    const ThreadResult tr{.ops = outs[t].tally.total(),
                          .seconds = crew.thread_seconds[t],
                          .cycles = outs[t].end.cycles,
                          .cpus = crew.thread_cpus[t],
                          .start_cpu = crew.start_cpu[t],
                          .usage = crew.thread_usage[t]};
    if (tr.seconds > 0) r.sum_of_rates += static_cast<double>(tr.ops) / tr.seconds;
    r.threads.push_back(tr);
  }
  r.ops_per_sec = r.seconds > 0 ? static_cast<double>(r.tally.total()) / r.seconds : 0.0;
}

// The crew's timing, with a LiveLatency per worker when status lines are on
// and latencies are sampled (`live` owns them for the repetition).
inline CrewTiming crew_timing(const RunRequest& req,
                              std::vector<std::unique_ptr<LiveLatency>>& live) {
  CrewTiming timing = req.timing;
  bool sampled = false;
  for (const Feed& f : req.feeds) sampled = sampled || !f.samples.empty();
  if (timing.status_interval > 0 && sampled) {
    for (int t = 0; t < req.threads; ++t) live.push_back(std::make_unique<LiveLatency>(kOpTypes));
    timing.live = &live;
  }
  return timing;
}

// A worker's target, bound in its untimed set-up: its handle of the structure
// (kInternal) or the structure itself (kExternal).
template <class DS>
class WorkerTarget {
  static constexpr bool kHandle = DS::kSync == Sync::kInternal;
  using Handle = std::conditional_t<kHandle, TargetOf<DS>, char>;

 public:
  void bind(DS& ds, int t) {
    if constexpr (kHandle) {
      handle_.emplace(ds.handle(t));
    } else {
      ds_ = &ds;
    }
  }
  auto& get() {
    if constexpr (kHandle) {
      return *handle_;
    } else {
      return *ds_;
    }
  }

 private:
  std::optional<Handle> handle_;
  DS* ds_ = nullptr;
};

// PBcomb's benchmark's local work (the `localwork` property, stacks in native
// mode): after each operation, 1..n pause instructions, n drawn from a
// per-worker xorshift generator (no clock, no allocation, no lock).
template <class T>
class LocalWork {
 public:
  LocalWork(T& t, uint32_t n, uint64_t seed) : t_(t), n_(n), x_(seed | 1) {}
  bool push(uint64_t id) {
    const bool r = t_.push(id);
    spin();
    return r;
  }
  bool pop(uint64_t& id) {
    const bool r = t_.pop(id);
    spin();
    return r;
  }

 private:
  void spin() {
    x_ ^= x_ << 13;
    x_ ^= x_ >> 7;
    x_ ^= x_ << 17;
    for (uint64_t i = 0, k = 1 + x_ % n_; i < k; ++i) __builtin_ia32_pause();
  }
  T& t_;
  uint64_t n_;
  uint64_t x_;
};

}  // namespace detail

// single and parallel: an instance per worker, no lock.
template <template <class> class DS, class B>
RepResult run_instances(const RunRequest& req) {
  const int n = req.threads;
  const bool parallel = req.thread_mode == ThreadMode::kParallel;
  std::vector<detail::Instance<DS, B>> inst(static_cast<size_t>(n));
  std::vector<detail::WorkerOut> outs(static_cast<size_t>(n));
  std::vector<std::unique_ptr<LiveLatency>> live;
  std::vector<detail::WorkerTarget<DS<B>>> targets(static_cast<size_t>(n));
  const CrewRun crew = run_crew(
      n, req.placement, detail::crew_timing(req, live),
      [&](int t) {
        const Feed& f = req.feeds[t];
        outs[t].prepare(req, f);
        const Stream* const own[] = {f.stream};
        const auto [capacity, cycles] = detail::sized_for<DS<B>>(req, own, n);
        outs[t].max_cycles = cycles;
        inst[t].build(req, *f.stream, capacity, parallel ? t : -1);
        targets[t].bind(*inst[t].ds, 0);
      },
      [&](int t, const DriveControl& ctl) {
        NoLock none;
        detail::timed_drive<DS<B>::kOpSet>(targets[t].get(), none, req, req.feeds[t], ctl, outs[t]);
      });
  RepResult r{.op_set = DS<B>::kOpSet, .mode = B::kMode, .metrics = metrics_of<DS<B>>()};
  for (const auto& in : inst) detail::add_setup(r, in);
  detail::add_workers(r, req, crew, outs);
  return r;
}

// concurrent and native: workers share `inst`, every operation under `lock`
// (native: NoLock); worker t runs feeds[t].
template <template <class> class DS, class B, class Lock>
RepResult run_shared(const RunRequest& req, detail::Instance<DS, B>& inst, uint64_t cycles,
                     Lock& lock) {
  const int n = req.threads;
  std::vector<detail::WorkerOut> outs(static_cast<size_t>(n));
  std::vector<std::unique_ptr<LiveLatency>> live;
  std::vector<detail::WorkerTarget<DS<B>>> targets(static_cast<size_t>(n));
  const CrewRun crew = run_crew(
      n, req.placement, detail::crew_timing(req, live),
      [&](int t) {
        outs[t].prepare(req, req.feeds[t]);
        outs[t].max_cycles = cycles;
        targets[t].bind(*inst.ds, t);
      },
      [&](int t, const DriveControl& ctl) {
        if constexpr (DS<B>::kOpSet == OpSet::kStack && std::is_same_v<Lock, NoLock>) {
          if (req.spec->localwork > 0) {
            detail::LocalWork w(targets[t].get(), req.spec->localwork,
                                req.spec->seed + static_cast<uint64_t>(t));
            detail::timed_drive<OpSet::kStack>(w, lock, req, req.feeds[t], ctl, outs[t]);
            return;
          }
        }
        detail::timed_drive<DS<B>::kOpSet>(targets[t].get(), lock, req, req.feeds[t], ctl, outs[t]);
      });
  RepResult r{.op_set = DS<B>::kOpSet, .mode = B::kMode, .metrics = metrics_of<DS<B>>()};
  detail::add_setup(r, inst);
  detail::add_workers(r, req, crew, outs);
  return r;
}

// The run function the registry stores per (structure, mode): one dispatch on
// thread mode and lock kind per repetition. The shared instance is built
// and loaded by the calling thread (whose memory policy run() has set).
template <template <class> class DS, class B>
RepResult run_rep(const RunRequest& req) {
  if (req.spec->localwork > 0 && req.thread_mode != ThreadMode::kNative) {
    throw UsageError(
        "localwork spins between a worker's operations outside any lock: it needs "
        "--thread-mode native (the combining stacks)");
  }
  if (req.thread_mode == ThreadMode::kSingle || req.thread_mode == ThreadMode::kParallel) {
    return run_instances<DS, B>(req);
  }
  std::vector<const Stream*> streams;
  for (const Feed& f : req.feeds) streams.push_back(f.stream);
  const auto [capacity, cycles] = detail::sized_for<DS<B>>(req, streams, 1);
  detail::Instance<DS, B> inst;
  inst.build(req, *req.feeds[0].stream, capacity, -1);
  if (req.thread_mode == ThreadMode::kNative) {
    if constexpr (DS<B>::kSync == Sync::kInternal) {
      NoLock none;
      return run_shared(req, inst, cycles, none);
    } else {
      throw UsageError(
          fmt::format("--thread-mode native: {} needs a lock (external "
                      "synchronisation)",
                      DS<B>::kName));
    }
  }
  DramLockSlot dram;
  return with_lock(req.lock, *inst.backend, dram, [&, max_cycles = cycles](auto& lock) {
    return run_shared(req, inst, max_cycles, lock);
  });
}

}  // namespace pmemids
