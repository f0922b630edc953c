// `pmemids sweep FILE`: expand a sweep file (docs/sweeps.md) into `pmemids run`
// (or, with `command = "micro <bench>"`, `pmemids micro <bench>`) configurations, validate them
// all, keep this invocation's part (--shard K/N, --only KEY=V,...; sweep/subset.h), then run
// each as a child process and append its records to --out, resumably. --dry-run prints the
// configurations as `pmemids run` (or `pmemids micro <bench>`) command lines on stdout and runs
// nothing.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>

#include "cli/commands.h"
#include "errors.h"
#include "micro/options.h"
#include "options/validators.h"
#include "sweep/child.h"
#include "sweep/driver.h"
#include "sweep/estimate.h"
#include "sweep/expand.h"
#include "sweep/resume.h"
#include "sweep/rounds.h"
#include "sweep/run_keys.h"
#include "sweep/subset.h"
#include "sweep/sweep_file.h"
#include "sweep/validate.h"
#include "util/file_checks.h"
#include "util/shipped_files.h"

namespace pmemids {
namespace {

struct SweepOptions {
  std::string file;
  std::string out;
  std::string scale = "default";
  std::string pool_dir;
  std::string shard;              // "K/N", empty: the whole sweep
  std::vector<std::string> only;  // KEY=V[,V...] terms
  bool dry_run = false;
  bool retry_skipped = false;
  bool no_interleave = false;
  bool interleave = false;  // random order per round (sweep/rounds.h)
  std::optional<uint64_t> interleave_seed;
  int rounds = 0;
  std::string before_round;
  bool force = false;
};

// A sweep's output may hold many records; reading it to resume stops here.
constexpr size_t kMaxResultBytes = size_t{4} << 30;

namespace fs = std::filesystem;

std::string default_out(const SweepOptions& o, const sweep::Shard& shard) {
  std::string stem = fs::path(o.file).stem().string();
  if (o.scale != "default") stem += "-" + o.scale;
  if (!o.shard.empty()) stem += fmt::format("-shard{}of{}", shard.index, shard.count);
  return fmt::format("results/{}.jsonl", stem);
}

// "" for the whole sweep, else " (shard K/N, --only ...) of <all>".
std::string part_text(const SweepOptions& o, size_t all) {
  std::string what;
  if (!o.shard.empty()) what += "shard " + o.shard;
  for (const auto& t : o.only) what += (what.empty() ? "--only " : ", --only ") + t;
  return what.empty() ? "" : fmt::format(" ({} of {})", what, all);
}

using ConfigSource = std::function<void(const std::function<void(sweep::Configuration&&)>&)>;

// Prints each configuration as `source` yields it, checked, so a large sweep
// shows its first lines at once.
void dry_run(const sweep::SweepSpec& spec, const sweep::RunKeys& keys, const ConfigSource& source,
             const sweep::SweepEstimate& est, const SweepOptions& o, const std::string& out,
             const std::string& part) {
  std::set<std::string> scanned_dirs;
  std::vector<std::string> ids;
  std::vector<int> reps;  // each configuration's repetitions
  sweep::ConfigurationCheck check(spec, keys);
  source([&](sweep::Configuration&& c) {
    check(c, est.configurations);
    const std::string base = fs::path(sweep::private_pool_dir(c, o.pool_dir)).parent_path();
    if (scanned_dirs.insert(base).second) sweep::check_pool_dirs(spec, {c}, o.pool_dir);
    const std::string pool_dir = c.option("pool-dir") != nullptr ? "" : o.pool_dir;
    fmt::print("pmemids {} {}\n", sweep::shell_join(spec.command),
               sweep::shell_join(sweep::run_args(c, spec, pool_dir)));
    if (ids.size() % 64 == 0) std::fflush(stdout);
    ids.push_back(c.id);
    const auto* repeat = c.option("repeat");
    reps.push_back(o.interleave && o.rounds > 0 ? o.rounds
                   : repeat != nullptr          ? std::stoi(sweep::value_text(*repeat))
                                                : 1);
  });
  std::fflush(stdout);
  std::string recorded;
  if (fs::exists(out)) {
    const sweep::OutputScan scan =
        sweep::scan_output(read_input_file(out, "--out", kMaxResultBytes));
    size_t n = 0;
    for (size_t i = 0; i < ids.size(); ++i) {
      n += sweep::already_recorded(scan, ids[i], o.retry_skipped, reps[i]) ? 1 : 0;
    }
    recorded = fmt::format(", {} already recorded in {}", n, out);
  }
  fmt::print(stderr,
             "pmemids: sweep {} (scale {}): {} configurations{}{} (at least {}; expected about "
             "{} on a 2-core machine, src/sweep/estimate.h)\n",
             spec.file, spec.scale, est.configurations, part, recorded,
             sweep::format_estimate(est.min_seconds), sweep::format_estimate(est.expected_seconds));
}

// The keys of the command a sweep file runs: `run`, or `micro <bench>`.
sweep::RunKeys keys_for(const std::vector<std::string>& command, const std::string& file) {
  if (command == std::vector<std::string>{"run"}) return {};
  const auto& all = micro::benches();
  const auto bench = command.size() == 2 && command[0] == "micro"
                         ? std::find_if(all.begin(), all.end(),
                                        [&](const auto& b) { return b.name == command[1]; })
                         : all.end();
  if (bench != all.end()) {
    return {command, [b = &*bench](CLI::App& app) -> std::shared_ptr<void> {
              auto o = std::make_shared<micro::MicroOptions>();
              micro::add_micro_options(&app, *o, b);
              return o;
            }};
  }
  std::string accepted = "\"run\"";
  for (const auto& b : all) accepted += fmt::format(", \"micro {}\"", b.name);
  throw UsageError(fmt::format("{}: command: '{}' is not a command a sweep runs; accepted: {}",
                               file, sweep::shell_join(command), accepted));
}

// --no-interleave, --interleave and what goes with rounds (docs/sweeps.md, "Rounds").
void add_round_options(CLI::App* sub, SweepOptions& o) {
  sub->add_flag("--no-interleave", o.no_interleave,
                "Run each configuration's repetitions together, configuration after "
                "configuration (default: in rounds, repetition 1 of every configuration, then "
                "2, ...)");
  sub->add_flag("--interleave", o.interleave,
                "Rounds in a fresh random order each (randomized multiple interleaved trials): "
                "every configuration once per round, one repetition per run; records carry "
                "round, position and the order seed");
  sub->add_option("--interleave-seed", o.interleave_seed,
                  "With --interleave: the seed of the rounds' random orders (recorded)")
      ->type_name("N")
      ->default_str("the one recorded in --out, else a fresh one");
  sub->add_option("--rounds", o.rounds,
                  "With --interleave: every configuration in N rounds, whatever its repeat (its "
                  "config_id is unchanged: a sweep resumed with a larger N runs the new rounds "
                  "only)")
      ->check(CLI::Range(1, sweep::kMaxRounds))
      ->type_name("N")
      ->default_str("each configuration's repeat");
  sub->add_option("--before-round", o.before_round,
                  "Shell command run (sh -c) before each round, PMEMIDS_SWEEP_ROUND set to "
                  "the round (from 0); a failure stops the sweep")
      ->check(non_empty())
      ->type_name("CMD")
      ->default_str("none");
}

// The round options that go together (UsageError otherwise).
void check_round_options(const SweepOptions& o) {
  if (o.interleave && o.no_interleave) {
    throw UsageError(
        "--interleave and --no-interleave: give one (--interleave: rounds in a random order; "
        "--no-interleave: each configuration's repetitions together)");
  }
  if (!o.interleave && (o.interleave_seed || o.rounds > 0)) {
    throw UsageError(fmt::format("{} needs --interleave (rounds in a random order)",
                                 o.rounds > 0 ? "--rounds" : "--interleave-seed"));
  }
  if (o.no_interleave && !o.before_round.empty()) {
    throw UsageError(
        "--before-round: --no-interleave runs no rounds; accepted: the default rounds or "
        "--interleave");
  }
}

void sweep_main(const SweepOptions& o) {
  check_round_options(o);
  const ShippedFile file = locate_shipped(o.file, ShippedKind::kSweep);
  const sweep::RunKeys keys = keys_for(sweep::read_sweep_command(file.path), o.file);
  sweep::SweepSpec spec = sweep::parse_sweep_file(file.path, o.scale, keys);
  spec.file = o.file;
  spec.path = file.path;
  spec.hash = file.hash;
  const sweep::Shard shard = o.shard.empty() ? sweep::Shard{} : sweep::parse_shard(o.shard);
  std::vector<sweep::OnlyTerm> only;
  for (const auto& t : o.only) only.push_back(sweep::parse_only(t));
  const std::string out = o.out.empty() ? default_out(o, shard) : o.out;
  if (out == "-") {
    throw UsageError(
        "--out -: a sweep appends to a file it can resume from; give a file name (pmemids run "
        "--out - writes records to stdout)");
  }
  check_results_output(out, "--out");
  std::error_code ec;
  if (!o.pool_dir.empty() && !fs::is_directory(o.pool_dir, ec)) {
    throw UsageError(fmt::format("--pool-dir '{}': not an existing directory", o.pool_dir));
  }
  sweep::validate_options(spec, keys);
  const bool whole = o.shard.empty() && o.only.empty();
  std::vector<sweep::Configuration> configs;
  std::string part;
  sweep::SweepEstimate est;
  if (whole) {
    // Counted without keeping the expansion, so an impossible product is refused fast.
    est = sweep::estimate(spec);
  } else {
    // A shard is defined over the whole expansion's config_id order.
    const std::vector<sweep::Configuration> all = sweep::expand(spec);
    sweep::validate(spec, all, keys);
    configs = sweep::subset(all, shard, only);
    est = sweep::estimate(configs);
    part = part_text(o, all.size());
  }
  sweep::check_estimate(spec, est, o.force);
  if (o.dry_run) {
    const ConfigSource source = [&](const std::function<void(sweep::Configuration &&)>& each) {
      if (whole) return sweep::expand_each(spec, each);
      for (sweep::Configuration c : configs) each(std::move(c));
    };
    dry_run(spec, keys, source, est, o, out, part);
    return;
  }
  if (whole) {
    configs = sweep::expand(spec);
    sweep::validate(spec, configs, keys);
  }
  sweep::install_interrupt_handlers();
  sweep::DriverOptions d;
  d.out = out;
  d.pool_dir = o.pool_dir;
  d.retry_skipped = o.retry_skipped;
  d.interleave = !o.no_interleave;
  d.rounds.random = o.interleave;
  d.rounds.seed = o.interleave_seed;
  d.rounds.rounds = o.rounds;
  d.rounds.before_round = o.before_round;
  d.interrupted = sweep::interrupt_requested;
  const int code = sweep::run_sweep(
      spec, configs,
      [&spec](const sweep::Configuration&, const std::vector<std::string>& args,
              const std::string& temp) { return sweep::run_child(spec.command, args, temp); },
      d);
  if (code == 1) {
    throw RuntimeError(fmt::format(
        "some configurations failed (records with \"failed\": true in {}); running the sweep "
        "again retries them",
        out));
  }
  if (code != 0) {
    const int sig = sweep::interrupt_signal();
    throw Error(sig != 0 ? 128 + sig : code, "interrupted; run the same command again to resume");
  }
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto o = std::make_shared<SweepOptions>();
  CLI::App* sub = app.add_subcommand(
      "sweep", "Run every configuration of a sweep file (TOML), resumably (docs/sweeps.md)");
  sub->add_option("file", o->file, "Sweep file (TOML)")
      ->type_name("FILE")
      ->required()
      ->check(non_empty());
  sub->add_option("--out", o->out,
                  "JSON-lines file to append to; records already in it are not run again")
      ->check(non_empty())
      ->type_name("FILE")
      ->default_str("results/<file stem>[-<scale>][-shard<K>of<N>].jsonl");
  sub->add_option("--scale", o->scale,
                  "default (the file's top level) or the name of one of its [scale.<name>] "
                  "tables, e.g. paper")
      ->check(non_empty());
  sub->add_option("--pool-dir", o->pool_dir, "Pool directory for configurations that set none")
      ->check(non_empty())
      ->type_name("DIR")
      ->default_str("as pmemids run: $PMEMIDS_POOL_DIR, else /dev/shm/pmemids");
  sub->add_option("--shard", o->shard,
                  "K/N: run only shard K (0..N-1) of N, e.g. one per machine; configurations are "
                  "dealt to shards in config_id order (default out "
                  "results/<file stem>[-<scale>]-shard<K>of<N>.jsonl)")
      ->check(non_empty())
      ->type_name("K/N")
      ->default_str("the whole sweep");
  sub->add_option("--only", o->only,
                  "KEY=V[,V...]: run only configurations whose KEY (option or property) is one "
                  "of the values (repeatable; all must match)")
      ->allow_extra_args(false)
      ->check(non_empty())
      ->type_name("KEY=V,...")
      ->default_str("every configuration");
  sub->add_flag("--dry-run", o->dry_run,
                "Print the configurations as pmemids run command lines; run nothing");
  sub->add_flag("--retry-skipped", o->retry_skipped,
                "Run configurations recorded as skipped again (failed ones always are)");
  add_round_options(sub, *o);
  sub->add_flag("--force", o->force,
                "Run (or list) a sweep whose estimated least time exceeds half a day");
  sub->callback([o] { sweep_main(*o); });
}

}  // namespace pmemids
