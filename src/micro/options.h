// The options of `pmemids micro <bench>` and `pmemids micro all`, registered on
// a CLI11 app (the command, and the sweep's key checker, which parses sweep
// configurations exactly as the command does).
//
// --min-time S (benches with --ops-per-thread; default kMinTime, 0 under
// --quick): a point whose first repetition lasts less than S seconds gets its
// --ops-per-thread scaled to last about 1.2 S, and that short repetition is
// not recorded; records carry the count that ran and the one asked.
//
// Axis options (--op, --size, ...) take lists and ranges (micro/axes.h) and are
// checked by CLI11 validators, so a bad value is refused while parsing. Scalar
// options and axes left out take, in order: the --quick grid's value (with
// --quick), `micro all`'s default-scale value (in `micro all`), the bench's
// default; --help shows the bench's default.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <optional>
#include <string>

#include "micro/bench.h"
#include "options/persistence_options.h"

namespace pmemids::micro {

inline constexpr double kMinTime = 0.05;

struct MicroOptions {
  std::map<std::string, std::optional<std::string>> axes;  // axis name -> given text
  std::optional<uint64_t> ops_per_thread;
  std::optional<std::string> region;
  std::optional<double> duration;
  std::optional<double> ramp;
  std::optional<double> latency_sample;
  std::optional<double> min_time;
  int repeat = 1;
  int warmup = 0;
  uint64_t seed = 1;
  std::string out;
  std::string pool_dir;
  std::string pin = "none";
  std::optional<int> cpu_node;
  std::optional<int> mem_node;
  bool quick = false;
  PersistenceOptions persistence;
};

// `bench` null: the options of `micro all` (no axes, no bench scalars).
void add_micro_options(CLI::App* sub, MicroOptions& o, const BenchSpec* bench);

// A bench's options resolved: axis texts and scalar values in force.
struct Resolved {
  const BenchSpec* bench = nullptr;
  std::vector<std::pair<std::string, std::string>> axes;  // in axis order
  Scalars scalars;
};

Resolved resolve(const BenchSpec& b, const MicroOptions& o, bool in_all);

}  // namespace pmemids::micro
