// `pmemids doctor`: what this machine can and cannot show, one finding per
// line. The verdict logic lives here as pure functions of what the probes
// (doctor/probes.h) measured, so it is tested without the machine.
//
// A finding has a verdict:
//   ok       fit for every measurement pmemids makes;
//   info     a fact results depend on (recorded in every context);
//   limited  something is missing or emulated: `note` says what it disables;
//   fail     pmemids cannot run here (only the pool directory can fail).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace pmemids::doctor {

struct Finding {
  std::string key;       // JSON key
  std::string label;     // text label
  nlohmann::json value;  // what was found
  std::string verdict;   // ok, info, limited, fail
  std::string note;      // what it means, or what it disables
};

struct NumaNode {
  int id;
  std::vector<int> cpus;
};

// "0-3,8,10-11" -> {0,1,2,3,8,10,11}; empty for "" or malformed input.
std::vector<int> parse_cpu_list(const std::string& s);
// {0,1,2,3,8} -> "0-3,8".
std::string cpu_list_text(const std::vector<int>& cpus);

Finding pool_dir_finding(const std::string& dir, const std::string& problem);
Finding pmem_finding(bool real, const std::string& granularity, const std::string& fs, bool dax);
Finding domain_finding(bool platform_eadr, int auto_flush);
Finding flush_finding(const std::vector<std::string>& available, const std::string& libpmem_pick);
// Median latencies of a load of a line just stored (a cache hit), and of one
// right after the line was written back with clwb, or with clflush (a miss);
// nullopt: not measured (the CPU lacks clwb).
struct LoadLatencies {
  double after_store_ns;
  double after_clwb_ns;
  double after_clflush_ns;
};
Finding retention_finding(const std::optional<LoadLatencies>& l);
Finding numa_finding(const std::vector<NumaNode>& nodes);
Finding smt_finding(int threads_per_core);
Finding llc_finding(uint64_t bytes);
// Which `--counters` modes work here: perf needs a PMU (`pmu_detail` says what
// was observed, counters/pmu.h), sim needs valgrind (its version; nullopt: not
// on PATH).
Finding counters_finding(bool pmu, const std::string& pmu_detail,
                         const std::optional<std::string>& valgrind);
Finding dcpmm_tools_finding(bool ipmctl, bool ipmwatch);
Finding governor_finding(const std::optional<std::string>& governor);
Finding space_finding(uint64_t free_bytes, uint64_t available_memory_bytes);
Finding interposition_finding(bool bound);
Finding movnt_finding(uint64_t threshold, bool from_env);
Finding versions_finding(const std::string& pmdk, const std::string& memkind,
                         const std::string& kernel);
Finding tsc_finding(bool invariant, double ticks_per_ns);

// Everything, as one JSON object keyed by Finding::key.
nlohmann::json to_json(const std::vector<Finding>& findings);
// One line per finding (the note indented below it when there is one).
std::string to_text(const std::vector<Finding>& findings);

}  // namespace pmemids::doctor
