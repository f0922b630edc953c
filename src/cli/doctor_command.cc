// `pmemids doctor`: what this machine can and cannot show (doctor/findings.h),
// as text or, with --json, as one JSON object on stdout. Exit 0; 2 when the
// pool directory is unusable (missing, not a directory, not writable), as for
// every command that takes --pool-dir.
#include <fmt/format.h>

#include <memory>

#include "backend/pool.h"
#include "cli/commands.h"
#include "doctor/probes.h"
#include "errors.h"
#include "options/validators.h"

namespace pmemids {
namespace {

struct DoctorOptions {
  std::string pool_dir;
  bool json = false;
};

void run_doctor_command(const DoctorOptions& o) {
  const std::string dir = resolve_pool_dir(o.pool_dir);
  bool pool_ok = false;
  const std::vector<doctor::Finding> findings = doctor::run_doctor(dir, pool_ok);
  if (o.json) {
    fmt::print("{}\n", doctor::to_json(findings).dump(2));
  } else {
    fmt::print("{}", doctor::to_text(findings));
  }
  std::fflush(stdout);
  if (!pool_ok) throw UsageError(findings.front().value["problem"].get<std::string>());
}

}  // namespace

void add_doctor_command(CLI::App& app) {
  auto o = std::make_shared<DoctorOptions>();
  CLI::App* sub = app.add_subcommand(
      "doctor", "What this machine can and cannot show: PMEM, domain, flushes, NUMA, counters");
  sub->add_option("--pool-dir", o->pool_dir,
                  "Pool directory to examine (default $PMEMIDS_POOL_DIR, else /dev/shm/pmemids)")
      ->check(non_empty());
  sub->add_flag("--json", o->json, "Print one JSON object (keyed by finding) instead of text");
  sub->callback([o] { run_doctor_command(*o); });
}

}  // namespace pmemids
