// pmemids: benchmarks indexing data structures on persistent memory.
// Exit codes: 0 success, 1 runtime failure, 2 usage or configuration error,
// 3 crash consistency violations with `crash --fail-on-violation`.
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/run_options.h"
#include "errors.h"
#include "run/context.h"

int main(int argc, char** argv) {
  CLI::App app{"pmemids: indexing data structures on persistent memory, measured"};
  app.require_subcommand(1);
  app.set_version_flag("--version", pmemids::version_text());
  // Every option of every command shows its default in --help (subcommands
  // inherit this when they are created below).
  app.option_defaults()->always_capture_default();
  pmemids::add_run_command(app);
  pmemids::add_list_command(app);
  pmemids::add_report_command(app);
  pmemids::add_sweep_command(app);
  pmemids::add_crash_command(app);
  pmemids::add_completion_command(app);
  // YCSB's one-dash long options (-threads, -target), as its users type them.
  std::vector<std::string> words = pmemids::ycsb_long_flags(argc, argv);
  std::vector<char*> args;
  for (auto& w : words) args.push_back(w.data());
  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    fmt::print(stderr, "pmemids: error: {}\n(run 'pmemids --help' or 'pmemids run --help')\n",
               e.what());
    return 2;
  } catch (const pmemids::Error& e) {
    fmt::print(stderr, "pmemids: error: {}\n", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    fmt::print(stderr, "pmemids: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
