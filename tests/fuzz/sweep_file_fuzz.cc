// libFuzzer target: the sweep file parser (TOML -> SweepSpec) and the expansion
// of its matrix, fed a sweep file's text. Every input must end in
// configurations or a UsageError; any other exception, a crash, or undefined
// behaviour (the build adds ASan and UBSan) is a finding. Expansion stops after
// a few thousand configurations so that each input stays fast.
#include <cstddef>
#include <cstdint>
#include <string>

#include "errors.h"
#include "sweep/expand.h"
#include "sweep/run_keys.h"
#include "sweep/sweep_file.h"

namespace {

struct Enough {};
constexpr size_t kMaxExpanded = 4096;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const pmemids::sweep::RunKeys keys;
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const char* scale : {"default", "paper"}) {
    try {
      const auto spec = pmemids::sweep::parse_sweep_text(text, "fuzz.toml", scale, keys);
      size_t n = 0;
      pmemids::sweep::expand_each(spec, [&](pmemids::sweep::Configuration&& c) {
        (void)pmemids::sweep::short_text(c);
        (void)pmemids::sweep::shell_join(pmemids::sweep::run_args(c, spec, "/tmp/pools"));
        if (++n == kMaxExpanded) throw Enough{};
      });
    } catch (const pmemids::UsageError&) {
    } catch (const Enough&) {
    }
  }
  return 0;
}
