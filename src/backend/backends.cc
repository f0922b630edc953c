#include "backend/backends.h"

#include <fmt/format.h>

#include "errors.h"

namespace pmemids {

std::string_view mode_name(Mode m) { return mode_info(m).name; }

std::string durable_mode_names(std::string_view separator) {
  return mode_names([](const ModeInfo& i) { return i.durable; }, separator);
}

std::vector<Mode> durable_modes() {
  std::vector<Mode> out;
  for (const ModeInfo& i : kModeInfo) {
    if (i.durable) out.push_back(i.mode);
  }
  return out;
}

std::optional<Mode> mode_named(std::string_view name) {
  for (const ModeInfo& i : kModeInfo) {
    if (i.name == name) return i.mode;
  }
  return std::nullopt;
}

Mode find_mode(std::string_view name) {
  if (const auto m = mode_named(name)) return *m;
  throw UsageError(fmt::format("unknown mode '{}'; choose from: {}", name,
                               mode_names([](const ModeInfo&) { return true; })));
}

}  // namespace pmemids
