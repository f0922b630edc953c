// `pmemids compare BASE NEW`: the configurations two result files share, BASE's
// repetitions against NEW's (compare/compare.h). Prints a table, or JSON with
// --json; exit 0, or 3 with --fail-on-regression PCT when a configuration is
// significantly slower by more than PCT percent; 2 for unreadable input, and
// for a --fail-on-regression that compared nothing (no shared configuration,
// or too few repetitions everywhere to reach a verdict): a gate that cannot fail.
#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <optional>
#include <set>

#include "cli/commands.h"
#include "compare/compare.h"
#include "errors.h"
#include "options/validators.h"

namespace pmemids {
namespace {

struct CompareOptions {
  std::string base, fresh;
  bool json = false;
  double alpha = 0.05;
  std::optional<double> fail_pct;
  std::vector<std::string> ignore;
};

void compare_files(const CompareOptions& o) {
  const RecordFile base = read_record_file(o.base);
  const RecordFile fresh = read_record_file(o.fresh);
  const Comparison c =
      compare(base, fresh, o.alpha, std::set<std::string>(o.ignore.begin(), o.ignore.end()));
  if (o.json) {
    nlohmann::json j = to_json(c, base, fresh);
    if (o.fail_pct) j["fail_on_regression_pct"] = *o.fail_pct;
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{}", to_text(c, base, fresh));
  }
  std::fflush(stdout);
  if (!o.fail_pct) return;
  if (const std::string why = nothing_compared(c); !why.empty()) {
    throw UsageError(fmt::format("--fail-on-regression {} compared nothing: {}", *o.fail_pct, why));
  }
  const auto slow = regressions(c, *o.fail_pct);
  for (const Row* r : slow) {
    fmt::print(stderr, "pmemids: regression: {}: {:.1f}% slower (p = {:.3g})\n", r->label,
               100 * (1 - r->ratio), r->test.p);
  }
  if (!slow.empty()) {
    throw Error(3, fmt::format("{} configuration(s) significantly slower by more than {}% "
                               "(--fail-on-regression)",
                               slow.size(), *o.fail_pct));
  }
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* sub = app.add_subcommand(
      "compare", "Compare two result files configuration by configuration (Mann-Whitney U)");
  sub->add_option("BASE", o->base, "Result file (JSON lines) to compare against")->required();
  sub->add_option("NEW", o->fresh, "Result file (JSON lines) to compare")->required();
  sub->add_flag("--json", o->json, "Write the comparison as JSON");
  sub->add_option("--alpha", o->alpha, "Significance level of the verdicts (default 0.05)")
      ->check(finite_range(1e-6, 0.5));
  sub->add_option("--fail-on-regression", o->fail_pct,
                  "Exit 3 when a configuration is significantly slower by more than PCT percent")
      ->check(finite_range(0.0, 100.0));
  sub->add_option("--ignore", o->ignore,
                  "Config key to leave out when matching configurations, with the keys derived "
                  "from it (repeatable)")
      ->check(non_empty());
  sub->callback([o] { compare_files(*o); });
}

}  // namespace pmemids
