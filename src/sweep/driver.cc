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
#include "run/context.h"
#include "sweep/records.h"
#include "sweep/resume.h"
#include "util/file_checks.h"

namespace pmemids::sweep {
namespace {

namespace fs = std::filesystem;

// The thread count a configuration runs with, as the ETA groups durations.
std::string threads_of(const Configuration& c) {
  const Value* v = c.option("threads");
  return v != nullptr ? value_text(*v) : "1";
}

// Holds the output open and locked for the sweep's lifetime.
class OutputFile {
 public:
  explicit OutputFile(const std::string& path) : path_(path) {
    check_results_output(path, "--out");
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

// `args` with --repeat's value replaced by 1 (added when absent).
std::vector<std::string> one_repetition(std::vector<std::string> args) {
  const auto at = std::find(args.begin(), args.end(), "--repeat");
  if (at == args.end() || at + 1 == args.end()) {
    args.insert(args.end(), {"--repeat", "1"});
  } else {
    *(at + 1) = "1";
  }
  return args;
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

double DriverOptions::steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string format_rate(double ops_per_sec) {
  if (ops_per_sec >= 1e6) return fmt::format("{:.2f} Mops/s", ops_per_sec / 1e6);
  if (ops_per_sec >= 1e3) return fmt::format("{:.1f} Kops/s", ops_per_sec / 1e3);
  return fmt::format("{:.0f} ops/s", ops_per_sec);
}

void Eta::add(const std::string& threads, double seconds) {
  auto& [sum, n] = by_threads_[threads];
  sum += seconds;
  ++n;
  sum_ += seconds;
  ++count_;
}

double Eta::left(const std::vector<std::string>& threads) const {
  if (count_ == 0) return 0;
  double total = 0;
  for (const auto& t : threads) {
    const auto it = by_threads_.find(t);
    total += it != by_threads_.end() ? it->second.first / static_cast<double>(it->second.second)
                                     : sum_ / static_cast<double>(count_);
  }
  return total;
}

std::string format_duration(double seconds) {
  if (seconds < 10) return fmt::format("{:.1f}s", seconds);
  const auto s = static_cast<int64_t>(std::lround(seconds));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m{:02}s", s / 3600, s / 60 % 60, s % 60);
}

namespace {

// The output, opened: stale temporary files removed, the torn end of an
// interrupted sweep cut off, its records scanned.
OutputScan resume_output(const OutputFile& out, const DriverOptions& options) {
  std::FILE* log = options.progress;
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
  return scan;
}

// `pools` emptied of the pools of a killed earlier attempt, and created.
void fresh_pool_dir(const std::string& pools) {
  std::error_code ec;
  fs::remove_all(pools, ec);
  if (!fs::create_directory(pools, ec)) {
    throw RuntimeError(fmt::format("cannot create pool directory '{}': {}", pools,
                                   ec ? ec.message() : "it exists"));
  }
}

// One invocation of a sweep: the units it runs, what the output records
// (updated as it records), and the progress it reports.
class SweepRun {
 public:
  SweepRun(const SweepSpec& spec, const std::vector<Configuration>& configs, const Runner& runner,
           const DriverOptions& options, const OutputFile& out, const OutputScan& scan)
      : spec_(spec),
        configs_(configs),
        runner_(runner),
        options_(options),
        out_(out),
        log_(options.progress),
        recorded_(scan),
        seed_(resolve_order_seed(options.rounds, scan, options.out)),
        units_(plan_units(configs, options.interleave, options.rounds, seed_)),
        round_log_(options.rounds, seed_, scan.best_calibration_s, log_),
        ran_unit_(units_.size(), false) {}

  // What run_sweep returns.
  int run() {
    announce();
    t_start_ = options_.now();
    bool stopped = false;
    for (size_t i = 0; i < units_.size() && !stopped; ++i) {
      if (!unit_recorded(units_[i])) stopped = !run_unit(i);
    }
    return finish(stopped);
  }

 private:
  bool unit_recorded(const Unit& u) const {
    if (skipped_now_.count(u.c->id) != 0) return true;
    return u.repetition < 0
               ? already_recorded(recorded_, u.c->id, options_.retry_skipped, u.repetitions)
               : repetition_recorded(recorded_, u.c->id, u.repetition, options_.retry_skipped);
  }
  size_t count_done() const {
    size_t n = 0;
    for (size_t i = 0; i < units_.size(); ++i)
      n += ran_unit_[i] || unit_recorded(units_[i]) ? 1 : 0;
    return n;
  }
  size_t configs_recorded() const {
    size_t n = 0;
    for (const auto& c : configs_) {
      n +=
          skipped_now_.count(c.id) != 0 || already_recorded(recorded_, c.id, options_.retry_skipped,
                                                            repetitions_of(c, options_.rounds))
              ? 1
              : 0;
    }
    return n;
  }

  void announce() const {
    const size_t already = configs_recorded();
    const size_t total = units_.size();
    const size_t todo = total - count_done();
    fmt::print(log_, "pmemids: sweep {} (scale {}): {} configurations, {} already in {}, {} to run",
               spec_.file, spec_.scale, configs_.size(), already, options_.out,
               configs_.size() - already);
    fmt::print(log_, "{}\n", total == configs_.size() ? "" : fmt::format(" ({} runs)", todo));
    std::fflush(log_);
  }

  // Runs units_[i] and records its outcome; false when the sweep is interrupted.
  bool run_unit(size_t i) {
    const Unit& u = units_[i];
    const Configuration& c = *u.c;
    if (!options_.interrupted()) round_log_.enter(u, options_.interrupted);
    if (options_.interrupted()) return false;
    const std::string temp = temp_path(options_.out, c.id);
    const std::string pools = private_pool_dir(c, options_.pool_dir);
    fresh_pool_dir(pools);
    const double t0 = options_.now();
    std::vector<std::string> args = run_args(c, spec_, pools);
    if (u.repetition >= 0) args = one_repetition(std::move(args));
    const nlohmann::json load_before = load_average();
    Outcome o = runner_(c, args, temp);
    const nlohmann::json load_after = load_average();
    const double secs = options_.now() - t0;
    std::error_code ec;
    if (!keeps_pool(c) || o.status != Status::kOk) fs::remove_all(pools, ec);
    if (o.status == Status::kInterrupted) {
      fs::remove(temp, ec);
      return false;
    }
    relay_warnings(o.log, pools);
    SweepInfo info{spec_.file,      spec_.scale,  c.id,         c.index,
                   configs_.size(), u.repetition, u.repetitions};
    round_log_.stamp(u, info);
    info.loadavg_before = load_before;
    info.loadavg_after = load_after;
    info.path = spec_.path;
    info.hash = spec_.hash;
    std::string rate;  // " 245.1 Kops/s": this run's throughput, when it ran
    std::string data = o.status == Status::kOk ? stamped_records(u, temp, info, o, rate) : "";
    fs::remove(temp, ec);
    const std::string status = record_outcome(u, o, info, data);
    out_.append(data);
    ran_unit_[i] = true;
    eta_.add(threads_of(c), secs);
    print_progress(i, status, secs, rate);
    return true;
  }

  // Warnings once per sweep, naming the base pool directory rather than each private one.
  void relay_warnings(const std::string& run_log, const std::string& pools) {
    const std::string base = fs::path(pools).parent_path().string();
    std::istringstream log_lines(run_log);
    for (std::string line; std::getline(log_lines, line);) {
      if (!line.starts_with("pmemids: warning:")) continue;
      for (size_t at; (at = line.find(pools)) != std::string::npos;)
        line.replace(at, pools.size(), base);
      if (warned_.insert(line).second) fmt::print(log_, "{}\n", line);
    }
  }

  // The run's records, stamped (and the aggregate of an interleaved
  // configuration's repetitions when this one completes them); an output that
  // cannot be read makes `o` a failure.
  std::string stamped_records(const Unit& u, const std::string& temp, const SweepInfo& info,
                              Outcome& o, std::string& rate) {
    const std::string& id = u.c->id;
    try {
      const std::string output = read_file(temp);
      std::vector<nlohmann::json> records = parse_run_output(output);
      if (const auto r = run_ops_per_sec(output)) rate = " " + format_rate(*r);
      if (u.repetition >= 0) {
        auto& reps = recorded_.ok_repetitions[id];
        for (const auto& r : records) {
          if (!r.contains("warmup") && !r.contains("aggregate")) {
            reps[u.repetition] = r;
            reps[u.repetition]["config"]["repetition"] = u.repetition;
            reps[u.repetition]["config"]["repeat"] = u.repetitions;
          }
        }
        if (static_cast<int>(reps.size()) == u.repetitions) records.push_back(aggregate_of(reps));
      }
      return stamp_records(std::move(records), info);
    } catch (const std::exception& e) {
      o.status = Status::kFailed;
      o.reason = e.what();
      rate.clear();
      if (u.repetition >= 0) recorded_.ok_repetitions[id].erase(u.repetition);
      return "";
    }
  }

  // The outcome's records (a skipped or failed record replaces `data`) and
  // counts; returns its status text.
  std::string record_outcome(const Unit& u, const Outcome& o, SweepInfo& info, std::string& data) {
    const Configuration& c = *u.c;
    if (o.status == Status::kSkipped) {
      info.repetition = -1;  // the configuration, whichever repetition found out
      data = outcome_record("skipped", o.reason, config_json(c, spec_), info);
      skipped_now_.insert(c.id);
      ++skipped_;
      return fmt::format("skipped ({})", o.reason);
    }
    if (o.status == Status::kFailed) {
      nlohmann::json extra = nlohmann::json::object();
      if (o.signal != 0) {
        extra["signal"] = o.signal;
      } else {
        extra["exit_code"] = o.exit_code;
      }
      data = outcome_record("failed", o.reason, config_json(c, spec_), info, extra);
      ++failed_;
      return fmt::format("FAILED ({})", o.reason);
    }
    if (u.repetition < 0) recorded_.ok.insert(c.id);
    ++ok_;
    return "ok";
  }

  void print_progress(size_t i, const std::string& status, double secs, const std::string& rate) {
    const Unit& u = units_[i];
    std::vector<std::string> left;
    for (size_t k = i + 1; k < units_.size(); ++k) {
      if (!unit_recorded(units_[k])) left.push_back(threads_of(*units_[k].c));
    }
    const std::string rep = u.repetition >= 0
                                ? fmt::format(" rep {}/{}", u.repetition + 1, u.repetitions)
                                : std::string();
    fmt::print(log_, "[{}/{}] {}{} {} {}{} elapsed {} ETA {}\n", count_done(), units_.size(),
               short_text(*u.c), rep, status, format_duration(secs), rate,
               format_duration(options_.now() - t_start_), format_duration(eta_.left(left)));
    std::fflush(log_);
  }

  int finish(bool stopped) const {
    if (stopped) {
      fmt::print(log_, "pmemids: sweep stopped with {} of {} configurations recorded\n",
                 configs_recorded(), configs_.size());
      return 130;
    }
    fmt::print(log_,
               "pmemids: sweep done in {}: {} ok, {} skipped, {} failed in this run; records in "
               "{}{}\n",
               format_duration(options_.now() - t_start_), ok_, skipped_, failed_, options_.out,
               round_log_.noisy_text());
    return failed_ > 0 ? 1 : 0;
  }

  const SweepSpec& spec_;
  const std::vector<Configuration>& configs_;
  const Runner& runner_;
  const DriverOptions& options_;
  const OutputFile& out_;
  std::FILE* log_;
  OutputScan recorded_;                // updated as this invocation records
  std::set<std::string> skipped_now_;  // skipped by this invocation: its other repetitions too
  uint64_t seed_;
  std::vector<Unit> units_;
  RoundLog round_log_;
  std::vector<bool> ran_unit_;
  double t_start_ = 0;
  Eta eta_;
  size_t ok_ = 0, skipped_ = 0, failed_ = 0;
  std::set<std::string> warned_;  // warnings passed on
};

}  // namespace

int run_sweep(const SweepSpec& spec, const std::vector<Configuration>& configs,
              const Runner& runner, const DriverOptions& options) {
  check_pool_dirs(spec, configs, options.pool_dir);
  const OutputFile out(options.out);
  const OutputScan scan = resume_output(out, options);
  SweepRun sweep(spec, configs, runner, options, out, scan);
  return sweep.run();
}

}  // namespace pmemids::sweep
