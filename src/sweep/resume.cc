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

// A line's "sweep" object: record `record` of the `records` of configuration
// `id`'s group (of repetition `repetition`, or -1: every repetition).
struct Stamp {
  std::string id;
  size_t record = 0;
  size_t records = 0;
  int repetition = -1;
};

std::optional<Stamp> stamp_of(const nlohmann::json& rec) {
  const auto s = rec.find("sweep");
  if (s == rec.end() || !s->is_object() || !s->contains("config_id") ||
      !(*s)["config_id"].is_string() || !s->contains("record") || !(*s)["record"].is_number() ||
      !s->contains("records") || !(*s)["records"].is_number()) {
    return std::nullopt;
  }
  const auto rep = s->find("repetition");
  return Stamp{.id = (*s)["config_id"],
               .record = (*s)["record"],
               .records = (*s)["records"],
               .repetition = rep != s->end() && rep->is_number_integer() ? rep->get<int>() : -1};
}

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

// Reads the output line by line into `scan`, one group at a time.
class Scanner {
 public:
  explicit Scanner(OutputScan& scan) : scan_(scan) {}

  // The whole line `text`, at [pos, end) of the output (end past its '\n').
  void line(std::string_view text, uint64_t pos, uint64_t end) {
    const auto rec = nlohmann::json::parse(text, nullptr, false);
    const bool blank = text.find_first_not_of(" \t\r") == std::string_view::npos;
    if (blank || !rec.is_object()) {
      drop_open_group(pos);
      if (!blank) ++scan_.ignored;
      scan_.keep_bytes = end;
      return;
    }
    ++scan_.lines;
    const std::optional<Stamp> st = stamp_of(rec);
    if (!st) {
      drop_open_group(pos);
      scan_.keep_bytes = end;
      return;
    }
    if (st->record == 0) {
      drop_open_group(pos);
      open_group(rec, *st, pos);
    } else if (!g_.open || g_.id != st->id || g_.repetition != st->repetition ||
               g_.expected != st->record || g_.total != st->records) {
      drop_open_group(pos);
      ++scan_.ignored;
      scan_.keep_bytes = end;
      return;
    }
    ++g_.lines;
    g_.expected = st->record + 1;
    if (!rec.contains("warmup") && !rec.contains("aggregate")) g_.measured = rec;
    if (g_.lines == g_.total) close_group(rec.at("sweep"), end);
  }

  // An open group here, and anything after the last '\n', is the torn end of the file.
  void end() {
    if (g_.open) scan_.ignored += g_.lines;
  }

 private:
  void drop_open_group(uint64_t keep) {
    if (!g_.open) return;
    scan_.ignored += g_.lines;
    g_ = Group{};
    scan_.keep_bytes = keep;  // a torn group followed by more lines stays in place
  }

  void open_group(const nlohmann::json& rec, const Stamp& st, uint64_t pos) {
    g_.open = true;
    g_.start = pos;
    g_.id = st.id;
    g_.repetition = st.repetition;
    g_.kind = rec.value("skipped", false)  ? "skipped"
              : rec.value("failed", false) ? "failed"
                                           : "ok";
    g_.total = st.records;
  }

  void close_group(const nlohmann::json& sweep, uint64_t end) {
    note_round(sweep, scan_);
    if (g_.kind == "ok" && g_.repetition >= 0) {
      scan_.ok_repetitions[g_.id][g_.repetition] = std::move(g_.measured);
    } else {
      (g_.kind == "ok"        ? scan_.ok
       : g_.kind == "skipped" ? scan_.skipped
                              : scan_.failed)
          .insert(g_.id);
    }
    g_ = Group{};
    scan_.keep_bytes = end;
  }

  OutputScan& scan_;
  Group g_;
};

}  // namespace

OutputScan scan_output(std::string_view content) {
  OutputScan scan;
  scan.size = content.size();
  Scanner scanner(scan);
  uint64_t pos = 0;
  for (size_t nl; (nl = content.find('\n', pos)) != std::string_view::npos; pos = nl + 1) {
    scanner.line(content.substr(pos, nl - pos), pos, nl + 1);
  }
  scanner.end();
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
