// The templated crash run behind run_crash() (see crash/crash.h). Included only
// by the crash registry, which instantiates it per (structure, mode).
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <unordered_set>

#include "backend/shadow.h"
#include "crash/crash.h"
#include "crash/linearizability.h"
#include "crash/models.h"
#include "crash/turns.h"
#include "run/execute.h"
#include "util/stop_signals.h"
#include "workload/generators.h"

namespace pmemids {
namespace crash_detail {

// One operation of the structure's operation set on `t`, its response as
// "found" (workload/op_set.h) and, for a pop, the id it returned.
template <OpSet S, class T>
bool apply_op(T& t, const Op& op, char* buf, uint32_t vsize, uint64_t& out) {
  if constexpr (S == OpSet::kQueue) {
    if (op.type == OpType::kPop) return t.pop(out, buf);
  } else if constexpr (S == OpSet::kStack) {
    if (op.type == OpType::kPop) return t.pop(out);
  }
  return apply<S>(t, op, buf, vsize);
}

// Single-threaded runs: op on the structure's thread-0 target.
template <class DS>
void apply_to_ds(DS& ds, const Op& op, char* buf, uint32_t vsize) {
  uint64_t out;
  auto&& t = worker_target(ds, 0);
  apply_op<DS::kOpSet>(t, op, buf, vsize, out);
}

struct CheckRequest {
  uint64_t point;
  uint64_t op_index;     // the op in flight; ops.size() when none was
  int32_t instance;      // which pool file of the work directory to check
  uint32_t history = 0;  // multi-thread: HistoryOps that follow the request
};

// What an image must hold: single-threaded, the model before and after the
// in-flight op; multi-thread, a linearisation of `history` from `initial`.
struct Expectation {
  Items before, after;
  std::optional<uint64_t> inflight_key;
  std::string inflight_name;
  bool multi = false;
  std::vector<HistoryOp> history;
  Items initial;
  uint64_t loaded = 0;    // multi: load ops done (by worker 0's handle) before the
                          // history; single: operations acknowledged
  uint64_t capacity = 0;  // queues: the ring's slots
};

inline PoolSpec pool_spec(const CrashOptions& opt, const char* ds, Mode m, int instance,
                          uint64_t bytes, bool reopen, bool keep) {
  return PoolSpec{.dir = opt.work_dir,
                  .ds = ds,
                  .mode = std::string(mode_name(m)),
                  .instance = instance,
                  .bytes = bytes,
                  .reopen = reopen,
                  .keep = keep};
}

inline void set_message(PointResult& r, const std::string& m) {
  if (r.message[0] != '\0') return;  // keep the first
  std::snprintf(r.message, sizeof r.message, "%s", m.c_str());
}

// Runs `pmempool check` on a closed pool file: true when it reports it consistent.
bool pmempool_consistent(const std::string& path);

// `points` distinct indices of [0, available), ascending; all when fewer.
std::vector<uint64_t> pick_points(uint64_t available, uint32_t points, uint64_t seed);

bool read_full(int fd, void* buf, size_t n);
bool write_full(int fd, const void* buf, size_t n);

// Runs f() (returning a PointResult) in a child process, waiting at most
// `timeout_s`: a child that crashes on a corrupt image or walks for ever is a
// failed check, not a crashed checker.
template <class F>
PointResult in_child(F&& f, double timeout_s) {
  PointResult r;
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) {
    set_message(r, "checker: cannot create a pipe");
    return r;
  }
  const pid_t pid = fork();
  if (pid == 0) {
    close(p[0]);
    const PointResult res = f();
    write_full(p[1], &res, sizeof res);
    _exit(0);
  }
  close(p[1]);
  if (pid < 0) {
    close(p[0]);
    set_message(r, "checker: cannot start a worker process");
    return r;
  }
  pollfd pfd{p[0], POLLIN, 0};
  const int ready = poll(&pfd, 1, static_cast<int>(timeout_s * 1000));
  const bool got = ready > 0 && read_full(p[0], &r, sizeof r);
  close(p[0]);
  if (!got) kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  if (got) return r;
  r = PointResult{};
  if (ready == 0) {
    set_message(r, fmt::format("checker worker timed out after {} s (recovery or walk does "
                               "not end)",
                               timeout_s));
  } else if (WIFSIGNALED(status)) {
    set_message(r, fmt::format("checker worker killed by signal {} ({}) on the image",
                               WTERMSIG(status), strsignal(WTERMSIG(status))));
  } else {
    set_message(r, "checker worker exited without a result");
  }
  return r;
}

// Single-threaded runs of a detectable structure: the report for thread 0
// must agree with the recovered contents. `e.loaded` operations were
// acknowledged; the report describes the in-flight one (seq one above: it
// was announced) or the last acknowledged one (the in-flight one, if any, was
// not announced, so must not have taken effect). Returns what disagrees.
inline std::optional<std::string> detect_single(const RecoveredOp& rep, const Expectation& e,
                                                const Items& got) {
  const bool inflight = !e.inflight_name.empty();
  const bool changes = e.before != e.after;
  if (inflight && rep.seq == e.loaded + 1) {
    if (rep.status != RecoveredOp::kApplied) {
      if (changes && got != e.before) return "in-flight operation reported not applied, but it is";
      return std::nullopt;
    }
    if (changes && got != e.after) return "in-flight operation reported applied, but it is not";
    if (e.inflight_name == "pop") {
      const bool ok = !e.before.empty();
      if (rep.ok != ok || (ok && rep.response != e.before.front().key)) {
        return fmt::format("in-flight pop reported as returning {}, the top was {}",
                           rep.ok ? fmt::format("{:#x}", rep.response) : "nothing",
                           ok ? fmt::format("{:#x}", e.before.front().key) : "nothing");
      }
    }
    return std::nullopt;
  }
  if (rep.seq == e.loaded) {
    if (e.loaded > 0 && rep.status != RecoveredOp::kApplied) {
      return "an acknowledged operation reported not applied";
    }
    if (inflight && changes && got != e.before) {
      return "the in-flight operation took effect but was never announced";
    }
    return std::nullopt;
  }
  return fmt::format("recovery reports operation {}, {} were acknowledged", rep.seq, e.loaded);
}

// Single-threaded: the recovered contents against the model before and after
// the in-flight operation, and a detectable structure's report against them.
template <class DS>
void compare_single(const DS& ds, const Expectation& e, const Items& got, bool torn_ok,
                    PointResult& r) {
  const Verdict v =
      compare(DS::kOpSet, got, e.before, e.after, e.inflight_key, e.inflight_name.c_str(), torn_ok);
  r.lost += v.lost;
  r.half += v.half;
  r.torn_values += v.torn;
  if (!v.message.empty()) set_message(r, v.message);
  if constexpr (Detectable<DS>) {
    if (const auto wrong = detect_single(ds.recovered(0), e, got)) {
      ++r.half;
      set_message(r, *wrong);
    }
  }
}

// Multi-thread, detectable: each thread's report must describe its last
// operation (seq n) or, when that one had not announced itself yet, the one
// before (seq n - 1, which returned): a pending op is then constrained to the
// report (in `h`), a returned one must be reported with the response it gave.
// Worker 0's handle also ran the load, so its operations are numbered after
// the load's.
template <class DS>
void constrain_to_reports(const DS& ds, const CrashWorkload& w, const Expectation& e,
                          std::vector<HistoryOp>& h, PointResult& r) {
  std::vector<std::vector<size_t>> mine(w.thread_ops.size());
  for (size_t i = 0; i < h.size(); ++i) mine[h[i].thread].push_back(i);
  const auto agrees = [](const RecoveredOp& rep, const HistoryOp& op) {
    return rep.status == RecoveredOp::kApplied && rep.ok == op.ok &&
           (op.type != OpType::kPop || !op.ok || rep.response == op.out);
  };
  for (size_t t = 0; t < mine.size(); ++t) {
    if (mine[t].empty()) continue;
    const uint64_t before = t == 0 ? e.loaded : 0;
    const uint64_t n = before + mine[t].size();
    HistoryOp& last = h[mine[t].back()];
    const RecoveredOp rep = ds.recovered(static_cast<int>(t));
    std::string problem;
    if (rep.seq == n && last.pending()) {
      last.must =
          rep.status == RecoveredOp::kApplied ? HistoryOp::kApplied : HistoryOp::kNotApplied;
      last.must_ok = rep.ok;
      last.must_out = rep.response;
    } else if (rep.seq == n) {
      if (!agrees(rep, last)) problem = "reported otherwise than it returned";
    } else if (rep.seq + 1 == n && last.pending()) {
      last.must = HistoryOp::kNotApplied;
      if (mine[t].size() >= 2 && !agrees(rep, h[mine[t][mine[t].size() - 2]])) {
        problem = "(the one before) reported otherwise than it returned";
      }
    } else {
      problem = fmt::format("reported as operation {} of {}", rep.seq, n);
    }
    if (!problem.empty()) {
      ++r.lost;
      set_message(r, fmt::format("thread {}'s last {}: {}", t, op_name(last.type), problem));
    }
  }
}

// Multi-thread: the recovered elements (element checks first: their messages
// are precise), then a durable linearisation of the history `h` from the
// initial contents to them.
template <OpSet S>
void check_history(const std::vector<HistoryOp>& h, const Expectation& e, const Items& got,
                   PointResult& r) {
  std::set<uint64_t> seen;
  for (const Item& i : got) {
    if (!seen.insert(i.key).second) {
      ++r.half;
      set_message(r, fmt::format("element or key {:#x} present twice", i.key));
    }
  }
  std::vector<uint64_t> initial, final;
  for (const Item& i : e.initial) initial.push_back(i.key);
  for (const Item& i : got) final.push_back(i.key);
  LinResult lin;
  if constexpr (S == OpSet::kSet) {
    lin = check_set_history(h, initial, final);
  } else if constexpr (S == OpSet::kQueue || S == OpSet::kStack) {
    if constexpr (S == OpSet::kStack) {
      std::reverse(final.begin(), final.end());  // for_each lists the top first
      std::reverse(initial.begin(), initial.end());
    }
    lin = check_sequence_history(S, h, initial, final, e.capacity);
  } else {
    lin.ok = true;  // kv structures have no multi-thread variant
  }
  if (!lin.ok) {
    ++r.half;
    set_message(r, fmt::format("not durably linearizable: {}", lin.why));
  }
}

// Compares the recovered contents with the expectation. `torn_ok`: the
// structure's overwrites may tear in this mode (kTornValueModes).
template <class DS>
void compare_contents(const DS& ds, const CrashWorkload& w, const Expectation& e, const Items& got,
                      bool torn_ok, PointResult& r) {
  if (!e.multi) {
    compare_single(ds, e, got, torn_ok, r);
    return;
  }
  std::vector<HistoryOp> h = e.history;
  if constexpr (Detectable<DS>) constrain_to_reports(ds, w, e, h, r);
  check_history<DS::kOpSet>(h, e, got, r);
}

// Freed but still linked: every object the recovered structure reaches from
// its root (for_each_object) must be an allocated object of the pool
// (libpmemobj's object list, backend/object_index.h): one that starts where
// the link points and lies inside the pool. Then, when all are, the
// structure's checked links (B::follow) are walked against that list, in a
// child process (a wrong link faults or throws there, not here), which also
// checks each link's type number and size. Returns the violations found
// (the walk's counts as one) and notes the first in `r`.
template <class B, class DS>
uint64_t count_dangling(B& b, const DS& ds, PointResult& r, double timeout_s) {
  const ObjectIndex index(b.pop(), b.pool_bytes());
  const auto* base = reinterpret_cast<const char*>(b.pop());
  uint64_t n = 0;
  std::unordered_set<const void*> seen;
  ds.for_each_object([&](const void* obj) {
    if (!seen.insert(obj).second) return false;
    const auto* p = static_cast<const char*>(obj);
    if (p < base || p >= base + b.pool_bytes()) {
      ++n;
      set_message(r, "dangling: a reachable object lies outside the pool");
      return false;
    }
    const auto off = static_cast<uint64_t>(p - base);
    if (index.find(off) == nullptr) {
      ++n;
      set_message(r, fmt::format("dangling: the reachable object at offset {:#x} is not allocated "
                                 "(freed but still linked)",
                                 off));
    }
    return true;
  });
  if (n != 0) return n;
  const PointResult typed = in_child(
      [&] {
        PointResult c;
        c.recovered = 1;
        try {
          b.index_objects();
          std::unordered_set<const void*> again;
          ds.for_each_object([&](const void* obj) { return again.insert(obj).second; });
        } catch (const std::exception& ex) {
          c.recovered = 0;
          set_message(c, fmt::format("dangling: {}", ex.what()));
        }
        return c;
      },
      timeout_s);
  if (typed.recovered) return 0;
  set_message(r, typed.message[0] != '\0' ? typed.message : "dangling: the checked walk failed");
  return 1;
}

// The post-recovery probe (probe_ops in crash/models.h) on a structure that
// passed the other checks, against the model of its contents `got`: each
// wrong response, and contents that differ from the model afterwards, count
// as lost acknowledged data.
template <class DS>
void probe_recovered(DS& ds, const CrashWorkload& w, const Items& got, PointResult& r) {
  constexpr OpSet S = DS::kOpSet;
  constexpr uint32_t kFresh = 4;
  const uint32_t vsize = w.ds.value_size;
  SeqModel<S> m = SeqModel<S>::from(got, S == OpSet::kQueue ? w.ds.queueslots : 0);
  std::vector<Op> candidates = w.ops;
  for (const auto& ops : w.thread_ops) candidates.insert(candidates.end(), ops.begin(), ops.end());
  std::vector<char> buf(std::max<uint32_t>(vsize, w.ds.slotsize) + 8);
  auto&& t = worker_target(ds, 0);
  const auto wrong = [&](const Op& op, const char* what) {
    ++r.lost;
    set_message(r, fmt::format("{} of {:#x}: {}", op_name(op.type), op.key, what));
  };
  for (const Op& op : probe_ops<S>(got, candidates, kFresh)) {
    const auto want = m.respond(op);
    uint64_t out = 0;
    const bool found = apply_op<S>(t, op, buf.data(), vsize, out);
    if (!want.checked) {
      if (found) m.apply(op);
      continue;
    }
    if (found != want.found) {
      wrong(op, found ? "found, the model has none" : "not found, the model has it");
    } else if (found && op.type == OpType::kPop && out != want.out) {
      wrong(op, "returned another element");
    } else if (found && want.bytes != nullptr && std::memcmp(buf.data(), want.bytes, vsize) != 0) {
      wrong(op, "wrong bytes");
    }
    m.apply(op);
  }
  const uint64_t count = ds.check();
  const Items after = collect<S>(ds, vsize, 4 * (got.size() + kFresh) + 64);
  const Items want = m.items(vsize);
  const Verdict v = compare(S, after, want, want, std::nullopt, "");
  if (count != after.size() || v.lost + v.half != 0) {
    r.lost += std::max<uint64_t>(1, v.lost + v.half);
    set_message(r, fmt::format("the probe's operations left other contents than the model ({})",
                               v.message.empty() ? "check() disagrees with the walk" : v.message));
  }
}

// Opens the image at `spec`, recovers, checks: runs in a worker process. With
// recovery points, recovery runs through the checking backend SB and a second
// image is taken at each of its first `recovery_points` crash points; they are
// checked after this one, each in its own process, against the same
// expectation.
template <template <class> class DS, class P>
PointResult check_image(const CrashOptions& opt, const CrashWorkload& w, const Expectation& e,
                        const CheckRequest& req, const PoolSpec& spec);

// With recovery points: while `b` recovers, a copy of the image at each of its
// first `recovery_points` crash points, listed in `second`.
template <class Opened>
void arm_recovery_images(Opened& b, const CrashOptions& opt, const PoolSpec& spec,
                         std::vector<PoolSpec>& second) {
  b.hook().arm([&b, &opt, &spec, &second](uint64_t k) {
    if (k >= opt.recovery_points) return;
    PoolSpec s2 = spec;
    s2.instance = spec.instance * 1000 + 500 + static_cast<int>(k);
    std::filesystem::copy_file(spec.path(), s2.path(),
                               std::filesystem::copy_options::overwrite_existing);
    const int fd = open(s2.path().c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) throw RuntimeError("crash: cannot open a recovery image");
    b.hook().build_image(fd, b.object_ranges(), 0.0, kCacheLine, 0);
    close(fd);
    second.push_back(s2);
  });
}

// The checks of a recovered structure: leaks, dangling links, invariants,
// contents against the expectation and, when those pass, the probe (in a
// child process: a probe that loops or faults on a reused node is a finding,
// not a lost point).
template <class DS, class B>
void check_recovered(B& b, DS& ds, const CrashOptions& opt, const CrashWorkload& w,
                     const Expectation& e, bool torn_ok, PointResult& r) {
  constexpr OpSet S = DS::kOpSet;
  const uint64_t left = b.unreachable([&](auto&& v) { ds.for_each_object(v); }).size();
  r.leaked = b.repaired_objects() + left;
  r.leaked_after = left;
  if (left != 0) set_message(r, fmt::format("{} unreachable objects after recovery", left));
  r.dangling = count_dangling(b, ds, r, opt.worker_timeout_s);

  bool ok = true;
  uint64_t count = 0;
  try {
    count = ds.check();
  } catch (const std::exception& ex) {
    ok = false;
    set_message(r, fmt::format("invariant: {}", ex.what()));
  }
  // Contents, bounded so that a cyclic structure cannot walk forever.
  uint64_t pushes = 0;
  for (const auto& ops : w.thread_ops) pushes += ops.size();
  const uint64_t bound = 4 * (w.ops.size() + pushes + w.ds.capacity) + 64;
  const Items got = collect<S>(ds, w.ds.value_size, bound);
  if (ok && count != got.size()) {
    ok = false;
    set_message(r, fmt::format("invariant: check() counts {} elements, the walk lists {}", count,
                               got.size()));
  }
  r.invariants_ok = ok ? 1 : 0;
  compare_contents(ds, w, e, got, torn_ok, r);
  if (!ok || r.lost != 0 || r.half != 0) return;
  PointResult p = in_child(
      [&] {
        PointResult c;
        c.recovered = 1;
        try {
          probe_recovered(ds, w, got, c);
        } catch (const std::exception& ex) {
          ++c.lost;
          set_message(c, fmt::format("the probe failed: {}", ex.what()));
        }
        return c;
      },
      opt.worker_timeout_s / 4);
  if (!p.recovered) ++p.lost;  // the child faulted or timed out
  r.lost += p.lost;
  if (p.lost != 0) set_message(r, fmt::format("after recovery: {}", p.message));
}

// Each image taken inside recovery: recovered and checked in its own process,
// its failures added to `r`.
template <template <class> class DS, class P>
void check_recovery_images(const CrashOptions& opt, const CrashWorkload& w, const Expectation& e,
                           const CheckRequest& req, const std::vector<PoolSpec>& second,
                           PointResult& r) {
  for (const PoolSpec& s2 : second) {
    PointResult r2 = in_child(
        [&] {
          CrashOptions o2 = opt;
          o2.recovery_points = 0;
          return check_image<DS, P>(o2, w, e, req, s2);
        },
        opt.worker_timeout_s);
    std::error_code ec;
    std::filesystem::remove(s2.path(), ec);
    ++r.recovery_crashes;
    const bool failed = !r2.recovered || !r2.invariants_ok || r2.lost != 0 || r2.half != 0 ||
                        r2.leaked_after != 0 || r2.dangling != 0;
    if (failed) {
      set_message(r, fmt::format("after a crash inside recovery: {}",
                                 r2.message[0] != '\0' ? r2.message : "failed"));
      r.recovered = r.recovered && r2.recovered;
      r.invariants_ok = r.invariants_ok && r2.invariants_ok;
      r.lost += r2.lost;
      r.half += r2.half;
      r.leaked_after += r2.leaked_after;
      r.dangling += r2.dangling;
    }
  }
}

template <template <class> class DS, class P, class Opened>
PointResult check_opened(const CrashOptions& opt, const CrashWorkload& w, const Expectation& e,
                         const CheckRequest& req, const PoolSpec& spec) {
  using Clock = std::chrono::steady_clock;
  PointResult r;
  r.point = req.point;
  r.op_index = req.op_index;
  std::vector<PoolSpec> second;  // images taken inside recovery
  bool opened = false;
  try {
    const auto t0 = Clock::now();
    Opened b(spec);
    if constexpr (Opened::hook_type::kActive) arm_recovery_images(b, opt, spec, second);
    DS<Opened> ds(b, w.ds);
    if constexpr (Opened::hook_type::kActive) b.hook().disarm();
    r.recovery_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    opened = true;
    r.opened = 1;
    check_recovered(b, ds, opt, w, e, torn_value_modes<DS<Opened>>().has(P::kMode), r);
  } catch (const std::exception& ex) {
    set_message(r, fmt::format("{}: {}", opened ? "check" : "recovery", ex.what()));
    if (!opened) {
      r.recovered = 0;
      return r;
    }
    r.invariants_ok = 0;
  }
  r.pmempool_ok = opt.pmempool_check ? pmempool_consistent(spec.path()) : 1;
  if (!r.pmempool_ok) set_message(r, "pmempool check: pool inconsistent");
  r.recovered = r.pmempool_ok;
  check_recovery_images<DS, P>(opt, w, e, req, second, r);
  return r;
}

template <template <class> class DS, class P>
PointResult check_image(const CrashOptions& opt, const CrashWorkload& w, const Expectation& e,
                        const CheckRequest& req, const PoolSpec& spec) {
  if (opt.recovery_points > 0) {
    return check_opened<DS, P, typename ShadowOf<P>::type>(opt, w, e, req, spec);
  }
  return check_opened<DS, P, P>(opt, w, e, req, spec);
}

// The checker process: forked before the run opens a pool, it keeps the model of
// acknowledged operations and forks one worker per image. Up to `depth` workers
// run at once (images are checked while the run goes on); results come back in
// request order. Protocol: submit() returns the results that became due, and
// finish() the rest; check() is submit + finish for one image. Multi-thread
// requests carry their history (HistoryOps after the request).
//
// SIGINT / SIGTERM (util/stop_signals.h): waiting for a result polls the stop
// flag every kStopPoll; once a stop is requested nothing more is waited for
// (submit and finish return what they have; the caller throws Interrupted
// where it may), and the destructor kills the checker with its workers (they
// form the checker's own process group) instead of waiting for their checks,
// so the run's directory can be removed at once.
template <template <class> class DS, class P>
class Checker {
  static constexpr OpSet S = DS<P>::kOpSet;

