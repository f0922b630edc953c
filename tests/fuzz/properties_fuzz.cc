// libFuzzer target: the workload property parser (PropertySet), fed a property
// file's text. Every input must end in a WorkloadSpec or a UsageError; any other
// exception, a crash, or undefined behaviour (the build adds ASan and UBSan) is
// a finding. Lines of the form "-p key=value" after a line "--" are passed as
// command-line overrides, so both entry points are exercised.
#include <cstddef>
#include <cstdint>
#include <string>

#include "errors.h"
#include "workload/properties.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const size_t split = text.find("\n--\n");
  pmemids::PropertySet props;
  try {
    props.load_text(text.substr(0, split), "fuzz.properties");
    if (split != std::string::npos) {
      size_t at = split + 4;
      while (at < text.size()) {
        size_t end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        props.set_override(text.substr(at, end - at));
        at = end + 1;
      }
    }
    const pmemids::WorkloadSpec spec = props.build();
    // As result records are written (run/result.cc).
    (void)spec.to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (const pmemids::UsageError&) {
  }
  return 0;
}
