// `pmemids reproduce`: the seed papers' claims (reproduce/*.toml) run through sweeps
// and decided with a verdict. Every argument goes unparsed to the Python module
// pmemids_report.reproduce (python/, docs/reproduce.md), which runs this binary's
// `sweep` for the measurements; see cli/python_forward.h for how it is run. Its exit
// code (0; 2 bad arguments or claim files; 1 a failed run; 130 interrupted) is
// pmemids's.
#include "cli/commands.h"
#include "cli/python_forward.h"

namespace pmemids {

void add_reproduce_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand(
      "reproduce",
      "The seed papers' claims as runnable checks with verdicts (pmemids reproduce --help)");
  sub->prefix_command();
  sub->set_help_flag();
  sub->callback(
      [sub] { forward_to_python("reproduce", "pmemids_report.reproduce", sub->remaining()); });
}

}  // namespace pmemids
