// Running part of a sweep: `--shard K/N` (one of N machines' share) and `--only
// KEY=V[,V...]` (the configurations with those values).
//
// Shards: the configurations of the whole expansion are ordered by config_id (which
// depends only on what each configuration sets, not on the machine, the sweep file's
// name or its key order), and the i-th of that order belongs to shard i mod N. So N
// invocations with K = 0 .. N-1 on any machines run every configuration exactly once,
// and a configuration keeps its shard whatever the other options (--only, --scale of
// the same values) or the expansion order. Configurations keep their expansion index.
//
// Only: a configuration is kept when, for every term, its value of KEY is one of the
// values. KEY is an option key (dashes or underscores) or a property name; values are
// compared as canonical text, and a workload file also by its file name
// (`workload=pmemids-read` matches "workloads/pmemids-read"). A configuration that does
// not set KEY is dropped. A term whose key no configuration sets, or whose values match
// none, is a UsageError (a typo would otherwise run nothing).
#pragma once

#include <string>
#include <vector>

#include "sweep/expand.h"

namespace pmemids::sweep {

struct Shard {
  size_t index = 0;  // K
  size_t count = 1;  // N
};

// "K/N" with integers 0 <= K < N. UsageError "--shard '<text>': <what>; accepted: ...".
Shard parse_shard(const std::string& text);

struct OnlyTerm {
  std::string key;
  std::vector<std::string> values;
};

// "KEY=V[,V...]". UsageError "--only '<text>': <what>; accepted: ...".
OnlyTerm parse_only(const std::string& text);

// The configurations of `configs` (one whole expansion) in `shard` that match every
// term, in expansion order.
std::vector<Configuration> subset(const std::vector<Configuration>& configs, const Shard& shard,
                                  const std::vector<OnlyTerm>& only);

}  // namespace pmemids::sweep
