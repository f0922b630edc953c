// `pmemids micro <bench>` and `pmemids micro all`: in-process micro-benchmarks
// of the persistence primitives (src/micro, docs/micro.md).
#include <fmt/format.h>

#include <memory>
#include <string>
#include <string_view>

#include "cli/commands.h"
#include "errors.h"
#include "micro/driver.h"
#include "micro/libpmem_env.h"
#include "util/escape.h"

namespace pmemids {
namespace {

// The bench's own options are parsed by its subcommand; anything left over
// reached `micro` only because it allows extras (for the bench name): refused
// before the bench runs.
void refuse_extras(const CLI::App* micro_app, const CLI::App* sub, std::string_view bench) {
  auto extras = sub->remaining();
  for (auto& e : micro_app->remaining()) extras.push_back(e);
  if (extras.empty()) return;
  std::string all;
  for (const auto& e : extras) all += (all.empty() ? "" : " ") + e;
  throw UsageError(fmt::format("micro {}: unknown argument(s) {}; see 'pmemids micro {} --help'",
                               bench, escape_control(all), bench));
}

}  // namespace

void add_micro_command(CLI::App& app) {
  micro::start_env();  // libpmem's environment as the process started, before anything sets it
  CLI::App* micro_app =
      app.add_subcommand("micro", "Micro-benchmarks of the persistence primitives (docs/micro.md)");
  // A bench name CLI11 does not know arrives as an extra: refused naming the benches.
  micro_app->require_subcommand(0, 1);
  micro_app->allow_extras();
  micro_app->callback([micro_app] {
    if (!micro_app->get_subcommands().empty()) return;
    const auto extras = micro_app->remaining();
    if (!extras.empty()) micro::find_bench(extras.front());
    micro::find_bench("");
  });
  for (const micro::BenchSpec& b : micro::benches()) {
    auto o = std::make_shared<micro::MicroOptions>();
    CLI::App* sub = micro_app->add_subcommand(
        std::string(b.name), std::string(b.summary) + " (" + std::string(b.seeds) + ")");
    micro::add_micro_options(sub, *o, &b);
    sub->callback([o, &b, micro_app, sub] {
      refuse_extras(micro_app, sub, b.name);
      micro::run_micro({micro::resolve(b, *o, false)}, *o);
    });
  }
  auto o = std::make_shared<micro::MicroOptions>();
  CLI::App* all = micro_app->add_subcommand(
      "all", "Every bench on its default grid (the default scale), or a small one with --quick");
  micro::add_micro_options(all, *o, nullptr);
  all->callback([o, micro_app, all] {
    refuse_extras(micro_app, all, "all");
    std::vector<micro::Resolved> selection;
    for (const micro::BenchSpec& b : micro::benches())
      selection.push_back(micro::resolve(b, *o, true));
    micro::run_micro(selection, *o);
  });
}

}  // namespace pmemids
