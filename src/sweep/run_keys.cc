#include "sweep/run_keys.h"

#include <CLI/CLI.hpp>
#include <algorithm>

#include "errors.h"
#include "options/run_options.h"
#include "registry/registry.h"

namespace pmemids::sweep {
namespace {

std::shared_ptr<void> add_run(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  add_run_options(&app, *o, all_knobs());
  return o;
}

}  // namespace

const char* refused_key(std::string_view key) {
  const std::string k = canonical_key(key);
  if (k == "out") return "not allowed in a sweep file: the sweep's --out decides where records go";
  if (k == "reopen") {
    return "not supported in a sweep: every configuration runs in a fresh pool directory of its "
           "own";
  }
  if (k == "help") return "not an option of a run";
  return nullptr;
}

std::string canonical_key(std::string_view key) {
  std::string k(key);
  std::replace(k.begin(), k.end(), '_', '-');
  return k;
}

RunKeys::RunKeys() : RunKeys({"run"}, add_run) {}

RunKeys::RunKeys(std::vector<std::string> command, OptionsRegistrar registrar)
    : command_(std::move(command)), registrar_(std::move(registrar)) {
  CLI::App app;
  app.set_help_flag();
  const std::shared_ptr<void> holder = registrar_(app);
  for (const CLI::Option* opt : app.get_options()) {
    const auto& lnames = opt->get_lnames();
    if (lnames.empty() || refused_key(lnames.front()) != nullptr) continue;
    OptionKey k;
    k.name = lnames.front();
    k.flag = opt->get_expected_min() == 0;
    k.repeatable = opt->get_expected_max() >= CLI::detail::expected_max_vector_size;
    k.required = opt->get_required();
    std::string type = opt->get_type_name();
    if (const auto colon = type.find(':'); colon != std::string::npos)
      type = type.substr(colon + 1);
    if (k.flag) type = "true or false";
    k.accepted = type.empty() ? opt->get_description() : type + " (" + opt->get_description() + ")";
    options_.push_back(std::move(k));
  }
}

const OptionKey* RunKeys::find(std::string_view key) const {
  const std::string k = canonical_key(key);
  for (const auto& o : options_) {
    if (o.name == k) return &o;
  }
  return nullptr;
}

std::string RunKeys::names() const {
  std::string out;
  for (const auto& o : options_) out += (out.empty() ? "" : ", ") + o.name;
  return out;
}

std::string RunKeys::command_text() const {
  std::string out;
  for (const auto& w : command_) out += (out.empty() ? "" : " ") + w;
  return out;
}

void RunKeys::parse(const std::vector<std::string>& args, bool require_all) const {
  CLI::App app;
  app.set_help_flag();
  const std::shared_ptr<void> holder = registrar_(app);
  if (!require_all) {
    for (CLI::Option* opt : app.get_options()) opt->required(false);
  }
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 parses a reversed vector
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
}

}  // namespace pmemids::sweep
