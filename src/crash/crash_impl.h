// The templated crash run behind run_crash() (see crash/crash.h). Included only
// by the crash registry, which instantiates it per (structure, mode).
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

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

#include "backend/shadow.h"
#include "crash/crash.h"
#include "util/stop_signals.h"
#include "workload/generators.h"

namespace pmemids {
namespace crash_detail {

// Key -> value bytes (pointers into the stream's value pool, valid in forked
// processes too) of the acknowledged operations.
using Model = std::map<uint64_t, const char*>;

inline void apply_to_model(Model& m, const Op& op) {
  switch (op.type) {
    case OpType::kInsert:
      m[op.key] = op.value;
      break;
    case OpType::kUpdate:
    case OpType::kReadModifyWrite:
      if (auto it = m.find(op.key); it != m.end()) it->second = op.value;
      break;
    case OpType::kDelete:
      m.erase(op.key);
      break;
    case OpType::kRead:
    case OpType::kScan:
      break;
  }
}

template <class DS>
void apply_to_ds(DS& ds, const Op& op, char* buf) {
  switch (op.type) {
    case OpType::kRead:
      ds.read(op.key, buf);
      break;
    case OpType::kUpdate:
      ds.update(op.key, op.value);
      break;
    case OpType::kInsert:
      ds.insert(op.key, op.value);
      break;
    case OpType::kReadModifyWrite:
      if (ds.read(op.key, buf)) ds.update(op.key, op.value);
      break;
    case OpType::kDelete:
      ds.remove(op.key);
      break;
    case OpType::kScan:
      break;
  }
}

struct CheckRequest {
  uint64_t point;
  uint64_t op_index;  // the op in flight; ops.size() when none was
  int32_t instance;   // which pool file of the work directory to check
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

// Opens the image, recovers, checks: runs in a worker process.
template <template <class> class DS, class P>
PointResult check_image(const CrashOptions& opt, const CrashWorkload& w, const Model& acked,
                        const CheckRequest& req) {
  using Clock = std::chrono::steady_clock;
  PointResult r;
  r.point = req.point;
  r.op_index = req.op_index;
  const PoolSpec spec = pool_spec(opt, DS<P>::kName, P::kMode, req.instance, 0, true, true);
  const uint32_t vsize = w.ds.value_size;
  const Op* inflight = req.op_index < w.ops.size() ? &w.ops[req.op_index] : nullptr;
  bool opened = false;
  try {
    const auto t0 = Clock::now();
    P b(spec);
    DS<P> ds(b, w.ds);
    r.recovery_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    opened = true;
    r.opened = 1;

    const uint64_t left = b.unreachable([&](auto&& v) { ds.for_each_object(v); }).size();
    r.leaked = b.repaired_objects() + left;
    r.leaked_after = left;
    if (left != 0) {
      set_message(r, fmt::format("{} unreachable objects after recovery", left));
    }

    bool ok = true;
    uint64_t count = 0;
    try {
      count = ds.check();
    } catch (const std::exception& e) {
      ok = false;
      set_message(r, fmt::format("invariant: {}", e.what()));
    }

    // Contents, bounded so that a cyclic structure cannot walk forever.
    std::map<uint64_t, std::string> got;
    uint64_t dups = 0;
    const uint64_t bound = 4 * (w.ops.size() + w.ds.capacity) + 64;
    uint64_t listed = 0;
    ds.for_each([&](uint64_t k, const char* v) {
      if (++listed > bound) throw InvariantViolation("the contents walk does not end (cycle?)");
      if (!got.emplace(k, std::string(v, vsize)).second) ++dups;
    });
    if (ok && count != listed) {
      ok = false;
      set_message(r, fmt::format("invariant: check() counts {} elements, the walk lists {}", count,
                                 listed));
    }
    r.invariants_ok = ok ? 1 : 0;
    r.half += dups;
    if (dups != 0) set_message(r, fmt::format("{} keys listed twice", dups));

    Model after = acked;
    if (inflight != nullptr) apply_to_model(after, *inflight);
    const auto state = [&](const Model& m, uint64_t k) -> std::optional<std::string> {
      auto it = m.find(k);
      if (it == m.end()) return std::nullopt;
      return std::string(it->second, vsize);
    };
    std::set<uint64_t> keys;
    for (const auto& kv : acked) keys.insert(kv.first);
    for (const auto& kv : got) keys.insert(kv.first);
    if (inflight != nullptr) keys.insert(inflight->key);
    for (uint64_t k : keys) {
      std::optional<std::string> have;
      if (auto it = got.find(k); it != got.end()) have = it->second;
      const auto want = state(acked, k);
      if (have == want) continue;
      if (inflight != nullptr && inflight->key == k) {
        if (have == state(after, k)) continue;
        ++r.half;
        set_message(
            r, fmt::format("in-flight {} of key {:#x} half-applied ({})", op_name(inflight->type),
                           k, have ? "value torn" : "key missing"));
        continue;
      }
      ++r.lost;
      set_message(r, fmt::format("key {:#x}: {}", k,
                                 !have   ? "acknowledged key missing"
                                 : !want ? "deleted key present"
                                         : "acknowledged value wrong"));
    }
  } catch (const std::exception& e) {
    set_message(r, fmt::format("{}: {}", opened ? "check" : "recovery", e.what()));
    if (!opened) {
      r.recovered = 0;
      return r;
    }
    r.invariants_ok = 0;
  }
  r.pmempool_ok = opt.pmempool_check ? pmempool_consistent(spec.path()) : 1;
  if (!r.pmempool_ok) set_message(r, "pmempool check: pool inconsistent");
  r.recovered = r.pmempool_ok;
  return r;
}

// The checker process: forked before the run opens a pool, it keeps the model of
// acknowledged operations and forks one worker per image. Up to `depth` workers
// run at once (images are checked while the run goes on); results come back in
// request order. Protocol: submit() returns the results that became due, and
// finish() the rest; check() is submit + finish for one image.
template <template <class> class DS, class P>
class Checker {
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
      close(req[1]);
      close(resp[0]);
      serve(opt, w, depth_, req[0], resp[1]);
      _exit(0);
    }
    close(req[0]);
    close(resp[1]);
    req_ = req[1];
    resp_ = resp[0];
  }
  ~Checker() {
    close(req_);
    close(resp_);
    int status;
    waitpid(pid_, &status, 0);
  }
  Checker(const Checker&) = delete;
  Checker& operator=(const Checker&) = delete;

