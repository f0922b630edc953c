#include "counters/sim.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <valgrind/valgrind.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "errors.h"

namespace pmemids {
namespace {

namespace fs = std::filesystem;

std::atomic<pid_t> g_child{0};

void pass_on(int sig) {
  const pid_t child = g_child.load();
  if (child > 0) kill(child, sig);
}

std::vector<std::string> own_arguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  for (std::string a; std::getline(in, a, '\0');) args.push_back(a);
  if (args.empty()) throw RuntimeError("cannot read this process's arguments (/proc/self/cmdline)");
  return args;
}

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  size_t start = 0;
  for (;;) {
    const size_t colon = dirs.find(':', start);
    const std::string dir = dirs.substr(start, colon - start);
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string::npos) return "";
    start = colon + 1;
  }
}

// Measured on the development machine under a load average of about 27 on 2
// cores (docs/counters.md: btree, pmem-persist, 200k records, 50k reads):
// callgrind's start, an insert of the load with and without simulation, and an
// operation of the timed phase with it. A quiet machine is several times faster.
constexpr double kSimStartSeconds = 5;
constexpr double kSimLoadMicros = 1800;
constexpr double kPlainLoadMicros = 200;
constexpr double kSimOpMicros = 170;

}  // namespace

bool in_sim_child() {
  const char* dir = std::getenv(kSimDirEnv);
  if (dir == nullptr) return false;
  if (RUNNING_ON_VALGRIND == 0) {
    throw UsageError(
        fmt::format("{} is set ({}) but this process is not running under valgrind; "
                    "it is set by 'pmemids run --counters sim' for its callgrind "
                    "child only: unset it",
                    kSimDirEnv, dir));
  }
  return true;
}

SimCaches machine_sim_caches() {
  const std::string dir = "/sys/devices/system/cpu/cpu0/cache";
  auto c = sim_caches(dir);
  if (!c) {
    throw UsageError(
        fmt::format("--counters sim: {} lists no L1 instruction, L1 data and "
                    "unified cache to simulate",
                    dir));
  }
  return *c;
}

std::string require_valgrind() {
  const std::string valgrind = find_on_path("valgrind");
  if (valgrind.empty()) {
    throw UsageError(
        "--counters sim needs valgrind on PATH (Debian package 'valgrind'; scripts/setup.sh "
        "installs it)");
  }
  std::string version = "valgrind (version unknown)";
  if (FILE* p = popen(fmt::format("'{}' --version 2>/dev/null", valgrind).c_str(), "r")) {
    char line[128] = {};
    if (fgets(line, sizeof line, p) != nullptr) {
      version = line;
      while (!version.empty() && (version.back() == '\n' || version.back() == '\r')) {
        version.pop_back();
      }
    }
    pclose(p);
  }
  return version;
}

