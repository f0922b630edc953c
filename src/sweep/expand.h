// From a SweepSpec to the list of configurations it names: ranges, the
// cartesian product, excludes, and each configuration's canonical argument
// list and id.
//
// Product order: the spec's options (top level, then [matrix], in file order),
// then its properties; the first key varies slowest, the last fastest.
//
// config_id: 16 lower-case hex digits, the 64-bit FNV-1a hash of the canonical
// arguments joined by NUL bytes (preceded by the command words when the sweep's
// command is not `run`). Canonical arguments: options sorted by key,
// each `--key value` (a flag: `--key` when true, nothing when false; a list of
// workload files: `--workload f` per file, in the given order), then
// `-p key=value` sorted by key; values in value_text() form, paths as written
// in the file. The id therefore depends on what a configuration sets, not on
// key order or spelling in the file, the sweep file's name, the scale, the
// sweep's --pool-dir or where workload files were found.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "sweep/sweep_file.h"

namespace pmemids::sweep {

// "a:b" (step 1), "a:s:b" (add s > 0), "a:*f:b" (multiply by f > 1, a > 0);
// integers, a <= b, b included when reached. UsageError "'<text>': <what>;
// accepted: ..." (the caller adds file and key).
std::vector<int64_t> parse_range(const std::string& text);

// The same forms over decimal numbers ("0:0.1:1" is 0, 0.1, ..., 1): each value
// is a + i*s (or a*f^i), rounded to 12 significant digits so that decimal steps
// land on their decimal values, b included when within 1e-9 of it. Used for
// option lists (pmemids micro --hit-ratio), not for sweep matrices.
std::vector<double> parse_decimal_range(const std::string& text);

// A string in [matrix] or [properties] is a range when it contains ':'.
bool is_range(const std::string& text);

using KeyValues = std::vector<std::pair<std::string, Value>>;

struct Configuration {
  size_t index = 0;                // position in the expanded list, from 0
  KeyValues options;               // sorted by key
  KeyValues properties;            // sorted by key
  std::vector<std::string> swept;  // keys with more than one value in the sweep, spec order
  std::vector<std::string> args;   // canonical arguments (see above)
  std::string id;                  // config_id(args)

  const Value* option(const std::string& key) const;
  const Value* property(const std::string& key) const;
};

// At most this many configurations (before excludes) in one sweep.
inline constexpr uint64_t kMaxConfigurations = 1000000;

// Every combination not dropped by an exclude, in product order. UsageError when
// the product exceeds kMaxConfigurations or two configurations get the same id.
std::vector<Configuration> expand(const SweepSpec& spec);

// The same, one configuration at a time, as they are expanded (for --dry-run
// to print at once and for estimates, without holding them all). Without
// `complete`, configurations carry their index and values only (no sorted
// keys, arguments or id, and ids are not checked): a fast count.
void expand_each(const SweepSpec& spec, const std::function<void(Configuration&&)>& each,
                 bool complete = true);

std::string config_id(const std::vector<std::string>& canonical_args);

// The arguments of the sweep's command (`pmemids run`) for `c` (without --out): the canonical ones
// with workload files replaced by the paths found for them and, when pool_dir
// is not empty, `--pool-dir pool_dir` instead of any pool-dir `c` sets.
std::vector<std::string> run_args(const Configuration& c, const SweepSpec& spec,
                                  const std::string& pool_dir);

// "ds=btree mode=dram threads=4": the swept keys (workload files by file name);
// ds and mode when nothing is swept.
std::string short_text(const Configuration& c);

// `args` as one shell-quoted line.
std::string shell_join(const std::vector<std::string>& args);

}  // namespace pmemids::sweep
