// One repetition of one (structure, backend) pair in one thread mode: create or
// reopen the pool(s), build or recover the structure(s), load (untimed,
// reported separately), run the pre-generated stream(s) (timed), and return
// what was measured.
//
//   single      one worker, one instance (pool <ds>.<mode>.pool).
//   parallel    N workers, each with its own instance and pool
//               (<ds>.<mode>.<t>.pool) and its own stream (feeds[t]); each
//               creates and loads its instance itself before the barrier;
//               throughput is the sum of the workers' throughputs.
//   concurrent  one instance, created and loaded by the calling thread
//               before the workers start; the stream split into N
//               contiguous slices (feeds[0]), or, when there is a feed per
//               worker (queue, set, stack workloads: plan_streams), worker t
//               runs feeds[t]; every operation holds the run's global lock;
//               throughput is all operations over the wall time.
//   native      as concurrent without the lock: only for kInternal structures
//               (ds/traits.h), a feed per worker; each worker obtains its
//               handle (worker_target) in its untimed set-up.
//
// Instances are built with DsOptions::threads = the workers that share them.
// Only the workers' drive loops sit between their two clock reads.
#pragma once

#include <sys/resource.h>

#include <chrono>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "backend/counters.h"
#include "backend/pool.h"
#include "ds/common.h"
#include "run/crew.h"
#include "run/locks.h"
#include "util/stop_signals.h"
#include "workload/properties.h"
#include "workload/sources.h"
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
  double load_factor = 0.75;
  uint32_t max_height = 16;  // skiplist
  uint32_t node_keys = 0;    // B-tree / B+-tree keys per node; 0 = default
  // Combining stacks; poolnodes comes from the workload.
  CombiningOptions combining;
  const WorkloadSpec* spec = nullptr;
  ThreadMode thread_mode = ThreadMode::kSingle;
  int threads = 1;
  LockKind lock = LockKind::kPthreadDram;  // concurrent only
  Placement placement;                     // thread_cpus has `threads` entries
  CrewTiming timing;
  std::vector<Feed> feeds;  // parallel, native: one per thread; concurrent: one or one per thread
};

struct ThreadResult {
  uint64_t ops = 0;
  double seconds = 0;
  std::vector<int> cpus;  // the CPUs it was allowed to run on
  int start_cpu = -1;
};

struct RepResult {
  OpSet op_set = OpSet::kKv;  // the structure's: which operation types records list
  OpTally tally;
  double seconds = 0;      // wall time of the timed phase
  double ops_per_sec = 0;  // parallel: sum over workers; otherwise ops / seconds
  CostCounters costs;
  uint64_t load_ops = 0;
  double load_seconds = 0;  // the slowest loader
  CostCounters load_costs;
  double open_seconds = 0;      // creating or opening the pool(s): the slowest
  double recovery_seconds = 0;  // attaching to reopened pool(s) and rebuilding DRAM state
  uint64_t pool_bytes = 0;      // all instances
  std::vector<ThreadResult> threads;
  LatencySet latency;
  std::vector<double> timeline;  // ops/s per timeline interval
};

