#include "micro/libpmem_env.h"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string_view>
#include <vector>

#include "errors.h"

extern char** environ;

namespace pmemids::micro {
namespace {

constexpr const char* kGroupVar = "PMEMIDS_MICRO_GROUP";

StartEnv read_env() {
  StartEnv e;
  const char* nf = std::getenv("PMEM_NO_FLUSH");
  e.no_flush = nf != nullptr && std::strcmp(nf, "1") == 0;
  if (const char* t = std::getenv("PMEM_MOVNT_THRESHOLD"); t != nullptr) {
    // libpmem takes atoll() of it and ignores negative values.
    const long long v = std::atoll(t);
    if (v >= 0) e.movnt_threshold = static_cast<uint64_t>(v);
  }
  if (const char* g = std::getenv(kGroupVar); g != nullptr) e.group = g;
  return e;
}

std::vector<std::string> own_arguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  for (size_t start = 0; start < all.size();) {
    const size_t end = all.find('\0', start);
    args.push_back(all.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return args;
}

}  // namespace

const StartEnv& start_env() {
  static const StartEnv e = read_env();
  return e;
}

bool LibpmemNeed::satisfied_by(const StartEnv& e) const {
  return (!no_flush || *no_flush == e.no_flush) &&
         (!movnt_threshold || *movnt_threshold == e.movnt_threshold);
}

std::string LibpmemNeed::key() const {
  std::string k;
  if (no_flush) k += *no_flush ? "PMEM_NO_FLUSH=1" : "PMEM_NO_FLUSH=unset";
  if (movnt_threshold)
    k += fmt::format("{}PMEM_MOVNT_THRESHOLD={}", k.empty() ? "" : " ", *movnt_threshold);
  return k;
}

int run_group_child(const LibpmemNeed& need) {
  std::vector<std::string> args = own_arguments();
  if (args.empty()) throw RuntimeError("cannot read this process' arguments (/proc/self/cmdline)");
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view kv(*e);
    const bool replaced = (need.no_flush && kv.starts_with("PMEM_NO_FLUSH=")) ||
                          (need.movnt_threshold && kv.starts_with("PMEM_MOVNT_THRESHOLD=")) ||
                          kv.starts_with(std::string(kGroupVar) + "=");
    if (!replaced) env.emplace_back(kv);
  }
  if (need.no_flush && *need.no_flush) env.emplace_back("PMEM_NO_FLUSH=1");
  if (need.movnt_threshold) {
    env.push_back(fmt::format("PMEM_MOVNT_THRESHOLD={}", *need.movnt_threshold));
  }
  env.push_back(fmt::format("{}={}", kGroupVar, need.key()));
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) throw RuntimeError(fmt::format("cannot start a child: {}", std::strerror(errno)));
  if (pid == 0) {
    execve("/proc/self/exe", argv.data(), envp.data());
    const char msg[] = "pmemids: error: cannot execute /proc/self/exe\n";
    (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    throw RuntimeError(
        fmt::format("the child run for {} was killed by signal {}", need.key(), WTERMSIG(status)));
  }
  return WEXITSTATUS(status);
}

}  // namespace pmemids::micro
