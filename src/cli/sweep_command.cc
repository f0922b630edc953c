// `pmemids sweep FILE`: expand a sweep file (docs/sweeps.md) into `pmemids run`
// configurations, validate them all, then run each as a child process and
// append its records to --out, resumably. --dry-run prints the configurations
// as `pmemids run` command lines on stdout and runs nothing.
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
#include "sweep/sweep_file.h"
#include "sweep/validate.h"

namespace pmemids {
namespace {

struct SweepOptions {
  std::string file;
  std::string out;
  std::string scale = "default";
  std::string pool_dir;
  bool dry_run = false;
  bool retry_skipped = false;
};

std::string default_out(const SweepOptions& o) {
  const std::string stem = std::filesystem::path(o.file).stem().string();
  return o.scale == "default" ? fmt::format("results/{}.jsonl", stem)
                              : fmt::format("results/{}-{}.jsonl", stem, o.scale);
}

void dry_run(const sweep::SweepSpec& spec, const std::vector<sweep::Configuration>& configs,
             const SweepOptions& o, const std::string& out) {
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
    for (const auto& c : configs) n += sweep::already_recorded(scan, c.id, o.retry_skipped) ? 1 : 0;
    recorded = fmt::format(", {} already recorded in {}", n, out);
  }
  fmt::print(stderr, "pmemids: sweep {} (scale {}): {} configurations{}\n", spec.file, spec.scale,
             configs.size(), recorded);
}

void sweep_main(const SweepOptions& o) {
  const sweep::RunKeys keys;
  const sweep::SweepSpec spec = sweep::parse_sweep_file(o.file, o.scale, keys);
  const std::vector<sweep::Configuration> configs = sweep::expand(spec);
  sweep::validate(spec, configs, keys);
  std::error_code ec;
  if (!o.pool_dir.empty() && !std::filesystem::is_directory(o.pool_dir, ec)) {
    throw UsageError(fmt::format("--pool-dir '{}': not an existing directory", o.pool_dir));
  }
  const std::string out = o.out.empty() ? default_out(o) : o.out;
  if (out == "-") {
    throw UsageError(
        "--out -: a sweep appends to a file it can resume from; give a file name (pmemids run "
        "--out - writes records to stdout)");
  }
  if (o.dry_run) {
    dry_run(spec, configs, o, out);
    return;
  }
  sweep::install_interrupt_handlers();
  sweep::DriverOptions d;
  d.out = out;
  d.pool_dir = o.pool_dir;
  d.retry_skipped = o.retry_skipped;
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
  sub->add_option("file", o->file, "Sweep file (TOML)")->type_name("FILE")->required();
  sub->add_option("--out", o->out,
                  "JSON-lines file to append to; records already in it are not run again")
      ->type_name("FILE")
      ->default_str("results/<file stem>[-<scale>].jsonl");
  sub->add_option("--scale", o->scale,
                  "default (the file's top level) or the name of one of its [scale.<name>] "
                  "tables, e.g. paper");
  sub->add_option("--pool-dir", o->pool_dir, "Pool directory for configurations that set none")
      ->type_name("DIR")
      ->default_str("as pmemids run: $PMEMIDS_POOL_DIR, else /dev/shm/pmemids");
  sub->add_flag("--dry-run", o->dry_run,
                "Print the configurations as pmemids run command lines; run nothing");
  sub->add_flag("--retry-skipped", o->retry_skipped,
                "Run configurations recorded as skipped again (failed ones always are)");
  sub->callback([o] { sweep_main(*o); });
}

}  // namespace pmemids