  uint32_t depth() const { return depth_; }
  uint64_t outstanding() const { return outstanding_; }

  // Queues a check; returns the result that became due, if any (when `depth`
  // checks are running, the oldest is waited for).
  std::vector<PointResult> submit(const CheckRequest& q) {
    if (!write_full(req_, &q, sizeof q)) throw RuntimeError("crash: the checker process died");
    ++outstanding_;
    std::vector<PointResult> out;
    if (outstanding_ >= depth_) out.push_back(receive());
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
    while (outstanding_ > 0) out.push_back(receive());
    return out;
  }
  PointResult check(const CheckRequest& q) {
    auto r = submit(q);
    if (r.empty()) r = finish();
    return r.front();
  }

 private:
  static constexpr uint64_t kFlush = ~uint64_t{0};
  struct Running {
    pid_t pid;
    int fd;
    CheckRequest q;
  };

  PointResult receive() {
    PointResult r;
    if (!read_full(resp_, &r, sizeof r)) throw RuntimeError("crash: the checker process died");
    --outstanding_;
    return r;
  }

  static void serve(const CrashOptions& opt, const CrashWorkload& w, uint32_t depth, int in,
                    int out) {
    Model acked;
    uint64_t applied = 0;
    std::deque<Running> running;
    const auto reply_oldest = [&] {
      const PointResult r = wait_worker(opt, running.front());
      std::error_code ec;
      std::filesystem::remove(
          pool_spec(opt, DS<P>::kName, P::kMode, running.front().q.instance, 0, true, true).path(),
          ec);
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
      for (; applied < q.op_index && applied < w.ops.size(); ++applied) {
        apply_to_model(acked, w.ops[applied]);
      }
      running.push_back(start_worker(opt, w, acked, q));
      if (running.size() >= depth && !reply_oldest()) return;
    }
    while (!running.empty()) wait_worker(opt, running.front()), running.pop_front();
  }

