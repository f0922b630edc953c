#include "backend/pool_check.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <libpmemobj.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "errors.h"
#include "util/stop_signals.h"

namespace pmemids {
namespace {

enum class Verdict : int32_t { kOk, kUsage, kCorrupt };

// What the child sends back: one write, smaller than PIPE_BUF, so it arrives whole.
struct Report {
  Verdict verdict = Verdict::kCorrupt;
  char message[1000] = {};
};

void set_message(Report& r, const std::string& m) {
  std::snprintf(r.message, sizeof r.message, "%s", m.c_str());
}

// The child's side: libpmemobj's check, then the walk, all copy-on-write.
Report check_here(const PoolSpec& spec, const std::function<void()>& walk) {
  Report r;
  int one = 1;
  if (pmemobj_ctl_set(nullptr, "copy_on_write.at_open", &one) != 0) {
    set_message(r, fmt::format("cannot open it copy-on-write: {}", pmemobj_errormsg()));
    return r;
  }
  const std::string path = spec.path();
  const int consistent = pmemobj_check(path.c_str(), nullptr);
  if (consistent != 1) {
    set_message(r, fmt::format("libpmemobj's check: {}",
                               consistent == 0 ? "inconsistent" : pmemobj_errormsg()));
    return r;
  }
  try {
    walk();
    r.verdict = Verdict::kOk;
  } catch (const UsageError& e) {
    r.verdict = Verdict::kUsage;
    set_message(r, e.what());
  } catch (const std::exception& e) {
    set_message(r, e.what());
  }
  return r;
}

bool read_report(int fd, Report& r) {
  auto* p = reinterpret_cast<char*>(&r);
  size_t left = sizeof r;
  while (left > 0) {
    const ssize_t n = read(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    left -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

double default_check_timeout(const PoolSpec& spec) {
  struct stat st {};
  const double bytes = stat(spec.path().c_str(), &st) == 0 ? static_cast<double>(st.st_size) : 0;
  return 60 + bytes / (8 << 20);
}

PoolCheckTime check_pool_in_child(const PoolSpec& spec, double timeout_s,
                                  const std::function<void()>& walk) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string path = spec.path();
  check_pool_file(spec);
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) {
    throw RuntimeError(fmt::format("cannot check pool '{}': pipe: {}", path, std::strerror(errno)));
  }
  std::fflush(nullptr);  // the child must not flush the parent's buffered output again
  const pid_t pid = fork();
  if (pid < 0) {
    close(p[0]);
    close(p[1]);
    throw RuntimeError(fmt::format("cannot check pool '{}': fork: {}", path, std::strerror(errno)));
  }
  if (pid == 0) {
    close(p[0]);
    signal(SIGINT, SIG_IGN);  // a terminal's ^C: the parent decides, and kills this process
    signal(SIGTERM, SIG_DFL);
    // The bound is CPU time: a loop spends it, a check starved by a busy
    // machine does not. No core file of a check that faults.
    const auto cpu = static_cast<rlim_t>(std::ceil(timeout_s));
    const rlimit cpu_limit{cpu, cpu + 1}, no_core{0, 0};
    setrlimit(RLIMIT_CPU, &cpu_limit);
    setrlimit(RLIMIT_CORE, &no_core);
    const Report r = check_here(spec, walk);
    const ssize_t n = write(p[1], &r, sizeof r);
    _exit(n == static_cast<ssize_t>(sizeof r) ? 0 : 1);
  }
  close(p[1]);
  Report r;
  pollfd pfd{p[0], POLLIN, 0};
  // A check that spends no CPU (blocked) still ends: a wall-clock bound well
  // above the CPU bound, for a machine under load.
  const double wall_s = 10 * timeout_s + 10;
  const auto deadline = t0 + std::chrono::duration<double>(wall_s);
  int ready = 0;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    ready = poll(&pfd, 1, static_cast<int>(std::max<int64_t>(0, left.count())));
    if (ready < 0 && errno == EINTR && !stop_requested()) continue;
    break;
  }
  const bool got = ready > 0 && read_report(p[0], r);
  close(p[0]);
  if (!got) kill(pid, SIGKILL);
  int status = 0;
  rusage ru{};
  while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
  }
  throw_if_stopped();
  const auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec * 1e-6; };
  const PoolCheckTime took{
      .wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
      .cpu_s = seconds(ru.ru_utime) + seconds(ru.ru_stime)};
  if (got && r.verdict == Verdict::kOk) return took;
  if (got && r.verdict == Verdict::kUsage) throw UsageError(r.message);
  std::string what;
  if (got) {
    what = r.message;
  } else if (ready == 0) {
    what = fmt::format("checking it did not finish within {} s", wall_s);
  } else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU) {
    what = fmt::format(
        "checking it did not finish within {} s of CPU time (a loop in its heap or structure? a "
        "large pool may need a longer --pool-check-timeout)",
        std::ceil(timeout_s));
  } else if (WIFSIGNALED(status)) {
    what = fmt::format("checking it crashed the checking process ({}, signal {})",
                       strsignal(WTERMSIG(status)), WTERMSIG(status));
  } else {
    what = "the checking process ended without a verdict";
  }
  throw RuntimeError(
      fmt::format("pool '{}' is corrupt: {}; the file was left as it was", path, what));
}

}  // namespace pmemids
