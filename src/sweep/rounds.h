// Rounds of an interleaved sweep (docs/sweeps.md, "Rounds").
//
// An interleaved sweep runs its configurations' repetitions as rounds: round k
// runs repetition k of every configuration that has one, each as its own
// `--repeat 1` run. The order inside a round is
//   fixed   the expansion's order (the default interleaving), or
//   random  (--interleave: randomized multiple interleaved trials, Abedi and
//           Brecht, ICPE 2017) a fresh order per round: the configurations
//           sorted by order_key(seed, k, config_id), a 64-bit mix of the three.
//           The order of round k therefore depends on nothing but the seed, k
//           and the ids: a resumed sweep runs a round's missing cells in the
//           order the round was started in, and a sweep of fewer
//           configurations (--only) keeps their relative order.
// With --rounds N (random order only) every configuration runs N rounds,
// whatever its repeat; its config_id does not change, so a sweep resumed with
// a larger N runs only the new rounds. The seed is --interleave-seed, else the
// one recorded in the output (a resumed sweep keeps its order), else a fresh
// random one; it is recorded in every record of the rounds.
//
// Noise per round: before a round's first run in an invocation, the sweep runs
// the --before-round command (sh -c, PMEMIDS_SWEEP_ROUND set to the round),
// then times kCalibrationIterations of a dependent xorshift chain: a fixed
// amount of pure CPU work whose time grows with the machine's load. The
// round's records carry it (round_calibration_s); a round whose calibration
// exceeds kNoisyFactor times the best the output holds is reported as noisy.
// Records of a round also carry the invocation's session id: cells of one
// round that ran in different invocations (a kill mid-round, claims sharing a
// sweep with different --only) are told apart by it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sweep/expand.h"
#include "sweep/records.h"
#include "sweep/resume.h"

namespace pmemids::sweep {

inline constexpr uint64_t kCalibrationIterations = uint64_t{1} << 23;
inline constexpr double kNoisyFactor = 3.0;
inline constexpr int kMaxRounds = 100000;

struct RoundOptions {
  bool random = false;           // --interleave
  std::optional<uint64_t> seed;  // --interleave-seed
  int rounds = 0;                // --rounds (random only); 0: each configuration's repeat
  std::string before_round;      // --before-round
  std::function<double()> calibrate = [] { return calibration_seconds(); };

  static double calibration_seconds();
};

// One child run: a whole configuration (repetition -1) or one repetition of
// it, which is round `repetition` of an interleaved sweep, run at `position`
// (from 0) of that round.
struct Unit {
  const Configuration* c;
  int repetition;
  int repetitions;
  int position = -1;
};

// The runs of a sweep in the order they run: configuration after configuration
// when not interleaved; else round after round, each in the fixed or the
// random order above. A configuration with one repetition runs whole unless
// the order is random.
std::vector<Unit> plan_units(const std::vector<Configuration>& configs, bool interleave,
                             const RoundOptions& rounds, uint64_t seed);

// The repetitions a configuration runs: --rounds when given, else its repeat.
int repetitions_of(const Configuration& c, const RoundOptions& rounds);

uint64_t order_key(uint64_t seed, int round, const std::string& config_id);

// --interleave-seed, else the seed `scan` recorded, else a fresh one. UsageError
// when --interleave-seed differs from the recorded seed (the rounds already
// started would change their order).
uint64_t resolve_order_seed(const RoundOptions& rounds, const OutputScan& scan,
                            const std::string& out);

// Per invocation: the session, each round's calibration, the noisy rounds.
class RoundLog {
 public:
  RoundLog(const RoundOptions& options, uint64_t seed, std::optional<double> best_recorded,
           std::FILE* log);

  // Before a run of `u`: when it opens a round in this invocation, the
  // --before-round command (RuntimeError when it fails) and the calibration.
  void enter(const Unit& u, const std::function<bool()>& interrupted);
  // The round fields of `u`'s records (nothing for a whole configuration).
  void stamp(const Unit& u, SweepInfo& info) const;
  // "; noisy rounds (calibration over 3x the best 12.1 ms): 3 (40.2 ms)", or "".
  std::string noisy_text() const;

  const std::string& session() const { return session_; }

 private:
  const RoundOptions& options_;
  uint64_t seed_;
  std::string session_;
  std::optional<double> best_;
  std::map<int, double> calibration_;  // round -> seconds, this invocation
  std::FILE* log_;
};

}  // namespace pmemids::sweep
