// pmemids: benchmarks indexing data structures on persistent memory.
// Exit codes: 0 success, 1 runtime failure, 2 usage or configuration error,
// 3 crash consistency violations with `crash --fail-on-violation`, or a
// significant regression with `compare --fail-on-regression`.
#include <fmt/format.h>

#include <cstring>
#include <string>

#include "cli/commands.h"
#include "errors.h"
#include "options/run_options.h"
#include "run/context.h"
#include "util/escape.h"

namespace {

// "unknown command 'frobnicate'; ..." when the first argument names no command
// (CLI11 only says that a subcommand is required).
std::string unknown_command(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0) return "";
  std::string names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == argv[1]) return "";
    names += (names.empty() ? "" : ", ") + sub->get_name();
  }
  return fmt::format("unknown {} '{}'; commands: {}", argv[1][0] == '-' ? "option" : "command",
                     pmemids::escape_control(argv[1]), names);
}

}  // namespace

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
  pmemids::add_micro_command(app);
  pmemids::add_doctor_command(app);
  pmemids::add_reproduce_command(app);
  pmemids::add_stream_command(app);
  pmemids::add_compare_command(app);
  pmemids::add_locate_command(app);
  pmemids::add_completion_command(app);
  // YCSB's one-dash long options (-threads, -target), as its users type them.
  std::vector<std::string> words = pmemids::ycsb_long_flags(argc, argv);
  std::vector<char*> args;
  for (auto& w : words) args.push_back(w.data());
  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    const std::string unknown = unknown_command(app, argc, argv);
    // The help of the subcommand being parsed, else the command list.
    const auto subs = app.get_subcommands();
    const std::string help = subs.empty()
                                 ? "pmemids --help' or 'pmemids run --help"
                                 : fmt::format("pmemids {} --help", subs.front()->get_name());
    fmt::print(stderr, "pmemids: error: {}\n(run '{}')\n",
               unknown.empty() ? pmemids::escape_control(e.what()) : unknown, help);
    return 2;
  } catch (const pmemids::Error& e) {
    fmt::print(stderr, "pmemids: error: {}\n", pmemids::escape_control(e.what()));
    return e.exit_code();
  } catch (const std::exception& e) {
    fmt::print(stderr, "pmemids: error: {}\n", pmemids::escape_control(e.what()));
    return 1;
  }
  return 0;
}
