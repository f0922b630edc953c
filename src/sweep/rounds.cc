#include "sweep/rounds.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "errors.h"
#include "sweep/child.h"
#include "util/fnv1a.h"

namespace pmemids::sweep {
namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

uint64_t fresh_random() {
  std::random_device rd;
  const uint64_t t =
      static_cast<uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  return splitmix64((uint64_t{rd()} << 32 | rd()) ^ t);
}

// The configurations taking part in round k (those with more than k
// repetitions), in the round's order.
std::vector<const Configuration*> round_members(const std::vector<Configuration>& configs, int k,
                                                const RoundOptions& rounds, uint64_t seed) {
  std::vector<const Configuration*> members;
  for (const auto& c : configs) {
    if (k < repetitions_of(c, rounds)) members.push_back(&c);
  }
  if (rounds.random) {
    std::stable_sort(members.begin(), members.end(), [&](const auto* a, const auto* b) {
      return order_key(seed, k, a->id) < order_key(seed, k, b->id);
    });
  }
  return members;
}

volatile uint64_t g_calibration_sink = 0;

}  // namespace

double RoundOptions::calibration_seconds() {
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t x = 0x2545F4914F6CDD1DULL;
  for (uint64_t i = 0; i < kCalibrationIterations; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  g_calibration_sink = x;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int repetitions_of(const Configuration& c, const RoundOptions& rounds) {
  if (rounds.random && rounds.rounds > 0) return rounds.rounds;
  const Value* v = c.option("repeat");
  return v != nullptr ? static_cast<int>(std::stoll(value_text(*v))) : 1;
}

uint64_t order_key(uint64_t seed, int round, const std::string& config_id) {
  return splitmix64(splitmix64(seed ^ splitmix64(static_cast<uint64_t>(round))) ^
                    fnv1a64_bytes(config_id));
}

std::vector<Unit> plan_units(const std::vector<Configuration>& configs, bool interleave,
                             const RoundOptions& rounds, uint64_t seed) {
  std::vector<Unit> units;
  if (!interleave) {
    for (const auto& c : configs) units.push_back({&c, -1, repetitions_of(c, rounds)});
    return units;
  }
  int count = 1;
  for (const auto& c : configs) count = std::max(count, repetitions_of(c, rounds));
  for (int k = 0; k < count; ++k) {
    int position = 0;
    for (const Configuration* c : round_members(configs, k, rounds, seed)) {
      const int reps = repetitions_of(*c, rounds);
      // One repetition in a fixed order: the whole configuration, in its place in round 0.
      units.push_back(reps == 1 && !rounds.random ? Unit{c, -1, 1, position}
                                                  : Unit{c, k, reps, position});
      ++position;
    }
  }
  return units;
}

uint64_t resolve_order_seed(const RoundOptions& rounds, const OutputScan& scan,
                            const std::string& out) {
  if (!rounds.random) return 0;
  if (rounds.seed && scan.order_seed && *rounds.seed != *scan.order_seed) {
    throw UsageError(fmt::format(
        "--interleave-seed {}: '{}' already holds rounds in the order of seed {}; accepted: "
        "--interleave-seed {} or none (a resumed sweep keeps the recorded order), or another "
        "--out",
        *rounds.seed, out, *scan.order_seed, *scan.order_seed));
  }
  if (rounds.seed) return *rounds.seed;
  if (scan.order_seed) return *scan.order_seed;
  return fresh_random() >> 32;  // 32 bits: exact in every JSON reader
}

RoundLog::RoundLog(const RoundOptions& options, uint64_t seed, std::optional<double> best_recorded,
                   std::FILE* log)
    : options_(options),
      seed_(seed),
      session_(fmt::format("{:016x}", fresh_random())),
      best_(best_recorded),
      log_(log) {}

void RoundLog::enter(const Unit& u, const std::function<bool()>& interrupted) {
  if (u.repetition < 0 || calibration_.count(u.repetition) != 0) return;
  if (!options_.before_round.empty()) {
    const int code =
        run_hook(options_.before_round, {fmt::format("PMEMIDS_SWEEP_ROUND={}", u.repetition)});
    if (interrupted()) return;
    if (code != 0) {
      throw RuntimeError(fmt::format(
          "--before-round '{}' failed before round {} of {} ({}); nothing "
          "of the round ran",
          options_.before_round, u.repetition + 1, u.repetitions,
          code > 128 ? fmt::format("signal {}", code - 128) : fmt::format("exit {}", code)));
    }
  }
  const double s = options_.calibrate();
  calibration_[u.repetition] = s;
  const double best = std::min(s, best_.value_or(s));
  best_ = best;
  const std::string order =
      options_.random ? fmt::format("random order, seed {}", seed_) : "fixed order";
  fmt::print(log_,
             "pmemids: sweep: round {} of {} ({}): calibration {:.1f} ms ({:.2f}x the best{})\n",
             u.repetition + 1, u.repetitions, order, 1e3 * s, s / best,
             s > kNoisyFactor * best ? ": noisy" : "");
  std::fflush(log_);
}

void RoundLog::stamp(const Unit& u, SweepInfo& info) const {
  if (u.repetition < 0) return;
  info.position = u.position;
  info.session = session_;
  info.order = options_.random ? "random" : "fixed";
  if (options_.random) info.order_seed = seed_;
  if (const auto it = calibration_.find(u.repetition); it != calibration_.end()) {
    info.round_calibration_s = it->second;
  }
}

std::string RoundLog::noisy_text() const {
  if (!best_) return "";
  std::string rounds;
  for (const auto& [k, s] : calibration_) {
    if (s > kNoisyFactor * *best_) {
      rounds += fmt::format("{}{} ({:.1f} ms)", rounds.empty() ? "" : ", ", k + 1, 1e3 * s);
    }
  }
  if (rounds.empty()) return "";
  return fmt::format("; noisy rounds (calibration over {}x the best {:.1f} ms): {}", kNoisyFactor,
                     1e3 * *best_, rounds);
}

}  // namespace pmemids::sweep
