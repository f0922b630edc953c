#include "run/crew.h"

#include <algorithm>

#include "workload/stream.h"

namespace pmemids {
namespace {

std::string duration_text(uint64_t ns) {
  if (ns < 1000) return fmt::format("{} ns", ns);
  if (ns < 1000000) return fmt::format("{:.1f} us", static_cast<double>(ns) / 1e3);
  return fmt::format("{:.2f} ms", static_cast<double>(ns) / 1e6);
}

using Clock = std::chrono::steady_clock;

// Every worker's published progress, summed.
uint64_t progress_of(const std::vector<CrewSlot>& slots) {
  uint64_t ops = 0;
  for (const auto& s : slots) ops += s.progress.load(std::memory_order_relaxed);
  return ops;
}

// Every worker's operations in an interval over its wall time.
double rate(uint64_t ops, uint64_t ops_before, Clock::time_point now, Clock::time_point before) {
  const double secs = std::chrono::duration<double>(now - before).count();
  return secs > 0 ? static_cast<double>(ops - ops_before) / secs : 0.0;
}

// The status lines on stderr, every timing.status_interval from t0.
class StatusLines {
 public:
  StatusLines(const CrewTiming& timing, Clock::time_point t0)
      : timing_(timing),
        t0_(t0),
        last_(t0),
        tick_(std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(timing.status_interval))),
        next_(timing.status_interval > 0 ? t0 + tick_ : Clock::time_point::max()) {}

  Clock::time_point next() const { return next_; }

  // Elapsed time from t0, operations so far, the interval's ops/sec and, with
  // live latencies, its p99 per operation type.
  void print(Clock::time_point now, uint64_t ops) {
    LiveLatency::Snapshot latency_now;
    if (timing_.live != nullptr) latency_now = LiveLatency::Snapshot(*timing_.live);
    const LiveLatency::Snapshot interval = latency_now.since(latency_before_);
    fmt::print(stderr, "{}\n",
               status_line(std::chrono::duration<double>(now - t0_).count(), ops,
                           rate(ops, ops_before_, now, last_),
                           timing_.live != nullptr ? &interval : nullptr));
    std::fflush(stderr);
    ops_before_ = ops;
    last_ = now;
    latency_before_ = std::move(latency_now);
    next_ += tick_;
  }

 private:
  const CrewTiming& timing_;
  Clock::time_point t0_, last_;
  Clock::duration tick_;
  Clock::time_point next_;
  uint64_t ops_before_ = 0;
  LiveLatency::Snapshot latency_before_;
};

// Sleeps until `until`, every worker has finished or one failed (true), or a
// stop is requested. Woken by the workers; every kStopPoll also to notice
// SIGINT / SIGTERM, which a signal handler cannot deliver through the
// condition variable.
bool wait_for_workers(int n, CrewSync& sync, Clock::time_point until) {
  std::unique_lock g(sync.mu);
  const auto ended = [&] { return sync.finished == n || sync.failed.load(); };
  for (;;) {
    const auto slice = std::min(until, Clock::now() + kStopPoll);
    const bool done = sync.wake.wait_until(g, slice, ended);
    if (done || slice >= until || stop_requested()) return done;
  }
}

}  // namespace

void CrewSync::fail(std::exception_ptr e) {
  const std::lock_guard g(mu);
  if (!error) error = e;
  failed.store(true);
  stop.store(true);
  wake.notify_all();
}

void CrewSync::finish() {
  const std::lock_guard g(mu);
  ++finished;
  wake.notify_all();
}

void coordinate(int n, const CrewTiming& timing, const std::vector<CrewSlot>& slots, CrewSync& sync,
                std::vector<double>& timeline) {
  const auto t0 = Clock::now();
  const auto deadline = timing.duration > 0
                            ? t0 + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(timing.duration))
                            : Clock::time_point::max();
  const auto tick = std::chrono::milliseconds(timing.timeline_ms);
  StatusLines status(timing, t0);
  uint64_t before = 0;
  auto last = t0;
  for (auto next = timing.timeline_ms > 0 ? t0 + tick : Clock::time_point::max();;) {
    const auto until = std::min({next, status.next(), deadline});
    const bool done = wait_for_workers(n, sync, until);
    if (stop_requested()) {
      sync.stop.store(true);
      break;
    }
    if (!done && until >= deadline) sync.stop.store(true);
    const bool ending = done || sync.stop.load();
    const auto now = Clock::now();
    if (timing.timeline_ms > 0 && (now >= next || ending)) {
      const uint64_t now_ops = progress_of(slots);
      timeline.push_back(rate(now_ops, before, now, last));
      before = now_ops;
      last = now;
      next += tick;
    }
    if (!ending && now >= status.next()) status.print(now, progress_of(slots));
    if (ending) break;
  }
}

std::string status_line(double elapsed, uint64_t ops, double ops_per_sec,
                        const LiveLatency::Snapshot* interval) {
  std::string line = fmt::format("pmemids: status {:.1f} s: {} operations; {:.1f} current ops/sec",
                                 elapsed, ops, ops_per_sec);
  if (interval == nullptr) return line;
  std::string p99;
  for (int t = 0; t < kOpTypes; ++t) {
    if (interval->count(t) == 0) continue;
    p99 += fmt::format("{}{} {}", p99.empty() ? "; p99 " : ", ", op_name(static_cast<OpType>(t)),
                       duration_text(interval->percentile(t, 99)));
  }
  return line + p99;
}

}  // namespace pmemids
