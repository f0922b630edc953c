// Where a file pmemids ships (a workload, a sweep, a claim file, a script) is
// found: one rule for every command (run/stream -P, sweep, reproduce through
// `pmemids locate`, the SLURM script). For a name as written:
//   1. an absolute path, or a relative one that exists from the current directory;
//   2. <kind dir>/<name> in the current directory (a bare name: `-P pmemids-write`);
//   3. the directory of the file that names it and its parents (a sweep's workloads);
//   4. each directory of $PMEMIDS_DATA (colon-separated), as 1 and 2;
//   5. the installed share directory (<prefix>/share/pmemids, next to bin/pmemids);
//      or, for a binary that is not installed, the source tree it was built from.
// The first hit is used. Every later place that holds the same name with other
// contents is a warning on stderr naming both files (a local copy that overrides
// the shipped one is then visible). A name found nowhere is a UsageError (exit 2)
// listing the places searched.
#pragma once

#include <string>
#include <vector>

namespace pmemids {

enum class ShippedKind { kWorkload, kSweep, kClaim, kScript };

// "workloads", "sweeps", "reproduce", "scripts": the kind's directory in the tree.
const char* shipped_dir_name(ShippedKind kind);
// "workload", "sweep", "claim", "script"; nullptr-free inverse for `pmemids locate`.
const char* shipped_kind_name(ShippedKind kind);
bool parse_shipped_kind(const std::string& name, ShippedKind& kind);

struct ShippedFile {
  std::string written;  // as the user or the referring file wrote it
  std::string path;     // absolute, normalised: the file read
  std::string hash;     // "fnv1a64:<16 hex digits>" of its contents
};

// The directories searched after the current directory (steps 4 and 5), in order.
std::vector<std::string> shipped_roots();

// Resolves `written` by the rule above; `referrer` is the file that names it (or "").
ShippedFile locate_shipped(const std::string& written, ShippedKind kind,
                           const std::string& referrer = "");

// "fnv1a64:<hex>" of the file's contents (the FNV-1a 64 of config_id), read by
// read_input_file (util/file_checks.h): its UsageError when refused.
std::string file_hash(const std::string& path, const std::string& what);

}  // namespace pmemids
