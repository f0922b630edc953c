// The keys a sweep file may use for the options of the command it runs
// (`pmemids run` unless the file says `command = "micro persist"`), derived from
// the options the command registers (add_run_options for run: an option added
// to a command is accepted here without further change), and parsing of
// argument vectors exactly as the command parses them, without running
// anything.
//
// A key is an option's long name without the dashes. The canonical spelling
// uses dashes (`thread-mode`, as on the command line); underscores are accepted
// (`thread_mode`). Options without a long name (-p) are not keys, and a few
// options are refused in sweeps (refused_key()).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace pmemids::sweep {

struct OptionKey {
  std::string name;         // canonical: long name, dashes
  bool flag = false;        // takes no value: true adds the flag, false leaves it out
  bool repeatable = false;  // may be given several times (--workload)
  bool required = false;    // every configuration must have it
  std::string accepted;     // type, checks and help text, for messages
};

// Underscores become dashes.
std::string canonical_key(std::string_view key);

// Why `key` (either spelling) cannot be set in a sweep file, or nullptr:
//   out     the sweep's --out decides where records go;
//   reopen  every configuration runs in a fresh pool directory of its own;
//   help    not an option of a run.
const char* refused_key(std::string_view key);

// Registers a command's options on a bare app; returns what must outlive the
// parse (the options struct the app writes into).
using OptionsRegistrar = std::function<std::shared_ptr<void>(CLI::App&)>;

class RunKeys {
 public:
  RunKeys();  // `pmemids run`: reads add_run_options()
  // Another command, e.g. {"micro", "persist"}, with its options' registrar.
  RunKeys(std::vector<std::string> command, OptionsRegistrar registrar);

  // The command words after `pmemids`; {"run"} by default.
  const std::vector<std::string>& command() const { return command_; }
  bool is_run() const { return command_ == std::vector<std::string>{"run"}; }
  // "run", "micro persist".
  std::string command_text() const;

  // The option for `key` (either spelling), or nullptr.
  const OptionKey* find(std::string_view key) const;
  const std::vector<OptionKey>& options() const { return options_; }
  // Every key, comma-separated, for messages.
  std::string names() const;

  // Parses `args` (no program or sub-command name) as the command would.
  // With require_all false, required options may be missing (checking a single
  // option). Throws UsageError carrying CLI11's message on any error.
  void parse(const std::vector<std::string>& args, bool require_all) const;

 private:
  std::vector<std::string> command_;
  OptionsRegistrar registrar_;
  std::vector<OptionKey> options_;
};

}  // namespace pmemids::sweep