  static Running start_worker(const CrashOptions& opt, const CrashWorkload& w, const Model& acked,
                              const CheckRequest& q) {
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return Running{-1, -1, q};
    const pid_t pid = fork();
    if (pid == 0) {
      close(p[0]);
      const PointResult res = check_image<DS, P>(opt, w, acked, q);
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

// Runs the whole stream once with counting crash points; returns how many.
template <template <class> class DS, class B>
uint64_t count_points(const CrashOptions& opt, const CrashWorkload& w) {
  B b(pool_spec(opt, DS<B>::kName, B::kMode, -1, pool_bytes_for<DS, B>(opt, w), false, false));
  DS<B> ds(b, w.ds);
  b.hook().arm([](uint64_t) {}, opt.fault, opt.fault_nth);
  std::vector<char> buf(w.ds.value_size);
  for (size_t i = 0; i < w.ops.size(); ++i) {
    if (i % 256 == 0) throw_if_stopped();
    apply_to_ds(ds, w.ops[i], buf.data());
  }
  return b.hook().points();
}

}  // namespace crash_detail

template <template <class> class DS, class B>
CrashReport run_crash(const CrashOptions& opt, const CrashWorkload& w) {
  using namespace crash_detail;
  using P = typename PlainOf<B>::type;
  CrashReport rep;
  const uint64_t bytes = pool_bytes_for<DS, B>(opt, w);
  rep.points_available = count_points<DS, B>(opt, w);
  const std::vector<uint64_t> targets = pick_points(rep.points_available, opt.points, opt.seed);
  Checker<DS, P> checker(opt, w, opt.jobs);
  const auto add = [&](const std::vector<PointResult>& rs) {
    for (const PointResult& r : rs) rep.add(r);
  };
  std::vector<char> buf(w.ds.value_size);
  uint64_t submitted = 0;
  // The pool file a check reads: images (power) and killed pools (process) take
  // turns over `jobs` slots; a slot is reused only after its check returned.
  const auto slot = [&] { return static_cast<int>(submitted++ % checker.depth()); };

  if (opt.model == CrashModel::kPower) {
    B b(pool_spec(opt, DS<B>::kName, B::kMode, -1, bytes, false, false));
    DS<B> ds(b, w.ds);
    const std::string orig = pool_spec(opt, DS<B>::kName, B::kMode, -1, 0, true, true).path();
    size_t next = 0;
    uint64_t cur = 0;
    b.hook().arm(
        [&](uint64_t pt) {
          if (next == targets.size() || targets[next] != pt) return;
          ++next;
          const int s = slot();
          const std::string image = pool_spec(opt, DS<B>::kName, B::kMode, s, 0, true, true).path();
          std::filesystem::copy_file(orig, image,
                                     std::filesystem::copy_options::overwrite_existing);
          const int fd = open(image.c_str(), O_RDWR | O_CLOEXEC);
          if (fd < 0) throw RuntimeError(fmt::format("crash: cannot open image '{}'", image));
          b.hook().build_image(fd, b.pop(), b.pool_bytes(), opt.survive,
                               mix64(opt.seed ^ mix64(pt + 1)));
          close(fd);
          add(checker.submit(CheckRequest{pt, cur, s}));
        },
        opt.fault, opt.fault_nth);
    for (cur = 0; cur < w.ops.size(); ++cur) {
      if (cur % 256 == 0) throw_if_stopped();
      apply_to_ds(ds, w.ops[cur], buf.data());
    }
    b.hook().disarm();
    add(checker.finish());
    return rep;
  }

  for (uint64_t pt : targets) {
    throw_if_stopped();
    const int s = slot();
    int ack[2];
    if (pipe2(ack, O_CLOEXEC) != 0) throw RuntimeError("crash: cannot create a pipe");
    const pid_t pid = fork();
    if (pid < 0) throw RuntimeError("crash: cannot fork the workload process");
    if (pid == 0) {
      close(ack[0]);
      try {
        B b(pool_spec(opt, DS<B>::kName, B::kMode, s, bytes, false, true));
        DS<B> ds(b, w.ds);
        b.hook().arm(
            [&](uint64_t p) {
              if (p == pt) kill(getpid(), SIGKILL);
            },
            opt.fault, opt.fault_nth);
        for (uint64_t i = 0; i < w.ops.size(); ++i) {
          apply_to_ds(ds, w.ops[i], buf.data());
          write_full(ack[1], &i, sizeof i);  // acknowledged
        }
      } catch (...) {
        _exit(1);
      }
      _exit(0);
    }
    close(ack[1]);
    // Acknowledgements until the kill; a workload process silent for the
    // worker timeout (a loop) is killed, and the point reported.
    uint64_t acked = 0, i;
    bool silent = false;
    for (pollfd pfd{ack[0], POLLIN, 0};;) {
      const int ready = poll(&pfd, 1, static_cast<int>(opt.worker_timeout_s * 1000));
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0) silent = true;
      if (ready <= 0 || !read_full(ack[0], &i, sizeof i)) break;
      acked = i + 1;
    }
    close(ack[0]);
    if (silent) kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (silent) {
      PointResult r;
      r.point = pt;
      r.op_index = acked;
      set_message(r, fmt::format("workload process made no progress for {} s before point {}",
                                 opt.worker_timeout_s, pt));
      rep.add(r);
      std::error_code ec;
      std::filesystem::remove(pool_spec(opt, DS<B>::kName, B::kMode, s, 0, true, true).path(), ec);
      --submitted;
      continue;
    }
    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
      PointResult r;
      r.point = pt;
      r.op_index = acked;
      set_message(r, fmt::format("workload process was not killed at point {} (exit status {})", pt,
                                 status));
      rep.add(r);
      std::error_code ec;
      std::filesystem::remove(pool_spec(opt, DS<B>::kName, B::kMode, s, 0, true, true).path(), ec);
      --submitted;
      continue;
    }
    add(checker.submit(CheckRequest{pt, acked, s}));
  }
  add(checker.finish());
  return rep;
}

}  // namespace pmemids