int run_under_callgrind(const std::string& pool_dir, const SimCaches& caches,
                        const std::string& valgrind_version) {
  std::string dir = pool_dir + "/.pmemids-callgrind-XXXXXX";
  if (mkdtemp(dir.data()) == nullptr) {
    throw UsageError(fmt::format("--counters sim: cannot create a dump directory in '{}': {}",
                                 pool_dir, std::strerror(errno)));
  }
  std::vector<std::string> args = {
      "valgrind", "-q", "--tool=callgrind", "--cache-sim=yes", "--branch-sim=yes",
      "--instr-atstart=no", "--collect-atstart=no", "--fair-sched=try",
      "--I1=" + caches.i1.option(), "--D1=" + caches.d1.option(), "--LL=" + caches.ll.option(),
      "--callgrind-out-file=" + dir + "/callgrind.out",
      // The path, not /proc/self/exe: under valgrind that names valgrind's tool.
      fs::read_symlink("/proc/self/exe").string()};
  const std::vector<std::string> own = own_arguments();
  args.insert(args.end(), own.begin() + 1, own.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string valgrind = find_on_path("valgrind");

  struct sigaction sa {
  }, old_int{}, old_term{};
  sa.sa_handler = pass_on;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  std::fflush(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    fs::remove_all(dir);
    throw RuntimeError(
        fmt::format("--counters sim: cannot start valgrind: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    setenv(kSimDirEnv, dir.c_str(), 1);
    setenv(kSimToolEnv, valgrind_version.c_str(), 1);
    execv(valgrind.c_str(), argv.data());
    const std::string msg =
        fmt::format("pmemids: error: cannot execute {}: {}\n", valgrind, std::strerror(errno));
    (void)!write(STDERR_FILENO, msg.data(), msg.size());
    _exit(127);
  }
  g_child.store(pid);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_child.store(0);
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (WIFSIGNALED(status)) {
    signal(WTERMSIG(status), SIG_DFL);
    raise(WTERMSIG(status));
    return 128 + WTERMSIG(status);
  }
  return WEXITSTATUS(status);
}

nlohmann::json sim_context(const SimCaches& c, SimInstrument instrument, int threads) {
  const char* tool = std::getenv(kSimToolEnv);
  nlohmann::json notes = c.notes;
  return {
      {"tool", fmt::format("callgrind ({})", tool != nullptr ? tool : "valgrind")},
      {"model",
       "a model of a cache, not this machine's: callgrind simulates an L1 instruction cache, "
       "an L1 data cache and a last-level cache (write-allocate, LRU, no L2, no prefetcher, "
       "no other process), and counts the timed phase only"},
      {"I1", c.i1.text()},
      {"D1", c.d1.text()},
      {"LL", c.ll.text()},
      {"machine_caches", c.machine_levels},
      {"adjusted", notes},
      {"instrumentation", instrument == SimInstrument::kLoad
                              ? "from the start of set-up: the load warms the simulated caches"
                              : "timed phase only: the simulated caches start empty"},
      {"threads", threads > 1
                      ? "callgrind runs one thread at a time on one simulated cache hierarchy: the "
                        "workers' accesses are interleaved in one set of caches"
                      : "one worker"},
      {"timing",
       "throughput and latencies of a simulated run are measured under valgrind, many times "
       "slower than native: not this machine's speed"},
  };
}

double sim_seconds_estimate(uint64_t load_ops, uint64_t timed_ops, SimInstrument instrument) {
  const double load_micros = instrument == SimInstrument::kLoad ? kSimLoadMicros : kPlainLoadMicros;
  return kSimStartSeconds + (static_cast<double>(load_ops) * load_micros +
                             static_cast<double>(timed_ops) * kSimOpMicros) *
                                1e-6;
}

namespace sim {

CallgrindTotals collect(const std::string& label) {
  // Instrumentation stays on: once switched off, callgrind (3.19) collects
  // nothing after it is switched on again.
  CALLGRIND_DUMP_STATS_AT(label.c_str());
  const char* dir = std::getenv(kSimDirEnv);
  if (dir == nullptr) throw RuntimeError("--counters sim: not a callgrind child");
  // Dumps are <dir>/callgrind.out.<n>, n counting up from 1: take the newest.
  fs::path newest;
  long newest_n = -1;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    constexpr std::string_view kPrefix = "callgrind.out.";
    if (name.rfind(kPrefix, 0) != 0) continue;
    char* rest = nullptr;
    const long n = std::strtol(name.c_str() + kPrefix.size(), &rest, 10);
    if (rest != nullptr && *rest == '\0' && n > newest_n) {
      newest_n = n;
      newest = it->path();
    }
  }
  if (newest_n < 0) {
    throw RuntimeError(fmt::format("--counters sim: callgrind wrote no dump into '{}'", dir));
  }
  std::ifstream in(newest);
  CallgrindTotals t = parse_callgrind_totals(in, newest.string());
  fs::remove(newest, ec);
  return t;
}

}  // namespace sim
}  // namespace pmemids
