// Reading a sweep's existing output to resume it.
//
// A configuration's lines form a group: "sweep".record 0..m-1 of "records" m,
// written by one write(). A group counts only when all m lines are there and
// each line ends in '\n' and parses. Only the end of the file can hold a torn
// group (the sweep appends groups one after another and stops at the first
// failed write), so the end after the last whole line that is not part of an
// incomplete group is cut off (keep_bytes): otherwise the next append would be
// glued to a partial line. A complete line that does not parse, or an
// incomplete group, in the middle of the file is left alone and not counted.
// Lines without "sweep" (records of a plain `pmemids run`) are kept and ignored.
//
// An interleaved sweep (driver.h) writes one group per repetition of a
// configuration, its "sweep" object naming the "repetition" (from 0) of
// "repetitions"; a group without "repetition" holds every repetition.
// Its whole groups' "order_seed" and "round_calibration_s" are read too (the
// last seed, the least calibration).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace pmemids::sweep {

struct OutputScan {
  std::set<std::string> ok;  // config ids with a whole group of run records (every repetition)
  // Interleaved groups: config id -> repetition -> its measured record (not a
  // warm-up or an aggregate).
  std::map<std::string, std::map<int, nlohmann::json>> ok_repetitions;
  std::set<std::string> skipped;  // ... with a skipped record
  std::set<std::string> failed;   // ... with a failed record
  uint64_t size = 0;              // bytes read
  uint64_t keep_bytes = 0;        // bytes to keep: the rest is a torn tail
  size_t lines = 0;               // whole lines that parse
  size_t ignored = 0;             // whole lines not counted (do not parse, incomplete group)
  // Rounds (rounds.h): the order seed of the last record that has one, and the
  // shortest round calibration recorded.
  std::optional<uint64_t> order_seed;
  std::optional<double> best_calibration_s;
};

OutputScan scan_output(std::string_view content);

// Whether `id` needs no new run: recorded as ok (all `repetitions`, in one
// group or one group each), or as skipped unless retry_skipped. A failed
// configuration is run again.
bool already_recorded(const OutputScan& scan, const std::string& id, bool retry_skipped,
                      int repetitions = 1);
// Whether repetition `repetition` of `id` needs no new run: recorded in a
// group of its own or with every repetition, or the configuration skipped.
bool repetition_recorded(const OutputScan& scan, const std::string& id, int repetition,
                         bool retry_skipped);

}  // namespace pmemids::sweep