 public:
  Checker(const CrashOptions& opt, const CrashWorkload& w, uint32_t depth = 1)
      : depth_(std::max<uint32_t>(1, depth)) {
    int req[2], resp[2];
    if (pipe2(req, O_CLOEXEC) != 0 || pipe2(resp, O_CLOEXEC) != 0) {
      throw RuntimeError("crash: cannot create the checker's pipes");
    }
    pid_ = fork();
    if (pid_ < 0) throw RuntimeError("crash: cannot fork the checker");
    if (pid_ == 0) {
      setpgid(0, 0);  // the checker and its workers: one group, killed together
      close(req[1]);
      close(resp[0]);
      serve(opt, w, depth_, req[0], resp[1]);
      _exit(0);
    }
    setpgid(pid_, pid_);  // also here: the group exists before the destructor may kill it
    close(req[0]);
    close(resp[1]);
    req_ = req[1];
    resp_ = resp[0];
  }
  ~Checker() {
    if (outstanding_ > 0 || stop_requested()) kill(-pid_, SIGKILL);  // abandoned checks
    close(req_);
    close(resp_);
    int status;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  Checker(const Checker&) = delete;
  Checker& operator=(const Checker&) = delete;

  uint32_t depth() const { return depth_; }
  uint64_t outstanding() const { return outstanding_; }

  // Queues a check; returns the result that became due, if any (when `depth`
  // checks are running, the oldest is waited for).
  std::vector<PointResult> submit(const CheckRequest& q, const std::vector<HistoryOp>& h = {}) {
    CheckRequest with = q;
    with.history = static_cast<uint32_t>(h.size());
    if (!write_full(req_, &with, sizeof with) ||
        (!h.empty() && !write_full(req_, h.data(), h.size() * sizeof(HistoryOp)))) {
      throw RuntimeError("crash: the checker process died");
    }
    ++outstanding_;
    std::vector<PointResult> out;
    if (outstanding_ >= depth_) {
      if (auto r = receive()) out.push_back(*r);
    }
    return out;
  }
  // Waits for every queued check.
  std::vector<PointResult> finish() {
    std::vector<PointResult> out;
    if (outstanding_ == 0) return out;
    const CheckRequest flush{0, kFlush, 0};
    if (!write_full(req_, &flush, sizeof flush)) {
      throw RuntimeError("crash: the checker process died");
    }
    while (outstanding_ > 0) {
      auto r = receive();
      if (!r) break;
      out.push_back(*r);
    }
    return out;
  }
  PointResult check(const CheckRequest& q, const std::vector<HistoryOp>& h = {}) {
    auto r = submit(q, h);
    if (r.empty()) r = finish();
    throw_if_stopped();
    return r.front();
  }

 private:
  static constexpr uint64_t kFlush = ~uint64_t{0};
  struct Running {
    pid_t pid;
    int fd;
    CheckRequest q;
  };

  // The oldest result; nullopt when a stop was requested before it came.
  std::optional<PointResult> receive() {
    for (pollfd pfd{resp_, POLLIN, 0};;) {
      if (stop_requested()) return std::nullopt;
      const int ready = poll(&pfd, 1, static_cast<int>(kStopPoll.count()));
      if (ready > 0) break;
      if (ready < 0 && errno != EINTR) throw RuntimeError("crash: cannot wait for the checker");
    }
    PointResult r;
    if (!read_full(resp_, &r, sizeof r)) throw RuntimeError("crash: the checker process died");
    --outstanding_;
    return r;
  }

  static void serve(const CrashOptions& opt, const CrashWorkload& w, uint32_t depth, int in,
                    int out) {
    const uint32_t vsize = w.ds.value_size;
    SeqModel<S> acked;
    if constexpr (S == OpSet::kQueue) acked.set_capacity(w.ds.queueslots);
    uint64_t applied = 0;
    std::deque<Running> running;
    const auto reply_oldest = [&] {
      const PointResult r = wait_worker(opt, running.front());
      std::error_code ec;
      std::filesystem::remove(image_spec(opt, running.front().q.instance).path(), ec);
      running.pop_front();
      return write_full(out, &r, sizeof r);
    };
    CheckRequest q;
    while (read_full(in, &q, sizeof q)) {
      if (q.op_index == kFlush) {
        while (!running.empty()) {
          if (!reply_oldest()) return;
        }
        continue;
      }
      Expectation e;
      e.capacity = S == OpSet::kQueue ? w.ds.queueslots : 0;
      if (!w.thread_ops.empty()) {
        // op_index < ops.size(): the crash hit the load (history: that op).
        const uint64_t upto = std::min<uint64_t>(q.op_index, w.ops.size());
        for (; applied < upto; ++applied) acked.apply(w.ops[applied]);
        e.loaded = upto;
        e.multi = true;
        e.initial = acked.items(vsize);
        e.history.resize(q.history);
        if (q.history > 0 && !read_full(in, e.history.data(), q.history * sizeof(HistoryOp))) {
          return;
        }
      } else {
        for (; applied < q.op_index && applied < w.ops.size(); ++applied) {
          acked.apply(w.ops[applied]);
        }
        e.before = acked.items(vsize);
        e.after = e.before;
        e.loaded = applied;
        if (q.op_index < w.ops.size()) {
          const Op& inflight = w.ops[q.op_index];
          SeqModel<S> after = acked;
          after.apply(inflight);
          e.after = after.items(vsize);
          if (keyed(S)) e.inflight_key = inflight.key;
          e.inflight_name = op_name(inflight.type);
        }
      }
      running.push_back(start_worker(opt, w, std::move(e), q));
      if (running.size() >= depth && !reply_oldest()) return;
    }
    while (!running.empty()) wait_worker(opt, running.front()), running.pop_front();
  }

  static PoolSpec image_spec(const CrashOptions& opt, int instance) {
    return pool_spec(opt, DS<P>::kName, P::kMode, instance, 0, true, true);
  }

  static Running start_worker(const CrashOptions& opt, const CrashWorkload& w, const Expectation& e,
                              const CheckRequest& q) {
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return Running{-1, -1, q};
    const pid_t pid = fork();
    if (pid == 0) {
      close(p[0]);
      const PointResult res = check_image<DS, P>(opt, w, e, q, image_spec(opt, q.instance));
      write_full(p[1], &res, sizeof res);
      _exit(0);
    }
    close(p[1]);
    if (pid < 0) {
      close(p[0]);
      return Running{-1, -1, q};
    }
    return Running{pid, p[0], q};
  }

  static PointResult wait_worker(const CrashOptions& opt, const Running& run) {
    PointResult r;
    r.point = run.q.point;
    r.op_index = run.q.op_index;
    if (run.pid < 0) {
      set_message(r, "checker: cannot start a worker process");
      return r;
    }
    pollfd pfd{run.fd, POLLIN, 0};
    const int ready = poll(&pfd, 1, static_cast<int>(opt.worker_timeout_s * 1000));
    const bool got = ready > 0 && read_full(run.fd, &r, sizeof r);
    close(run.fd);
    if (!got) kill(run.pid, SIGKILL);
    int status = 0;
    waitpid(run.pid, &status, 0);
    if (got) return r;
    r = PointResult{};
    r.point = run.q.point;
    r.op_index = run.q.op_index;
    if (ready == 0) {
      set_message(r, fmt::format("checker worker timed out after {} s (recovery or walk does "
                                 "not end)",
                                 opt.worker_timeout_s));
    } else if (WIFSIGNALED(status)) {
      set_message(r, fmt::format("checker worker killed by signal {} ({}) on the image",
                                 WTERMSIG(status), strsignal(WTERMSIG(status))));
    } else {
      set_message(r, "checker worker exited without a result");
    }
    return r;
  }

  uint32_t depth_;
  uint64_t outstanding_ = 0;
  pid_t pid_ = -1;
  int req_ = -1, resp_ = -1;
};

template <template <class> class DS, class B>
uint64_t pool_bytes_for(const CrashOptions& opt, const CrashWorkload& w) {
  return opt.pool_bytes != 0 ? opt.pool_bytes : DS<B>::pool_bytes(w.ds) * 2 + (8 << 20);
}

// The multi-thread variant's run on an armed instance: the load (thread 0,
// before any switch), then every worker's stream on its own thread, one at a
// time (crash/turns.h), each operation recorded in `history` (invocation and
// response numbered on one clock). A worker's exception ends the run and is
// rethrown.
template <class DS, class B>
void run_workers(B& b, DS& ds, const CrashOptions& opt, const CrashWorkload& w,
                 std::vector<HistoryOp>& history) {
  constexpr OpSet S = DS::kOpSet;
  const auto n = static_cast<int>(w.thread_ops.size());
  Turns turns(n, mix64(opt.seed ^ 0x7475726e73ULL), opt.switch_probability);
  b.hook().on_sync([&] { turns.yield(); });
  uint64_t clock = 0;
  size_t total = 0;
  for (const auto& ops : w.thread_ops) total += ops.size();
  history.reserve(total);
  std::exception_ptr error;
  std::vector<std::thread> threads;
  for (int t = 0; t < n; ++t) {
    threads.emplace_back([&, t] {
      turns.begin(t);
      try {
        std::vector<char> buf(w.ds.value_size + 8);
        auto target = worker_target(ds, t);
        for (const Op& op : w.thread_ops[t]) {
          throw_if_stopped();
          const size_t i = history.size();
          history.push_back(HistoryOp{.thread = static_cast<uint32_t>(t),
                                      .type = op.type,
                                      .arg = op.key,
                                      .invoke = clock++});
          uint64_t out = 0;
          const bool ok = apply_op<S>(target, op, buf.data(), w.ds.value_size, out);
          history[i].ok = ok;
          history[i].out = out;
          history[i].response = clock++;
        }
      } catch (...) {
        if (!error) error = std::current_exception();
      }
      turns.end();
    });
  }
  for (auto& th : threads) th.join();
  b.hook().on_sync(nullptr);
  if (error) std::rethrow_exception(error);
}

// Runs the load and the operations once with counting crash points; returns
// how many.
template <template <class> class DS, class B>
uint64_t count_points(const CrashOptions& opt, const CrashWorkload& w) {
  B b(pool_spec(opt, DS<B>::kName, B::kMode, -1, pool_bytes_for<DS, B>(opt, w), false, false));
  DS<B> ds(b, w.ds);
  b.hook().arm([](uint64_t) {}, opt.fault, opt.fault_nth, opt.store_buffer_loss);
  std::vector<char> buf(w.ds.value_size + 8);
  for (size_t i = 0; i < w.ops.size(); ++i) {
    throw_if_stopped();
    apply_to_ds(ds, w.ops[i], buf.data(), w.ds.value_size);
  }
  if (!w.thread_ops.empty()) {
    if constexpr (DS<B>::kSync == Sync::kInternal) {
      std::vector<HistoryOp> history;
      run_workers(b, ds, opt, w, history);
    }
  }
  return b.hook().points();
}

// The pool files checks read: images (power) and killed pools (process) take
// turns over `depth` slots; a slot is reused only after its check returned.
class Slots {
 public:
  explicit Slots(uint32_t depth) : depth_(depth) {}
  int next() { return static_cast<int>(submitted_++ % depth_); }
  // The last slot taken holds nothing to check: the next point takes it again.
  void give_back() { --submitted_; }

