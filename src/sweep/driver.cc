#include "sweep/driver.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "backend/pool.h"
#include "errors.h"
#include "sweep/records.h"
#include "sweep/resume.h"
#include "util/file_checks.h"

namespace pmemids::sweep {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Holds the output open and locked for the sweep's lifetime.
class OutputFile {
 public:
  explicit OutputFile(const std::string& path) : path_(path) {
    check_output_path(path, "--out");
    create_parent_dirs(path, "--out");
    fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      throw UsageError(fmt::format("--out '{}': cannot open: {}", path, std::strerror(errno)));
    }
    struct stat st {};
    if (fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {  // replaced since it was checked
      close(fd_);
      throw UsageError(fmt::format("--out '{}' is not a regular file", path));
    }
    if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      close(fd_);
      throw UsageError(
          fmt::format("--out '{}': {}", path,
                      err == EWOULDBLOCK ? "another sweep is writing to it" : std::strerror(err)));
    }
  }
  ~OutputFile() { close(fd_); }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::string read_all() const {
    std::string data;
    char buf[1 << 16];
    for (off_t off = 0;;) {
      const ssize_t n = pread(fd_, buf, sizeof buf, off);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        throw RuntimeError(fmt::format("cannot read '{}': {}", path_, std::strerror(errno)));
      }
      if (n == 0) return data;
      data.append(buf, static_cast<size_t>(n));
      off += n;
    }
  }
  void truncate(uint64_t size) const {
    if (ftruncate(fd_, static_cast<off_t>(size)) != 0) {
      throw RuntimeError(
          fmt::format("cannot cut the torn end off '{}': {}", path_, std::strerror(errno)));
    }
  }
  void append(const std::string& data) const { append_whole(fd_, data, path_); }

 private:
  std::string path_;
  int fd_ = -1;
};

void remove_stale_temps(const std::string& out) {
  const fs::path p = fs::absolute(out);
  const std::string prefix = fmt::format(".{}.", p.filename().string());
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(p.parent_path(), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > prefix.size() + 4 && name.starts_with(prefix) && name.ends_with(".tmp")) {
      fs::remove(entry.path(), ec);
    }
  }
}

std::string base_pool_dir(const Configuration& c, const std::string& sweep_pool_dir) {
  if (const Value* v = c.option("pool-dir")) return value_text(*v);
  return resolve_pool_dir(sweep_pool_dir);
}

}  // namespace

void check_pool_dirs(const SweepSpec& spec, const std::vector<Configuration>& configs,
                     const std::string& sweep_pool_dir) {
  std::set<std::string> bases;
  for (const auto& c : configs) bases.insert(base_pool_dir(c, sweep_pool_dir));
  for (const auto& b : bases) {
    std::error_code ec;
    if (!fs::is_directory(b, ec)) {
      throw UsageError(
          fmt::format("{}: pool-dir: '{}' is not an existing directory; accepted: a directory "
                      "for the pools (a DAX mount for real PMEM, a tmpfs for emulated)",
                      spec.file, b));
    }
  }
}

