// A sweep file: TOML naming `pmemids run` options and workload properties, some
// of them lists whose cartesian product is the sweep (docs/sweeps.md).
//
//   command = "micro persist"      top level, optional: the command each
//                                  configuration runs (default "run"); its own
//                                  options are the keys, and it has no
//                                  [properties] (read_sweep_command() reads it
//                                  first, to choose the keys)
//   <option> = value               top level: the same value in every configuration
//                                  (`workload` may be a list: files passed together)
//   [matrix] <option> = list | "a:b" range | scalar
//   [properties] <property> = scalar | list | "a:b" range   (passed as -p key=value)
//   [[exclude]] <key> = value | list   drop configurations matching every key
//                                      (a list means any of its values)
//   [scale.<name>]  same shape (top-level keys, matrix, properties, exclude);
//                   chosen with --scale <name>, its keys replace the base's
//                   wherever they are, its excludes are added
//
// parse_sweep_* checks the shape: every key known (RunKeys, or a workload
// property name for [properties]), value types fit the key (booleans only for
// flags, lists of files only for workload), ranges well formed, no key or value
// given twice. Whether an option's value is in range is left to validate(),
// which parses configurations as `run` does. Errors are UsageError
// "<file>: <key>: <what>; accepted: <...>".
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "sweep/run_keys.h"

namespace pmemids::sweep {

// One value as written: boolean, integer, float, string, or a list of files
// (workload only).
using Value = std::variant<bool, int64_t, double, std::string, std::vector<std::string>>;

// Canonical text: true/false; integers in decimal; floats in the shortest form
// that reads back exactly, always with a '.' or exponent (2.0, 1e-05); strings
// as they are; file lists comma-joined.
std::string value_text(const Value& v);
nlohmann::json value_json(const Value& v);

struct Entry {
  std::string key;            // canonical: option long name with dashes, or property name
  std::vector<Value> values;  // at least one, no two with the same text
  bool in_matrix = false;     // from [matrix] or [properties] as a list or range
};

struct ExcludeTerm {
  std::string key;
  bool property = false;      // a [properties] key rather than an option
  std::vector<Value> any_of;  // matches when the configuration's value is one of these
};
using Exclude = std::vector<ExcludeTerm>;  // all terms must match

struct SweepSpec {
  std::string file;                            // as given
  std::string path;                            // the file read (absolute), when read from one
  std::string hash;                            // its content hash (util/shipped_files.h)
  std::vector<std::string> command = {"run"};  // the words after `pmemids`
  std::string scale = "default";               // "default": the file's top level alone
  std::vector<std::string> scales;             // the file's [scale.*] names
  std::vector<Entry> options;                  // top level then [matrix], in file order
  std::vector<Entry> properties;               // [properties], in file order
  std::vector<Exclude> excludes;
  // Workload files as written -> the path to open: relative paths are looked up in
  // the current directory, then in the sweep file's directory and its ancestors.
  std::map<std::string, std::string> workload_paths;
};

// The file's `command` split into words ({"run"} when absent). UsageError when
// the file cannot be read or parsed, or `command` is not a string.
std::vector<std::string> read_sweep_command(const std::string& path);
std::vector<std::string> read_sweep_command_text(const std::string& text, const std::string& name);

// `scale` is "default" or the name of one of the file's [scale.<name>] tables;
// `keys` are the options of the file's command (see read_sweep_command).
SweepSpec parse_sweep_file(const std::string& path, const std::string& scale, const RunKeys& keys);
// The same from text; `name` stands for the file in messages and path lookups.
SweepSpec parse_sweep_text(const std::string& text, const std::string& name,
                           const std::string& scale, const RunKeys& keys);

}  // namespace pmemids::sweep
