// `pmemids micro <bench>` and `pmemids micro all`: in-process micro-benchmarks
// of the persistence primitives (src/micro, docs/micro.md).
#include <memory>

#include "cli/commands.h"
#include "micro/driver.h"
#include "micro/libpmem_env.h"

namespace pmemids {

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
    sub->callback([o, &b] { micro::run_micro({micro::resolve(b, *o, false)}, *o); });
  }
  auto o = std::make_shared<micro::MicroOptions>();
  CLI::App* all = micro_app->add_subcommand(
      "all", "Every bench on its default grid (the default scale), or a small one with --quick");
  micro::add_micro_options(all, *o, nullptr);
  all->callback([o] {
    std::vector<micro::Resolved> selection;
    for (const micro::BenchSpec& b : micro::benches())
      selection.push_back(micro::resolve(b, *o, true));
    micro::run_micro(selection, *o);
  });
}

}  // namespace pmemids
