// Running a sweep: resume from the output, run each remaining configuration
// through a Runner, record it whole, report progress.
//
// The output is locked (flock) for the whole sweep: a second sweep on the same
// file is refused. On start the torn end of an interrupted sweep is cut off
// (see resume.h) and stale temporary files of this output are removed.
// Configurations already recorded are not run again (see already_recorded());
// failed ones are.
//
// Pools: each configuration runs with --pool-dir <base>/sweep-<config_id>, a
// directory of its own under its base pool directory (the configuration's
// pool-dir, else the sweep's --pool-dir, else $PMEMIDS_POOL_DIR, else
// /dev/shm/pmemids, as `run` chooses). The sweep empties it before the run, so
// pools left by a killed run of the same configuration do not block its rerun,
// and removes it afterwards unless the configuration sets keep-pool. Every base
// must be an existing directory.
//
// Interleaving (the default): a configuration with repeat = R > 1 is run as R
// separate runs of one repetition each (`--repeat 1`, warm-ups in each), in
// rounds: repetition 0 of every configuration, then repetition 1, ... so slow
// drifts of the machine (load, temperature, other tenants) spread over all
// configurations instead of landing on a few. Each repetition is recorded
// (and resumed) on its own; the one that completes a configuration also
// appends its aggregate record (records.h). A configuration run refuses here
// is skipped once, for all its repetitions. interleave = false runs each
// configuration's repetitions in one run, configuration after configuration.
// The order inside a round is the expansion's, or a fresh random one per round
// (rounds.random: --interleave); rounds.h has the rounds' order, seed,
// calibration and record fields. Every group records the load averages
// around its run.
//
// Outcomes:
//   kOk          the run's records, stamped, appended in one write
//   kSkipped     a skipped record (the run exited 2: cannot run here)
//   kFailed      a failed record; the sweep goes on and returns 1 at the end
//   kInterrupted nothing recorded; the sweep stops and returns 130
// Progress goes to `progress` (stderr), one line per run:
//   [k/N] <swept keys> [rep r/R] <status> <seconds> [<ops/s>] elapsed 1m02s ETA 3m10s
// N counting runs (a configuration's repetitions, when interleaved); <ops/s> is
// the run's throughput (its aggregate record's mean, else the mean of its
// measured repetitions; only when it ran), and the ETA sums, over the runs
// left, the mean measured duration of the runs of this invocation with the
// same thread count (the mean of all run so far for a thread count not run
// yet).
#pragma once

#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sweep/expand.h"
#include "sweep/rounds.h"
#include "sweep/sweep_file.h"

namespace pmemids::sweep {

enum class Status { kOk, kSkipped, kFailed, kInterrupted };

struct Outcome {
  Status status = Status::kFailed;
  std::string reason;  // kSkipped, kFailed
  int exit_code = 0;   // the run's exit code, when it exited
  int signal = 0;      // the signal that ended the run, when one did
  std::string log;     // the run's stderr (warnings are passed on once per sweep)
};

// Runs `pmemids run <args> --out <temp>`; on kOk the records are in `temp`.
using Runner = std::function<Outcome(const Configuration& c, const std::vector<std::string>& args,
                                     const std::string& temp)>;

struct DriverOptions {
  std::string out;
  std::string pool_dir;        // base pool directory of configurations that set none
  bool retry_skipped = false;  // run configurations recorded as skipped again
  bool interleave = true;      // repetitions in rounds across configurations (above)
  RoundOptions rounds;         // their order, count, hook and calibration (rounds.h)
  std::FILE* progress = stderr;
  std::function<bool()> interrupted = [] { return false; };  // checked between runs
  std::function<double()> now = steady_seconds;  // clock of durations, elapsed time and ETA

  static double steady_seconds();
};

// 0 when every configuration is recorded ok or skipped, 1 when one failed, 130
// when interrupted. Throws UsageError when the output cannot be opened or is
// locked, RuntimeError when it cannot be written.
int run_sweep(const SweepSpec& spec, const std::vector<Configuration>& configs,
              const Runner& runner, const DriverOptions& options);

// Every base pool directory of `configs` is an existing directory (the
// default one is created, as `run` does); UsageError naming it otherwise.
void check_pool_dirs(const SweepSpec& spec, const std::vector<Configuration>& configs,
                     const std::string& sweep_pool_dir);

// The directory configuration `c` runs its pools in (see above).
std::string private_pool_dir(const Configuration& c, const std::string& sweep_pool_dir);

// The temporary output of configuration `id`, next to `out`: ".<name>.<id>.tmp".
std::string temp_path(const std::string& out, const std::string& id);

// "0.4s", "45s", "1m02s", "1h02m03s".
std::string format_duration(double seconds);

// "850 ops/s", "12.3 Kops/s", "4.56 Mops/s".
std::string format_rate(double ops_per_sec);

// Estimates the time still needed from the durations measured so far.
class Eta {
 public:
  // A configuration with `threads` workers took `seconds`.
  void add(const std::string& threads, double seconds);
  // Seconds for configurations with these thread counts (0 before any add()).
  double left(const std::vector<std::string>& threads) const;

 private:
  std::map<std::string, std::pair<double, size_t>> by_threads_;  // sum, count
  double sum_ = 0;
  size_t count_ = 0;
};

}  // namespace pmemids::sweep