 private:
  uint32_t depth_;
  uint64_t submitted_ = 0;
};

// The power model: one run of the workload on an armed instance; at each
// target point an image of what the domain keeps is built and checked (the
// checks run while the run goes on).
template <template <class> class DS, class B, class Check>
void run_power(const CrashOptions& opt, const CrashWorkload& w,
               const std::vector<uint64_t>& targets, Check& checker, CrashReport& rep) {
  const bool multi = !w.thread_ops.empty();
  const auto add = [&](const std::vector<PointResult>& rs) {
    for (const PointResult& r : rs) rep.add(r);
  };
  std::vector<char> buf(w.ds.value_size + 8);
  Slots slots(checker.depth());
  B b(pool_spec(opt, DS<B>::kName, B::kMode, -1, pool_bytes_for<DS, B>(opt, w), false, false));
  DS<B> ds(b, w.ds);
  const std::string orig = pool_spec(opt, DS<B>::kName, B::kMode, -1, 0, true, true).path();
  size_t next = 0;
  uint64_t cur = 0;
  std::vector<HistoryOp> history;
  b.hook().arm(
      [&](uint64_t pt) {
        // Stopped: no more images (the loop below throws between operations;
        // nothing is thrown from inside a backend call).
        if (next == targets.size() || targets[next] != pt || stop_requested()) return;
        ++next;
        const int s = slots.next();
        const std::string image = pool_spec(opt, DS<B>::kName, B::kMode, s, 0, true, true).path();
        std::filesystem::copy_file(orig, image, std::filesystem::copy_options::overwrite_existing);
        const int fd = open(image.c_str(), O_RDWR | O_CLOEXEC);
        if (fd < 0) throw RuntimeError(fmt::format("crash: cannot open image '{}'", image));
        b.hook().build_image(fd, b.object_ranges(), opt.survive, opt.grain,
                             mix64(opt.seed ^ mix64(pt + 1)));
        close(fd);
        if (multi && cur == w.ops.size()) {
          add(checker.submit(CheckRequest{pt, cur + history.size(), s}, history));
        } else if (multi) {  // inside the load: nothing ran concurrently yet
          add(checker.submit(CheckRequest{pt, cur, s},
                             {HistoryOp{.type = w.ops[cur].type, .arg = w.ops[cur].key}}));
        } else {
          add(checker.submit(CheckRequest{pt, cur, s}));
        }
      },
      opt.fault, opt.fault_nth, opt.store_buffer_loss);
  b.hook().track_line_states(opt.grain == 8 && opt.survive > 0);
  for (cur = 0; cur < w.ops.size(); ++cur) {
    throw_if_stopped();
    apply_to_ds(ds, w.ops[cur], buf.data(), w.ds.value_size);
  }
  if (multi) {
    if constexpr (DS<B>::kSync == Sync::kInternal) run_workers(b, ds, opt, w, history);
  }
  b.hook().disarm();
  add(checker.finish());
  throw_if_stopped();
}

// The process model at point `pt`: a child runs the workload on its own pool
// (slot `s`), acknowledging each operation, and is SIGKILLed at the point.
struct Killed {
  uint64_t acked = 0;   // operations acknowledged before the kill
  bool silent = false;  // no progress for the worker timeout: killed here
  int status = 0;       // the child's wait status
};

template <template <class> class DS, class B>
Killed kill_at(const CrashOptions& opt, const CrashWorkload& w, uint64_t pt, int s,
               std::vector<char>& buf) {
  int ack[2];
  if (pipe2(ack, O_CLOEXEC) != 0) throw RuntimeError("crash: cannot create a pipe");
  const pid_t pid = fork();
  if (pid < 0) throw RuntimeError("crash: cannot fork the workload process");
  if (pid == 0) {
    close(ack[0]);
    try {
      B b(pool_spec(opt, DS<B>::kName, B::kMode, s, pool_bytes_for<DS, B>(opt, w), false, true));
      DS<B> ds(b, w.ds);
      b.hook().arm(
          [&](uint64_t p) {
            if (p == pt) kill(getpid(), SIGKILL);
          },
          opt.fault, opt.fault_nth, opt.store_buffer_loss);
      for (uint64_t i = 0; i < w.ops.size(); ++i) {
        apply_to_ds(ds, w.ops[i], buf.data(), w.ds.value_size);
        write_full(ack[1], &i, sizeof i);  // acknowledged
      }
    } catch (...) {
      _exit(1);
    }
    _exit(0);
  }
  close(ack[1]);
  // Acknowledgements until the kill; a workload process silent for the
  // worker timeout (a loop) is killed, and the point reported. A stop
  // request kills it too, and ends the run.
  Killed k;
  uint64_t i;
  using Clock = std::chrono::steady_clock;
  const auto timeout = std::chrono::duration<double>(opt.worker_timeout_s);
  auto last = Clock::now();
  for (pollfd pfd{ack[0], POLLIN, 0};;) {
    if (stop_requested()) break;
    const int ready = poll(&pfd, 1, static_cast<int>(kStopPoll.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      k.silent = Clock::now() - last > timeout;
      if (k.silent) break;
      continue;
    }
    if (ready < 0 || !read_full(ack[0], &i, sizeof i)) break;
    k.acked = i + 1;
    last = Clock::now();
  }
  close(ack[0]);
  if (k.silent || stop_requested()) kill(pid, SIGKILL);
  while (waitpid(pid, &k.status, 0) < 0 && errno == EINTR) {
  }
  return k;
}

// The process model: a killed process per target point; its pool is checked
// unless the kill went wrong (reported as the point's failure).
template <template <class> class DS, class B, class Check>
void run_process(const CrashOptions& opt, const CrashWorkload& w,
                 const std::vector<uint64_t>& targets, Check& checker, CrashReport& rep) {
  std::vector<char> buf(w.ds.value_size + 8);
  Slots slots(checker.depth());
  for (uint64_t pt : targets) {
    throw_if_stopped();
    const int s = slots.next();
    const Killed k = kill_at<DS, B>(opt, w, pt, s, buf);
    throw_if_stopped();
    std::string failed;
    if (k.silent) {
      failed = fmt::format("workload process made no progress for {} s before point {}",
                           opt.worker_timeout_s, pt);
    } else if (!WIFSIGNALED(k.status) || WTERMSIG(k.status) != SIGKILL) {
      failed =
          fmt::format("workload process was not killed at point {} (exit status {})", pt, k.status);
    }
    if (failed.empty()) {
      for (const PointResult& r : checker.submit(CheckRequest{pt, k.acked, s})) rep.add(r);
      continue;
    }
    PointResult r;
    r.point = pt;
    r.op_index = k.acked;
    set_message(r, failed);
    rep.add(r);
    std::error_code ec;
    std::filesystem::remove(pool_spec(opt, DS<B>::kName, B::kMode, s, 0, true, true).path(), ec);
    slots.give_back();
  }
  for (const PointResult& r : checker.finish()) rep.add(r);
}

}  // namespace crash_detail

template <template <class> class DS, class B>
CrashReport run_crash(const CrashOptions& opt, const CrashWorkload& w) {
  using namespace crash_detail;
  using P = typename PlainOf<B>::type;
  const ScopedPolicy policy(opt.policy);
  const bool multi = !w.thread_ops.empty();
  if (multi && (DS<B>::kSync != Sync::kInternal || opt.model != CrashModel::kPower)) {
    throw UsageError(
        fmt::format("{}: the multi-thread crash variant needs a structure that "
                    "synchronises itself and the power model",
                    DS<B>::kName));
  }
  CrashReport rep;
  rep.points_available = count_points<DS, B>(opt, w);
  const std::vector<uint64_t> targets = pick_points(rep.points_available, opt.points, opt.seed);
  Checker<DS, P> checker(opt, w, opt.jobs);
  if (opt.model == CrashModel::kPower) {
    run_power<DS, B>(opt, w, targets, checker, rep);
  } else {
    run_process<DS, B>(opt, w, targets, checker, rep);
  }
  return rep;
}

}  // namespace pmemids
