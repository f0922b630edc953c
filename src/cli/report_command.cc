// `pmemids report`: figures, tables and an HTML page from result files. Every
// argument goes unparsed to the Python package pmemids_report (python/); see
// cli/python_forward.h for how it is run. The report's exit code (0, or 2 for bad
// input or arguments) is pmemids's.
#include "cli/commands.h"
#include "cli/python_forward.h"

namespace pmemids {

void add_report_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand(
      "report", "Figures, tables and index.html from result files (pmemids report --help)");
  sub->prefix_command();  // everything after `report` is the Python report's
  sub->set_help_flag();   // so is --help
  sub->callback([sub] { forward_to_python("report", "pmemids_report", sub->remaining()); });
}

}  // namespace pmemids
