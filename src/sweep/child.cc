#include "sweep/child.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <sstream>

#include "errors.h"

namespace pmemids::sweep {
namespace {

std::atomic<pid_t> g_child{0};
std::atomic<int> g_signal{0};

void on_signal(int sig) {
  g_signal.store(sig);
  const pid_t child = g_child.load();
  if (child > 0) kill(child, sig);
}

constexpr size_t kMaxLog = 1 << 20;  // keep at most the last 1 MiB of a run's stderr

}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool interrupt_requested() { return g_signal.load() != 0; }
int interrupt_signal() { return g_signal.load(); }

std::string reason_from_log(const std::string& log) {
  constexpr std::string_view kError = "pmemids: error: ";
  std::string last_error, last_line;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    last_line = line;
    if (line.starts_with(kError)) last_error = line.substr(kError.size());
  }
  return !last_error.empty() ? last_error : last_line;
}

Outcome run_child(const std::vector<std::string>& command, const std::vector<std::string>& args,
                  const std::string& temp) {
  // The run appends: start from an empty file.
  const int tfd = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (tfd < 0) {
    throw RuntimeError(fmt::format("cannot create '{}': {}", temp, std::strerror(errno)));
  }
  close(tfd);

  std::vector<std::string> full = {"pmemids"};
  full.insert(full.end(), command.begin(), command.end());
  full.insert(full.end(), args.begin(), args.end());
  full.push_back("--out");
  full.push_back(temp);
  std::vector<char*> argv;
  for (auto& a : full) argv.push_back(a.data());
  argv.push_back(nullptr);

  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) {
    throw RuntimeError(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    throw RuntimeError(fmt::format("cannot start a run: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the sweep died before prctl
    const int devnull = open("/dev/null", O_WRONLY);
    if (devnull < 0 || dup2(devnull, STDOUT_FILENO) < 0 || dup2(pipefd[1], STDERR_FILENO) < 0) {
      _exit(127);
    }
    execv("/proc/self/exe", argv.data());
    const char msg[] = "pmemids: error: cannot execute /proc/self/exe\n";
    (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
    _exit(127);
  }
  g_child.store(pid);
  if (g_signal.load() != 0) kill(pid, g_signal.load());  // arrived before g_child was set
  close(pipefd[1]);
  Outcome o;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(pipefd[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    o.log.append(buf, static_cast<size_t>(n));
    if (o.log.size() > 2 * kMaxLog) o.log.erase(0, o.log.size() - kMaxLog);
  }
  close(pipefd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_child.store(0);

  if (g_signal.load() != 0) {
    o.status = Status::kInterrupted;
    return o;
  }
  if (WIFSIGNALED(status)) {
    o.status = Status::kFailed;
    o.signal = WTERMSIG(status);
    o.reason = fmt::format("killed by signal {} ({})", o.signal, strsignal(o.signal));
    return o;
  }
  o.exit_code = WEXITSTATUS(status);
  o.status = o.exit_code == 0 ? Status::kOk : o.exit_code == 2 ? Status::kSkipped : Status::kFailed;
  if (o.status != Status::kOk) {
    o.reason = reason_from_log(o.log);
    if (o.reason.empty()) o.reason = fmt::format("exit {} without a message", o.exit_code);
  }
  return o;
}

int run_hook(const std::string& command, const std::vector<std::string>& env) {
  std::vector<std::string> words = {"sh", "-c", command};
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0)
    throw RuntimeError(fmt::format("cannot start '{}': {}", command, std::strerror(errno)));
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    for (const auto& e : env) putenv(const_cast<char*>(e.c_str()));
    execv("/bin/sh", argv.data());
    _exit(127);
  }
  g_child.store(pid);
  if (g_signal.load() != 0) kill(pid, g_signal.load());
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_child.store(0);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

}  // namespace pmemids::sweep
