// `pmemids sweep FILE`: expand a sweep file (docs/sweeps.md) into `pmemids run`
// configurations, validate them all, keep this invocation's part (--shard K/N,
// --only KEY=V,...; sweep/subset.h), then run each as a child process and append
// its records to --out, resumably. --dry-run prints the configurations as
// `pmemids run` command lines on stdout and runs nothing.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/commands.h"
#include "errors.h"
#include "sweep/child.h"
#include "sweep/driver.h"
#include "sweep/expand.h"
#include "sweep/resume.h"
#include "sweep/run_keys.h"
#include "sweep/subset.h"
#include "sweep/sweep_file.h"
#include "sweep/validate.h"

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
};

std::string default_out(const SweepOptions& o, const sweep::Shard& shard) {
  std::string stem = std::filesystem::path(o.file).stem().string();
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

void dry_run(const sweep::SweepSpec& spec, const std::vector<sweep::Configuration>& configs,
             const SweepOptions& o, const std::string& out, const std::string& part) {
  for (const auto& c : configs) {
    const std::string pool_dir = c.option("pool-dir") != nullptr ? "" : o.pool_dir;
    fmt::print("pmemids run {}\n", sweep::shell_join(sweep::run_args(c, spec, pool_dir)));
  }
  std::fflush(stdout);
  std::string recorded;
  if (std::ifstream in(out); in) {
    std::stringstream ss;
    ss << in.rdbuf();
    const sweep::OutputScan scan = sweep::scan_output(ss.str());
    size_t n = 0;
    for (const auto& c : configs) {
      const auto* repeat = c.option("repeat");
      const int reps = repeat != nullptr ? std::stoi(sweep::value_text(*repeat)) : 1;
      n += sweep::already_recorded(scan, c.id, o.retry_skipped, reps) ? 1 : 0;
    }
    recorded = fmt::format(", {} already recorded in {}", n, out);
  }
  fmt::print(stderr, "pmemids: sweep {} (scale {}): {} configurations{}{}\n", spec.file, spec.scale,
             configs.size(), part, recorded);
}

void sweep_main(const SweepOptions& o) {
  const sweep::RunKeys keys;
  const sweep::SweepSpec spec = sweep::parse_sweep_file(o.file, o.scale, keys);
  const std::vector<sweep::Configuration> all = sweep::expand(spec);
  sweep::validate(spec, all, keys);
  const sweep::Shard shard = o.shard.empty() ? sweep::Shard{} : sweep::parse_shard(o.shard);
  std::vector<sweep::OnlyTerm> only;
  for (const auto& t : o.only) only.push_back(sweep::parse_only(t));
  const std::vector<sweep::Configuration> configs = sweep::subset(all, shard, only);
  std::error_code ec;
  if (!o.pool_dir.empty() && !std::filesystem::is_directory(o.pool_dir, ec)) {
    throw UsageError(fmt::format("--pool-dir '{}': not an existing directory", o.pool_dir));
  }
  const std::string out = o.out.empty() ? default_out(o, shard) : o.out;
  if (o.dry_run) {
    dry_run(spec, configs, o, out, part_text(o, all.size()));
    return;
  }
  sweep::install_interrupt_handlers();
  sweep::DriverOptions d;
  d.out = out;
  d.pool_dir = o.pool_dir;
  d.retry_skipped = o.retry_skipped;
  d.interleave = !o.no_interleave;
  d.interrupted = sweep::interrupt_requested;
  const int code = sweep::run_sweep(
      spec, configs,
      [](const sweep::Configuration&, const std::vector<std::string>& args,
         const std::string& temp) { return sweep::run_child(args, temp); },
      d);
  if (code == 1) {
    throw RuntimeError(fmt::format(
        "some configurations failed (records with \"failed\": true in {}); running the sweep "
        "again retries them",
        out));
  }
  if (code != 0) throw Error(code, "interrupted; run the same command again to resume");
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto o = std::make_shared<SweepOptions>();
  CLI::App* sub = app.add_subcommand(
      "sweep", "Run every configuration of a sweep file (TOML), resumably (docs/sweeps.md)");
  sub->add_option("file", o->file, "Sweep file (TOML)")->required();
  sub->add_option("--out", o->out,
                  "JSON-lines file to append to; records already in it are not run again "
                  "(default results/<file stem>[-<scale>][-shard<K>of<N>].jsonl)");
  sub->add_option("--scale", o->scale,
                  "default (the file's top level) or the name of one of its [scale.<name>] "
                  "tables, e.g. paper");
  sub->add_option("--pool-dir", o->pool_dir,
                  "Pool directory for configurations that set none (default: as pmemids run)");
  sub->add_option("--shard", o->shard,
                  "K/N: run only shard K (0..N-1) of N, e.g. one per machine; configurations are "
                  "dealt to shards in config_id order (default out "
                  "results/<file stem>[-<scale>]-shard<K>of<N>.jsonl)");
  sub->add_option("--only", o->only,
                  "KEY=V[,V...]: run only configurations whose KEY (option or property) is one "
                  "of the values (repeatable; all must match)")
      ->allow_extra_args(false);
  sub->add_flag("--dry-run", o->dry_run,
                "Print the configurations as pmemids run command lines; run nothing");
  sub->add_flag("--retry-skipped", o->retry_skipped,
                "Run configurations recorded as skipped again (failed ones always are)");
  sub->add_flag("--no-interleave", o->no_interleave,
                "Run each configuration's repetitions together, configuration after "
                "configuration (default: repetition 1 of every configuration, then 2, ...)");
  sub->callback([o] { sweep_main(*o); });
}

}  // namespace pmemids
