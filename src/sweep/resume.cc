#include "sweep/resume.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace pmemids::sweep {
namespace {

struct Group {
  bool open = false;
  uint64_t start = 0;  // offset of its first line
  std::string id;
  int repetition = -1;      // -1: every repetition
  nlohmann::json measured;  // an interleaved group's measured record
  std::string kind;         // ok, skipped, failed
  size_t expected = 0;
  size_t total = 0;
  size_t lines = 0;
};

// The round fields of a whole group's sweep object.
void note_round(const nlohmann::json& s, OutputScan& scan) {
  const auto seed = s.find("order_seed");
  if (seed != s.end() && seed->is_number_unsigned()) scan.order_seed = seed->get<uint64_t>();
  const auto cal = s.find("round_calibration_s");
  if (cal != s.end() && cal->is_number() && cal->get<double>() > 0) {
    const double v = cal->get<double>();
    scan.best_calibration_s = std::min(v, scan.best_calibration_s.value_or(v));
  }
}

}  // namespace

OutputScan scan_output(std::string_view content) {
  OutputScan scan;
  scan.size = content.size();
  Group g;
  auto drop_open_group = [&](uint64_t keep) {
    if (!g.open) return;
    scan.ignored += g.lines;
    g = Group{};
    scan.keep_bytes = keep;  // a torn group followed by more lines stays in place
  };
  uint64_t pos = 0;
  for (size_t nl; (nl = content.find('\n', pos)) != std::string_view::npos; pos = nl + 1) {
    const uint64_t end = nl + 1;
    const auto rec = nlohmann::json::parse(content.substr(pos, nl - pos), nullptr, false);
    const bool blank =
        content.substr(pos, nl - pos).find_first_not_of(" \t\r") == std::string_view::npos;
    if (blank || !rec.is_object()) {
      drop_open_group(pos);
      if (!blank) ++scan.ignored;
      scan.keep_bytes = end;
      continue;
    }
    ++scan.lines;
    const auto s = rec.find("sweep");
    if (s == rec.end() || !s->is_object() || !s->contains("config_id") ||
        !(*s)["config_id"].is_string() || !s->contains("record") || !(*s)["record"].is_number() ||
        !s->contains("records") || !(*s)["records"].is_number()) {
      drop_open_group(pos);
      scan.keep_bytes = end;
      continue;
    }
    const std::string id = (*s)["config_id"];
    const size_t j = (*s)["record"];
    const size_t m = (*s)["records"];
    const auto rep_field = s->find("repetition");
    const int rep =
        rep_field != s->end() && rep_field->is_number_integer() ? rep_field->get<int>() : -1;
    if (j == 0) {
      drop_open_group(pos);
      g.open = true;
      g.start = pos;
      g.id = id;
      g.repetition = rep;
      g.kind = rec.value("skipped", false)  ? "skipped"
               : rec.value("failed", false) ? "failed"
                                            : "ok";
      g.total = m;
    } else if (!g.open || g.id != id || g.repetition != rep || g.expected != j || g.total != m) {
      drop_open_group(pos);
      ++scan.ignored;
      scan.keep_bytes = end;
      continue;
    }
    ++g.lines;
    g.expected = j + 1;
    if (!rec.contains("warmup") && !rec.contains("aggregate")) g.measured = rec;
    if (g.lines == g.total) {
      note_round(*s, scan);
      if (g.kind == "ok" && g.repetition >= 0) {
        scan.ok_repetitions[g.id][g.repetition] = std::move(g.measured);
      } else {
        (g.kind == "ok" ? scan.ok : g.kind == "skipped" ? scan.skipped : scan.failed).insert(g.id);
      }
      g = Group{};
      scan.keep_bytes = end;
    }
  }
  // An open group here, and anything after the last '\n', is the torn end of the file.
  if (g.open) scan.ignored += g.lines;
  return scan;
}

bool already_recorded(const OutputScan& scan, const std::string& id, bool retry_skipped,
                      int repetitions) {
  if (scan.ok.count(id) != 0 || (!retry_skipped && scan.skipped.count(id) != 0)) return true;
  const auto it = scan.ok_repetitions.find(id);
  return it != scan.ok_repetitions.end() && static_cast<int>(it->second.size()) >= repetitions;
}

bool repetition_recorded(const OutputScan& scan, const std::string& id, int repetition,
                         bool retry_skipped) {
  if (scan.ok.count(id) != 0 || (!retry_skipped && scan.skipped.count(id) != 0)) return true;
  const auto it = scan.ok_repetitions.find(id);
  return it != scan.ok_repetitions.end() && it->second.count(repetition) != 0;
}

}  // namespace pmemids::sweep