// The options of an instance that runs `st` (or, when workers share it, every
// feed: capacity then covers every stream's pushes and inserts).
inline DsOptions ds_options(const RunRequest& req, const Stream& st) {
  const bool shared =
      req.thread_mode == ThreadMode::kConcurrent || req.thread_mode == ThreadMode::kNative;
  uint64_t capacity = st.records_max;
  if (shared) {
    for (const Feed& f : req.feeds) {
      if (f.stream != &st) capacity += f.stream->records_max - f.stream->load_keys.size();
    }
  }
  return DsOptions{.capacity = capacity,
                   .expected = req.spec->recordcount,
                   .value_size = req.spec->fieldlength,
                   .load_factor = req.load_factor,
                   .codec = st.codec,
                   .seed = req.spec->seed,
                   .max_height = req.max_height,
                   .node_keys = req.node_keys,
                   .threads = static_cast<uint32_t>(shared ? req.threads : 1),
                   .keyrange = req.spec->keyrange,
                   .queueslots = req.spec->queueslots,
                   .slotsize = req.spec->slotsize,
                   .combining = with_poolnodes(req.combining, req.spec->poolnodes)};
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
  CostCounters load_costs;

  void build(const RunRequest& req, const Stream& st, int instance) {
    const DsOptions opts = ds_options(req, st);
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

// One worker's scratch buffer (allocated in set-up, never timed) and what it
// measured in its timed phase.
struct WorkerOut {
  std::vector<char> buf;
  OpTally tally;
  CostCounters costs;
  LatencySet latency;

  // A read copies one value; a scan every value it visits.
  void prepare(const WorkloadSpec& spec, const Stream& st) {
    buf.assign(size_t{spec.fieldlength} * std::max<uint32_t>(st.max_scan_len, 1), 0);
  }
};

template <OpSet S, class T, class Lock>
void timed_drive(T& t, Lock& lock, const RunRequest& req, std::span<const Op> ops,
                 std::span<const uint64_t> samples, const DriveControl& ctl, WorkerOut& out) {
  rusage ru0{}, ru1{};
  getrusage(RUSAGE_THREAD, &ru0);
  const CostCounters before = tl_costs;
  drive<S>(t, lock, ops, samples, out.buf.data(), req.spec->fieldlength, ctl, out.tally,
           out.latency);
  out.costs = tl_costs;
  getrusage(RUSAGE_THREAD, &ru1);
  out.costs -= before;
  out.costs.voluntary_switches = static_cast<uint64_t>(ru1.ru_nvcsw - ru0.ru_nvcsw);
  out.costs.involuntary_switches = static_cast<uint64_t>(ru1.ru_nivcsw - ru0.ru_nivcsw);
}

template <template <class> class DS, class B>
void add_setup(RepResult& r, const Instance<DS, B>& in) {
  r.open_seconds = std::max(r.open_seconds, in.open_seconds);
  r.recovery_seconds = std::max(r.recovery_seconds, in.recovery_seconds);
  r.load_seconds = std::max(r.load_seconds, in.load_seconds);
  r.load_ops += in.load_ops;
  r.load_costs += in.load_costs;
  r.pool_bytes += in.backend->pool_bytes();
}

inline void add_workers(RepResult& r, const CrewRun& crew, const std::vector<WorkerOut>& outs) {
  r.seconds = crew.wall_seconds;
  r.timeline = crew.timeline;
  for (size_t t = 0; t < outs.size(); ++t) {
    r.tally += outs[t].tally;
    r.costs += outs[t].costs;
    for (int k = 0; k < kOpTypes; ++k) r.latency[k].merge(outs[t].latency[k]);
    r.threads.push_back({.ops = outs[t].tally.total(),
                         .seconds = crew.thread_seconds[t],
                         .cpus = crew.thread_cpus[t],
                         .start_cpu = crew.start_cpu[t]});
  }
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

// Contiguous slice t of n of a feed's operations, and the samples that fall
// in it, as indices into the slice.
struct Slice {
  std::span<const Op> ops;
  std::vector<uint64_t> samples;
};

inline Slice slice(const Feed& f, int t, int n) {
  const auto [lo, hi] = worker_slice(f.stream->ops.size(), t, n);
  Slice out{std::span<const Op>(f.stream->ops.data() + lo, hi - lo), {}};
  const auto first = std::lower_bound(f.samples.begin(), f.samples.end(), lo);
  for (auto it = first; it != f.samples.end() && *it < hi; ++it) out.samples.push_back(*it - lo);
  return out;
}

}  // namespace detail

// single and parallel: an instance per worker, no lock.
template <template <class> class DS, class B>
RepResult run_instances(const RunRequest& req) {
  const int n = req.threads;
  const bool parallel = req.thread_mode == ThreadMode::kParallel;
  std::vector<detail::Instance<DS, B>> inst(static_cast<size_t>(n));
  std::vector<detail::WorkerOut> outs(static_cast<size_t>(n));
  std::vector<detail::WorkerTarget<DS<B>>> targets(static_cast<size_t>(n));
  const CrewRun crew = run_crew(
      n, req.placement, req.timing,
      [&](int t) {
        outs[t].prepare(*req.spec, *req.feeds[t].stream);
        inst[t].build(req, *req.feeds[t].stream, parallel ? t : -1);
        targets[t].bind(*inst[t].ds, 0);
      },
      [&](int t, const DriveControl& ctl) {
        const Feed& f = req.feeds[t];
        NoLock none;
        detail::timed_drive<DS<B>::kOpSet>(targets[t].get(), none, req, f.stream->ops, f.samples,
                                           ctl, outs[t]);
      });
  RepResult r;
  r.op_set = DS<B>::kOpSet;
  for (const auto& in : inst) detail::add_setup(r, in);
  detail::add_workers(r, crew, outs);
  for (const ThreadResult& t : r.threads) {
    r.ops_per_sec += t.seconds > 0 ? static_cast<double>(t.ops) / t.seconds : 0.0;
  }
  return r;
}

// concurrent and native: workers share `inst`, every operation under `lock`
// (native: NoLock). Worker t runs feeds[t] when there is a feed per worker,
// else slice t of feeds[0].
template <template <class> class DS, class B, class Lock>
RepResult run_shared(const RunRequest& req, detail::Instance<DS, B>& inst, Lock& lock) {
  const int n = req.threads;
  std::vector<detail::WorkerOut> outs(static_cast<size_t>(n));
  std::vector<detail::Slice> slices(static_cast<size_t>(n));
  std::vector<detail::WorkerTarget<DS<B>>> targets(static_cast<size_t>(n));
  const bool per_worker = req.feeds.size() == static_cast<size_t>(n);
  const CrewRun crew = run_crew(
      n, req.placement, req.timing,
      [&](int t) {
        outs[t].prepare(*req.spec, *req.feeds[per_worker ? t : 0].stream);
        slices[t] =
            per_worker ? detail::slice(req.feeds[t], 0, 1) : detail::slice(req.feeds[0], t, n);
        targets[t].bind(*inst.ds, t);
      },
      [&](int t, const DriveControl& ctl) {
        if constexpr (DS<B>::kOpSet == OpSet::kStack && std::is_same_v<Lock, NoLock>) {
          if (req.spec->localwork > 0) {
            detail::LocalWork w(targets[t].get(), req.spec->localwork,
                                req.spec->seed + static_cast<uint64_t>(t));
            detail::timed_drive<OpSet::kStack>(w, lock, req, slices[t].ops, slices[t].samples, ctl,
                                               outs[t]);
            return;
          }
        }
        detail::timed_drive<DS<B>::kOpSet>(targets[t].get(), lock, req, slices[t].ops,
                                           slices[t].samples, ctl, outs[t]);
      });
  RepResult r;
  r.op_set = DS<B>::kOpSet;
  detail::add_setup(r, inst);
  detail::add_workers(r, crew, outs);
  r.ops_per_sec = r.seconds > 0 ? static_cast<double>(r.tally.total()) / r.seconds : 0.0;
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
  detail::Instance<DS, B> inst;
  inst.build(req, *req.feeds[0].stream, -1);
  if (req.thread_mode == ThreadMode::kNative) {
    if constexpr (DS<B>::kSync == Sync::kInternal) {
      NoLock none;
      return run_shared(req, inst, none);
    } else {
      throw UsageError(
          fmt::format("--thread-mode native: {} needs a lock (external "
                      "synchronisation)",
                      DS<B>::kName));
    }
  }
  DramLockSlot dram;
  return with_lock(req.lock, *inst.backend, dram,
                   [&](auto& lock) { return run_shared(req, inst, lock); });
}

}  // namespace pmemids
