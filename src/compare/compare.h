// `pmemids compare`: two result files' repetitions of the same configurations,
// side by side, with a significance test.
//
// A configuration is a run record's `config` without the keys that tell
// repetitions, outputs or seeds apart (kNotIdentity, plus any --ignore), and
// without keys that only one of the two files has (older or newer record
// versions; they are listed). A run record's keys of operation sets other
// than its own and knobs of structures other than its own (which records of
// older versions carry, registry/config_keys.h) are dropped as it is read. Ignoring a key also
// ignores the keys pmemids derives from it (kDerivedKeys: --ignore flush ignores flush_auto and
// flush_instruction), and a key pmemids grows while running (kGrownKeys:
// ops_per_thread under micro --min-time) is matched on the value asked. Warm-up, aggregate and
// skipped records are not repetitions and are left out. Per configuration found in both files: the
// median ops_per_sec of each side, new / base, the two-sided Mann-Whitney U
// p-value of NEW's repetitions against BASE's, a verdict at `alpha` (faster or
// slower when p < alpha, else same; "too few repetitions" when the sample
// sizes cannot reach p < alpha at all, e.g. 3 vs 3, whose best p is 0.1) and
// the median of every `*_per_op` metric of each side (null where never
// observed). Configurations found in one file only are listed, never dropped.
#pragma once

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "stats/mann_whitney.h"

namespace pmemids {

// Config keys that are never part of a configuration's identity.
extern const std::set<std::string> kNotIdentity;
// Config keys pmemids derives from a key the user chose: derived -> chosen.
extern const std::map<std::string, std::string> kDerivedKeys;
// Config keys pmemids grows while running, with the key that records the value asked.
extern const std::map<std::string, std::string> kGrownKeys;

struct RunRecord {
  size_t line;
  nlohmann::json config;
  nlohmann::json metrics;
};

struct RecordFile {
  std::string path;
  std::vector<RunRecord> runs;
  size_t not_repetitions = 0;  // warm-up, aggregate and skipped records
};

// UsageError "<file>:<line>: <what>; expected <what>" for a line that is not
// JSON or not a pmemids record, and for a file without run records.
RecordFile read_record_file(const std::string& path);

enum class Verdict { kFaster, kSlower, kSame, kTooFew };
const char* verdict_name(Verdict v);

struct Side {
  std::vector<double> ops_per_sec;  // in file order
  double median = 0;
  nlohmann::json costs;  // *_per_op -> median, or null
};

struct Row {
  nlohmann::json config;  // the identity
  std::string label;      // ds, mode, workload and the keys that vary
  Side base, fresh;
  double ratio = 0;  // fresh.median / base.median (NaN when base's is 0)
  MannWhitney test;
  double min_p = 0;  // the smallest p these sample sizes can give
  Verdict verdict = Verdict::kSame;
};

struct Comparison {
  double alpha = 0.05;
  std::vector<Row> rows;               // in BASE's order of first appearance
  std::vector<std::string> only_base;  // labels
  std::vector<std::string> only_new;
  std::vector<std::string> keys_only_base;  // config keys left out of the identity
  std::vector<std::string> keys_only_new;
  std::set<std::string> ignored;  // --ignore keys and the keys derived from them
};

Comparison compare(const RecordFile& base, const RecordFile& fresh, double alpha,
                   const std::set<std::string>& ignore);

// Rows slower by more than `pct` percent (ratio < 1 - pct / 100) with verdict slower.
std::vector<const Row*> regressions(const Comparison& c, double pct);

// Why a regression gate over `c` could not fail whatever the numbers (no shared
// configuration, or none with enough repetitions to reach alpha); empty when
// at least one configuration can reach a verdict.
std::string nothing_compared(const Comparison& c);

nlohmann::json to_json(const Comparison& c, const RecordFile& base, const RecordFile& fresh);
std::string to_text(const Comparison& c, const RecordFile& base, const RecordFile& fresh);

}  // namespace pmemids
