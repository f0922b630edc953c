// `pmemids locate KIND NAME... [--from FILE]` (hidden): where the shipped-file rule
// of util/shipped_files.h finds each name, one JSON object per line
// {"kind", "written", "path", "hash"}, so that `pmemids reproduce` (Python) finds
// claim and sweep files by the binary's one implementation. Exit 2 for a name
// found nowhere (the message lists the places searched).
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "errors.h"
#include "util/shipped_files.h"

namespace pmemids {
namespace {

struct LocateOptions {
  std::string kind;
  std::vector<std::string> names;
  std::string from;
};

void locate(const LocateOptions& o) {
  ShippedKind kind{};
  if (!parse_shipped_kind(o.kind, kind)) {
    throw UsageError(
        fmt::format("locate: kind '{}'; accepted: workload, sweep, claim, script", o.kind));
  }
  for (const auto& name : o.names) {
    const ShippedFile f = locate_shipped(name, kind, o.from);
    fmt::print("{}\n",
               nlohmann::json{{"kind", o.kind},
                              {"written", f.written},
                              {"path", f.path},
                              {"hash", f.hash.empty() ? nlohmann::json() : nlohmann::json(f.hash)}}
                   .dump());
  }
}

}  // namespace

void add_locate_command(CLI::App& app) {
  auto o = std::make_shared<LocateOptions>();
  CLI::App* sub = app.add_subcommand(
      "locate", "Where a shipped file is found (workload, sweep, claim, script); for scripts");
  sub->group("");  // hidden: `pmemids reproduce` asks it, users need not
  sub->add_option("kind", o->kind, "workload, sweep, claim or script")->required();
  sub->add_option("names", o->names,
                  "Names as written (a bare name is looked up in the "
                  "kind's directory)")
      ->required();
  sub->add_option("--from", o->from, "The file that names them (its directory is searched too)");
  sub->callback([o] { locate(*o); });
}

}  // namespace pmemids
