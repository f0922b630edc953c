// `pmemids completion bash`: a bash completion script generated from the
// command-line definitions themselves (every command and option registered on
// the CLI11 app, the structure, mode and lock names of the registries, the
// workload property names), so it cannot fall behind the binary. CMake's
// install() runs it to install the script next to the binary
// (share/bash-completion/completions/pmemids); `source <(pmemids completion
// bash)` loads it into the current shell.
//
// What is completed: the command after `pmemids`; each command's options; the
// values of an option that has a fixed set (--ds, --mode, --lock, and every
// option checked with CLI::IsMember), comma lists item by item for --ds and
// --mode; `-p` with a property name and '='; directories for options of type
// DIR, file names for options of type FILE and for positional arguments;
// nothing for the others (numbers, sizes).
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "registry/registry.h"
#include "run/context.h"
#include "run/locks.h"
#include "workload/properties.h"

namespace pmemids {
namespace {

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::vector<std::string> names(const CLI::Option& opt) {
  std::vector<std::string> out;
  for (const auto& s : opt.get_snames()) out.push_back("-" + s);
  for (const auto& l : opt.get_lnames()) out.push_back("--" + l);
  return out;
}

// "{a,b,c}" in an option's type name: the set of a CLI::IsMember check.
std::vector<std::string> member_words(const CLI::Option& opt) {
  const std::string type = opt.get_type_name();
  const auto open = type.find('{');
  const auto close = type.find('}', open);
  std::vector<std::string> out;
  if (open == std::string::npos || close == std::string::npos) return out;
  const std::string set = type.substr(open + 1, close - open - 1);
  for (size_t start = 0; start <= set.size();) {
    const size_t comma = std::min(set.find(',', start), set.size());
    out.push_back(set.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

struct Values {
  enum Kind { kWords, kList, kProperty, kDirs, kFiles, kNone } kind;
  std::vector<std::string> words;
};

Values values_of(const std::string& command, const CLI::Option& opt) {
  const auto& l = opt.get_lnames();
  const std::string name = l.empty() ? "" : l.front();
  if (name == "ds") {
    std::vector<std::string> w;
    if (command == "crash") {
      for (const auto& e : registry()) {
        if (e.crash_testable()) w.emplace_back(e.name);
      }
    } else {
      for (const auto& e : registry()) w.emplace_back(e.name);
      w.emplace_back("all");
    }
    return {Values::kList, w};
  }
  if (name == "mode") {
    std::vector<std::string> w;
    for (Mode m : kAllModes) {
      if (command != "crash" || durable(m)) w.emplace_back(mode_name(m));
    }
    if (command != "crash") w.emplace_back("all");
    return {Values::kList, w};
  }
  if (name == "lock") {
    std::vector<std::string> w;
    for (LockKind k : kAllLockKinds) w.emplace_back(lock_name(k));
    return {Values::kWords, w};
  }
  if (opt.get_snames() == std::vector<std::string>{"p"} && l.empty()) {
    std::vector<std::string> w;
    for (const auto& k : PropertySet::known_keys()) w.push_back(k + "=");
    return {Values::kProperty, w};
  }
  if (auto w = member_words(opt); !w.empty()) return {Values::kWords, w};
  const std::string type = opt.get_type_name();
  if (type.starts_with("DIR")) return {Values::kDirs, {}};
  if (type.starts_with("FILE")) return {Values::kFiles, {}};
  return {Values::kNone, {}};
}

std::string reply(const Values& v) {
  switch (v.kind) {
    case Values::kWords:
      return fmt::format("COMPREPLY=($(compgen -W \"{}\" -- \"$cur\"))", join(v.words));
    case Values::kList:
      return fmt::format("_pmemids_list \"{}\"", join(v.words));
    case Values::kProperty:
      return fmt::format("COMPREPLY=($(compgen -W \"{}\" -- \"$cur\")); compopt -o nospace",
                         join(v.words));
    case Values::kDirs:
      return "COMPREPLY=($(compgen -d -- \"$cur\"))";
    case Values::kFiles:
      return "COMPREPLY=($(compgen -f -- \"$cur\"))";
    case Values::kNone:
      break;
  }
  return ":";
}

// The case arm of one command: its options, the values each takes, and what
// a word that is not an option completes to.
std::string command_arm(const CLI::App& sub) {
  std::vector<std::string> opts;
  std::string value_cases;
  bool positional = sub.get_prefix_command();
  for (const CLI::Option* opt : sub.get_options()) {
    if (opt->get_positional()) {
      positional = true;
      continue;
    }
    const auto n = names(*opt);
    opts.insert(opts.end(), n.begin(), n.end());
    if (opt->get_expected_min() == 0) continue;  // a flag
    std::string pattern;
    for (const auto& s : n) pattern += (pattern.empty() ? "" : "|") + s;
    value_cases +=
        fmt::format("        {}) {}; return ;;\n", pattern, reply(values_of(sub.get_name(), *opt)));
  }
  if (sub.get_prefix_command() && std::find(opts.begin(), opts.end(), "--help") == opts.end()) {
    opts.emplace_back("--help");
  }
  std::string arm = fmt::format("    {})\n      opts=\"{}\"\n", sub.get_name(), join(opts));
  if (!value_cases.empty()) arm += "      case $prev in\n" + value_cases + "      esac\n";
  if (positional) arm += "      files=1\n";
  return arm + "      ;;\n";
}

std::string bash_completion(const CLI::App& app) {
  std::vector<std::string> commands;
  std::string arms;
  for (const CLI::App* sub : app.get_subcommands({})) {
    commands.push_back(sub->get_name());
    arms += command_arm(*sub);
  }
  std::vector<std::string> top = commands;
  for (const CLI::Option* opt : app.get_options()) {
    const auto n = names(*opt);
    top.insert(top.end(), n.begin(), n.end());
  }
  std::string command_pattern;
  for (const auto& c : commands) command_pattern += (command_pattern.empty() ? "" : "|") + c;
  std::string version = version_text();
  version = version.substr(0, version.find('\n'));
  return fmt::format(
      R"(# bash completion for pmemids: generated by `pmemids completion bash` from the
# command-line definitions of {} (regenerate it, do not edit it).

# Completes the last item of a comma-separated list: --ds btree,rb<TAB>
_pmemids_list() {{
  local pre=
  [[ $cur == *,* ]] && pre=${{cur%,*}},
  COMPREPLY=($(compgen -P "$pre" -W "$1" -- "${{cur##*,}}"))
}}

_pmemids() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}}
  local cmd= opts= files= i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${{COMP_WORDS[i]}} in
      {}) cmd=${{COMP_WORDS[i]}}; break ;;
    esac
  done
  case $cmd in
{}    *)
      opts="{}"
      ;;
  esac
  if [[ -n $files && $cur != -* ]]; then
    COMPREPLY=($(compgen -f -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  fi
}}

complete -o filenames -F _pmemids pmemids
)",
      version, command_pattern, arms, join(top));
}

}  // namespace

void add_completion_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand(
      "completion", "Print the bash completion script (installed with the binary)");
  auto shell = std::make_shared<std::string>("bash");
  sub->add_option("shell", *shell, "Shell")->check(CLI::IsMember({"bash"}));
  sub->callback([&app, shell] { fmt::print("{}", bash_completion(app)); });
}

}  // namespace pmemids
