// YCSB workload properties: parsing property files and `-p key=value` overrides
// into a validated WorkloadSpec.
//
// Files use Java properties syntax (key=value or key: value, '#'/'!' comments).
// Later sources override earlier ones: files in order given, then -p overrides.
// Keys that are YCSB's but have no meaning here (table, fieldcount, ...) are
// accepted and reported in WorkloadSpec::ignored; so are YCSB's client settings
// (threadcount, target, status.interval) unless build() is asked to apply them;
// any other unknown key, a bad value, or proportions that do not sum to 1 raise
// UsageError naming the key, its value, where it came from and what is accepted.
//
// `operationset` (kv, queue, set, stack; default kv) says which operations the
// workload runs (workload/op_set.h); a kv workload with scans needs an
// ordered-kv structure. Each set has its own proportions, which must sum to 1:
//   kv     read, update, insert, scan, readmodifywrite, delete (YCSB)
//   set    readproportion (contains), insertproportion, deleteproportion; keys
//          uniform in [1, keyrange], initial fill keyrange/2 distinct keys
//   queue  pushproportion, popproportion; recordcount elements pushed before
//          timing; producers/consumers split the workers that share one
//          instance; queueslots, slotsize size the ring
//   stack  pushproportion, popproportion; recordcount elements pushed first;
//          poolnodes sizes the node pool, localwork spins 1..N pauses
//          between a worker's operations (PBcomb's benchmark)
// pushpoppairs=true (queue, stack) makes each stream alternate push, pop
// instead of drawing at random (needs pushproportion = popproportion = 0.5).
// A key that belongs to other operation sets only, given explicitly, is an
// error naming the sets it applies to.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pmemids/key_codec.h"
#include "workload/op_set.h"

namespace pmemids {

enum class Distribution {
  kUniform,
  kUniformInserted,
  kZipfian,
  kZipfianYcsbc,
  kLatest,
  kHotspot,
  kSequential
};

struct WorkloadSpec {
  uint64_t recordcount = 1000;
  uint64_t operationcount = 1000;
  double readproportion = 0.95;
  double updateproportion = 0.05;
  double insertproportion = 0;
  double scanproportion = 0;
  double readmodifywriteproportion = 0;
  double deleteproportion = 0;
  Distribution requestdistribution = Distribution::kUniform;
  double zipfianconstant = 0.99;
  InsertOrder insertorder = InsertOrder::kHashed;
  uint32_t fieldlength = 100;
  uint32_t maxscanlength = 1000;
  double hotspotdatafraction = 0.2;
  double hotspotopnfraction = 0.8;
  double readmissrate = 0;
  uint64_t seed = 1;
  OpSet operationset = OpSet::kKv;  // as given: kv, queue, set or stack
  double pushproportion = 0.5;      // queue, stack
  double popproportion = 0.5;       // queue, stack
  bool pushpoppairs = false;        // queue, stack: streams alternate push, pop
  uint64_t keyrange = 1024;         // set: keys in [1, keyrange]
  int64_t producers = -1;           // queue: workers that only push; -1: half the workers
  int64_t consumers = -1;           // queue: workers that only pop; -1: the others
  uint64_t queueslots = 32768;      // queue: ring slots
  uint32_t slotsize = 4096;         // queue: bytes per ring slot
  uint64_t poolnodes = 0;           // stack: node pool size; 0: derived from the pushes
  uint32_t localwork = 0;           // stack: random spin 1..localwork between operations; 0: none

  // The operation set a structure must implement: operationset, except that a
  // kv workload with scans needs ordered-kv.
  OpSet op_set() const {
    return operationset == OpSet::kKv && scanproportion > 0 ? OpSet::kOrderedKv : operationset;
  }
  std::string tracefile;   // run phase from this trace instead of generated (workload/trace.h)
  bool traceload = false;  // with tracefile: load the keys the trace uses, not recordcount ids

  // YCSB's client settings, set only when given and applied (the run command
  // applies them, with its own options winning; to_json() leaves them out):
  std::optional<int> threadcount;         // worker threads
  std::optional<double> target;           // operations per second in total; 0: no throttle
  std::optional<double> status_interval;  // status.interval: seconds between status lines

  std::vector<std::string> files;              // property files, in order
  std::map<std::string, std::string> ignored;  // YCSB keys accepted but not applied

  // The key chooser of the run phase: generator_name() in
  // workload/key_chooser.h, or "trace".
  std::string request_generator() const;

  // Every property that applies to the operation set (property_applies) with
  // its effective value, keyed by property name (tracefile null when none),
  // plus, for kv, "request_generator", and "workload_files" and
  // "ignored_properties".
  nlohmann::json to_json() const;
};

// Whether workload property `key` means something for operation set `set`
// (an ordered-kv structure runs kv workloads): the set-specific properties
// for the sets they name, every other key for all.
bool property_applies(std::string_view key, OpSet set);

class PropertySet {
 public:
  // Reads a property file (a regular file of at most 1 MiB; a leading UTF-8
  // byte order mark and CRLF line ends are accepted); UsageError on a missing
  // or unreadable file, anything but a regular file, or a malformed line.
  void load_file(const std::string& path);
  // The same for a file's content; `name` stands for the file in messages.
  void load_text(std::string text, const std::string& name);
  // Applies one "key=value" override given on the command line (`origin`
  // names where it came from in messages).
  void set_override(const std::string& key_value, const std::string& origin = "-p");
  // Applies a property that has its own command-line option (--seed for
  // `seed`), after every -p: parsed as the property is; a -p override of the
  // same key with a different value is a UsageError naming both.
  void set_from_option(const std::string& key, const std::string& value, const std::string& option);
  // Validates and converts everything given so far. YCSB's client settings
  // (threadcount, target, status.interval) are parsed and applied when
  // `client_settings`, else listed as ignored.
  WorkloadSpec build(bool client_settings = false) const;

  // Names of all keys this tool applies, client settings last (for messages
  // and completion).
  static std::vector<std::string> known_keys();

 private:
  struct Entry {
    std::string value;
    std::string origin;  // "file:line" or "-p"
  };
  void put(const std::string& key, const std::string& value, const std::string& origin);

  std::map<std::string, Entry> entries_;
  std::vector<std::string> files_;
};

// The one seed rule of every command (-p seed=, crash --seed): an integer in
// [0, 2^64 - 1], written in decimal. Throws UsageError "<what> '<text>':
// expected <kSeedAccepted>" otherwise.
inline constexpr const char* kSeedAccepted = "an integer in [0, 18446744073709551615]";
uint64_t parse_seed(const std::string& text, const std::string& what);

const char* distribution_name(Distribution d);

}  // namespace pmemids