namespace {

bool keeps_pool(const Configuration& c) {
  const Value* v = c.option("keep-pool");
  return v != nullptr && value_text(*v) == "true";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::string private_pool_dir(const Configuration& c, const std::string& sweep_pool_dir) {
  return (fs::path(base_pool_dir(c, sweep_pool_dir)) / fmt::format("sweep-{}", c.id)).string();
}

std::string temp_path(const std::string& out, const std::string& id) {
  const fs::path p(out);
  return (p.parent_path() / fmt::format(".{}.{}.tmp", p.filename().string(), id)).string();
}

std::string format_duration(double seconds) {
  if (seconds < 10) return fmt::format("{:.1f}s", seconds);
  const auto s = static_cast<int64_t>(std::lround(seconds));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m{:02}s", s / 3600, s / 60 % 60, s % 60);
}

int run_sweep(const SweepSpec& spec, const std::vector<Configuration>& configs,
              const Runner& runner, const DriverOptions& options) {
  std::FILE* log = options.progress;
  check_pool_dirs(spec, configs, options.pool_dir);
  const OutputFile out(options.out);
  remove_stale_temps(options.out);
  const OutputScan scan = scan_output(out.read_all());
  if (scan.keep_bytes < scan.size) {
    out.truncate(scan.keep_bytes);
    fmt::print(log,
               "pmemids: sweep: cut {} bytes off the end of {}: the incomplete record of an "
               "interrupted sweep\n",
               scan.size - scan.keep_bytes, options.out);
  }
  if (scan.ignored > 0) {
    fmt::print(log, "pmemids: warning: {} line(s) of {} are not whole sweep records; ignored\n",
               scan.ignored, options.out);
  }
  std::vector<const Configuration*> todo;
  for (const auto& c : configs) {
    if (!already_recorded(scan, c.id, options.retry_skipped)) todo.push_back(&c);
  }
  const size_t total = configs.size();
  size_t done = total - todo.size();
  fmt::print(log, "pmemids: sweep {} (scale {}): {} configurations, {} already in {}, {} to run\n",
             spec.file, spec.scale, total, done, options.out, todo.size());
  std::fflush(log);

  const auto t_start = Clock::now();
  double run_seconds = 0;
  size_t ran = 0, ok = 0, skipped = 0, failed = 0;
  std::set<std::string> warned;
  for (const Configuration* c : todo) {
    if (options.interrupted()) break;
    const std::string temp = temp_path(options.out, c->id);
    const std::string pools = private_pool_dir(*c, options.pool_dir);
    std::error_code ec;
    fs::remove_all(pools, ec);  // pools of a killed earlier attempt
    if (!fs::create_directory(pools, ec)) {
      throw RuntimeError(fmt::format("cannot create pool directory '{}': {}", pools,
                                     ec ? ec.message() : "it exists"));
    }
    const auto t0 = Clock::now();
    Outcome o = runner(*c, run_args(*c, spec, pools), temp);
    const double secs = since(t0);
    if (!keeps_pool(*c) || o.status != Status::kOk) fs::remove_all(pools, ec);
    if (o.status == Status::kInterrupted) {
      fs::remove(temp, ec);
      break;
    }
    // Warnings once per sweep, naming the base pool directory rather than each private one.
    const std::string base = fs::path(pools).parent_path().string();
    std::istringstream log_lines(o.log);
    for (std::string line; std::getline(log_lines, line);) {
      if (!line.starts_with("pmemids: warning:")) continue;
      for (size_t at; (at = line.find(pools)) != std::string::npos;)
        line.replace(at, pools.size(), base);
      if (warned.insert(line).second) fmt::print(log, "{}\n", line);
    }
    const SweepInfo info{spec.file, spec.scale, c->id, c->index, total};
    std::string data;
    if (o.status == Status::kOk) {
      try {
        data = stamp_run_output(read_file(temp), info);
      } catch (const std::exception& e) {
        o.status = Status::kFailed;
        o.reason = e.what();
      }
    }
    fs::remove(temp, ec);
    std::string status = "ok";
    if (o.status == Status::kSkipped) {
      data = outcome_record("skipped", o.reason, config_json(*c, spec), info);
      status = fmt::format("skipped ({})", o.reason);
      ++skipped;
    } else if (o.status == Status::kFailed) {
      nlohmann::json extra = nlohmann::json::object();
      if (o.signal != 0) {
        extra["signal"] = o.signal;
      } else {
        extra["exit_code"] = o.exit_code;
      }
      data = outcome_record("failed", o.reason, config_json(*c, spec), info, extra);
      status = fmt::format("FAILED ({})", o.reason);
      ++failed;
    } else {
      ++ok;
    }
    out.append(data);
    ++done;
    ++ran;
    run_seconds += secs;
    const size_t left = todo.size() - ran;
    const std::string eta =
        format_duration(run_seconds / static_cast<double>(ran) * static_cast<double>(left));
    fmt::print(log, "[{}/{}] {} {} {} elapsed {} ETA {}\n", done, total, short_text(*c), status,
               format_duration(secs), format_duration(since(t_start)), eta);
    std::fflush(log);
  }
  if (done < total) {
    fmt::print(log, "pmemids: sweep stopped with {} of {} configurations recorded\n", done, total);
    return 130;
  }
  fmt::print(log,
             "pmemids: sweep done in {}: {} ok, {} skipped, {} failed in this run; records in {}\n",
             format_duration(since(t_start)), ok, skipped, failed, options.out);
  return failed > 0 ? 1 : 0;
}

}  // namespace pmemids::sweep
