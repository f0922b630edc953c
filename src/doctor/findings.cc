#include "doctor/findings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "pmem/domain.h"

namespace pmemids::doctor {
namespace {

Finding make(std::string key, std::string label, nlohmann::json value, std::string verdict,
             std::string note = "") {
  return Finding{std::move(key), std::move(label), std::move(value), std::move(verdict),
                 std::move(note)};
}

std::string bytes_text(uint64_t b) {
  constexpr uint64_t kMiB = uint64_t{1} << 20, kGiB = uint64_t{1} << 30;
  if (b >= kGiB) return fmt::format("{:.1f} GiB", static_cast<double>(b) / kGiB);
  return fmt::format("{:.1f} MiB", static_cast<double>(b) / kMiB);
}

}  // namespace

std::vector<int> parse_cpu_list(const std::string& s) {
  std::vector<int> out;
  std::istringstream in(s);
  for (std::string part; std::getline(in, part, ',');) {
    while (!part.empty() && (part.back() == '\n' || part.back() == ' ')) part.pop_back();
    if (part.empty()) return {};
    char* end = nullptr;
    const long lo = std::strtol(part.c_str(), &end, 10);
    long hi = lo;
    if (*end == '-') hi = std::strtol(end + 1, &end, 10);
    if (*end != '\0' || lo < 0 || hi < lo) return {};
    for (long c = lo; c <= hi; ++c) out.push_back(static_cast<int>(c));
  }
  return out;
}

std::string cpu_list_text(const std::vector<int>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += j == i ? fmt::format("{}", cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return out;
}

Finding pool_dir_finding(const std::string& dir, const std::string& problem) {
  if (!problem.empty()) {
    return make("pool_dir", "pool directory", {{"path", dir}, {"problem", problem}}, "fail",
                "unusable: no run, crash or sweep can create pools there");
  }
  return make("pool_dir", "pool directory", {{"path", dir}, {"problem", nullptr}}, "ok");
}

Finding pmem_finding(bool real, const std::string& granularity, const std::string& fs, bool dax) {
  const nlohmann::json v = {{"pmem", real ? "real" : "emulated"},
                            {"file_system", fs},
                            {"dax", dax},
                            {"store_granularity", granularity}};
  if (real) return make("pmem", "persistent memory", v, "ok", "DAX-mapped: flushes reach PMEM");
  return make("pmem", "persistent memory", v, "limited",
              fmt::format("EMULATED on {} ({} granularity): results show the software cost of "
                          "each persistence discipline, not media latency (what-if: "
                          "--pmem-profile, --pmem-write-ns, --pmem-read-ns)",
                          fs, granularity));
}

Finding domain_finding(bool platform_eadr, int auto_flush) {
  const nlohmann::json v = {{"domain", domain_name(platform_domain(platform_eadr))},
                            {"pmem_has_auto_flush", auto_flush}};
  if (platform_eadr) {
    return make("persistence_domain", "persistence domain", v, "ok",
                "eADR: caches are persistent; --domain eadr runs for real, --domain adr adds "
                "the write-backs an ADR platform needs");
  }
  return make("persistence_domain", "persistence domain", v, "limited",
              "ADR: --domain eadr is emulated (write-backs skipped, fences kept; its pools are "
              "not crash-safe here)");
}

Finding flush_finding(const std::vector<std::string>& available, const std::string& libpmem_pick) {
  const nlohmann::json v = {{"available", available}, {"libpmem_picks", libpmem_pick}};
  std::vector<std::string> missing;
  for (const char* i : {"clwb", "clflushopt", "clflush"}) {
    if (std::find(available.begin(), available.end(), i) == available.end()) missing.push_back(i);
  }
  if (missing.empty()) return make("flush_instructions", "flush instructions", v, "ok");
  std::string m;
  for (const auto& i : missing) m += (m.empty() ? "" : ", ") + i;
  return make("flush_instructions", "flush instructions", v, "limited",
              fmt::format("no {}: --flush {} is refused, and the flush comparisons of "
                          "docs/performance.md lack it",
                          m, missing.front()));
}

Finding retention_finding(const std::optional<LoadLatencies>& l) {
  if (!l) {
    return make("clwb_retains_line", "clwb retains the line", nullptr, "limited",
                "not measured (no clwb): what clwb costs a later read is unknown here");
  }
  const nlohmann::json v = {{"load_after_store_ns", l->after_store_ns},
                            {"load_after_clwb_ns", l->after_clwb_ns},
                            {"load_after_clflush_ns", l->after_clflush_ns}};
  // Retained: the load after clwb is nearer a cache hit than a miss.
  if (l->after_clwb_ns < (l->after_store_ns + l->after_clflush_ns) / 2) {
    return make("clwb_retains_line", "clwb retains the line", v, "ok",
                "a load right after clwb hits the cache");
  }
  return make("clwb_retains_line", "clwb retains the line", v, "limited",
              "clwb evicts like clflushopt on this CPU: a value read right after it is written "
              "back misses the cache, so --flush clwb and clflushopt will measure alike");
}

Finding numa_finding(const std::vector<NumaNode>& nodes) {
  nlohmann::json v = nlohmann::json::array();
  for (const auto& n : nodes) v.push_back({{"node", n.id}, {"cpus", cpu_list_text(n.cpus)}});
  if (nodes.size() > 1) return make("numa_nodes", "NUMA nodes", v, "ok");
  return make("numa_nodes", "NUMA nodes", v, "limited",
              fmt::format("{} NUMA node: Figure 9 remote runs (--cpu-node and --mem-node on "
                          "different nodes) will be skipped",
                          nodes.size()));
}

Finding smt_finding(int threads_per_core) {
  if (threads_per_core > 1) {
    return make("smt", "SMT", threads_per_core, "ok",
                fmt::format("{} hardware threads per core: --pin compact fills a core's threads "
                            "first",
                            threads_per_core));
  }
  return make("smt", "SMT", threads_per_core, "limited",
              "1 hardware thread per core: --pin compact and scatter place threads alike, and "
              "sibling-thread effects cannot show");
}

Finding llc_finding(uint64_t bytes) {
  if (bytes == 0) {
    return make("llc_bytes", "last-level cache", nullptr, "limited",
                "size unknown: working sets cannot be sized against the LLC");
  }
  return make(
      "llc_bytes", "last-level cache", bytes, "info",
      fmt::format("{}: structures larger than this are measured out of cache", bytes_text(bytes)));
}

Finding counters_finding(bool pmu, const std::string& pmu_detail,
                         const std::optional<std::string>& valgrind) {
  const nlohmann::json value = {{"perf", pmu}, {"sim", valgrind.has_value()}};
  const std::string sim = valgrind ? fmt::format("--counters sim works ({})", *valgrind)
                                   : "--counters sim needs valgrind on PATH (apt-get install "
                                     "valgrind)";
  if (pmu) {
    return make("hw_counters", "hardware performance counters", value, "ok",
                fmt::format("--counters perf works; {}", sim));
  }
  return make("hw_counters", "hardware performance counters", value, "limited",
              fmt::format("--counters perf cannot count hardware events ({}); {}: a simulated "
                          "cache, not this machine's",
                          pmu_detail, sim));
}

Finding dcpmm_tools_finding(bool ipmctl, bool ipmwatch) {
  const nlohmann::json v = {{"ipmctl", ipmctl}, {"ipmwatch", ipmwatch}};
  if (ipmctl && ipmwatch) return make("dcpmm_counters", "DCPMM counter tools", v, "ok");
  return make("dcpmm_counters", "DCPMM counter tools", v, "limited",
              fmt::format("{} not on PATH: media read/write counts (write amplification of "
                          "the 256-byte XPLine) cannot be measured",
                          ipmctl     ? "ipmwatch"
                          : ipmwatch ? "ipmctl"
                                     : "ipmctl and ipmwatch"));
}

Finding governor_finding(const std::optional<std::string>& governor) {
  if (!governor) {
    return make("cpu_governor", "CPU governor", nullptr, "limited",
                "no cpufreq (a VM?): the clock may vary; compare ratios of repeated runs");
  }
  if (*governor == "performance") return make("cpu_governor", "CPU governor", *governor, "ok");
  return make("cpu_governor", "CPU governor", *governor, "limited",
              "not 'performance': the clock may vary between runs; compare ratios of repeated "
              "runs");
}

Finding space_finding(uint64_t free_bytes, uint64_t available_memory_bytes) {
  const nlohmann::json v = {{"pool_dir_free_bytes", free_bytes},
                            {"memory_available_bytes", available_memory_bytes}};
  constexpr uint64_t kPaperScale = uint64_t{2} << 30;  // a 1M-record pool with headroom
  if (free_bytes < kPaperScale) {
    return make("free_space", "free space and memory", v, "limited",
                fmt::format("{} free in the pool directory: paper-scale runs (1M records, "
                            "about 2 GiB of pool) will not fit; use smaller recordcount",
                            bytes_text(free_bytes)));
  }
  return make("free_space", "free space and memory", v, "ok",
              fmt::format("{} free for pools, {} of memory available", bytes_text(free_bytes),
                          bytes_text(available_memory_bytes)));
}

Finding interposition_finding(bool bound) {
  if (bound) {
    return make("libpmemobj_flushes", "libpmemobj's flushes", "counted", "ok",
                "its calls into libpmem reach pmemids: lib_* metrics, elided under --domain eadr");
  }
  return make("libpmemobj_flushes", "libpmemobj's flushes", "not observed", "limited",
              "its calls into libpmem bypass pmemids: lib_* metrics are null and --domain eadr "
              "cannot elide them");
}

Finding movnt_finding(uint64_t threshold, bool from_env) {
  return make("movnt_threshold", "non-temporal copy threshold", threshold, "info",
              fmt::format("copies of {} bytes or more use non-temporal stores ({}; "
                          "--movnt-threshold overrides)",
                          threshold, from_env ? "PMEM_MOVNT_THRESHOLD" : "libpmem's default"));
}

Finding versions_finding(const std::string& pmdk, const std::string& memkind,
                         const std::string& kernel) {
  return make("versions", "versions", {{"pmdk", pmdk}, {"memkind", memkind}, {"kernel", kernel}},
              "info");
}

Finding tsc_finding(bool invariant, double ticks_per_ns) {
  const nlohmann::json v = {{"invariant", invariant}, {"ticks_per_ns", ticks_per_ns}};
  if (invariant) return make("tsc", "time-stamp counter", v, "ok");
  return make("tsc", "time-stamp counter", v, "limited",
              "not invariant: what-if latencies (--pmem-write-ns, --pmem-read-ns) busy-wait on "
              "a counter whose rate may change");
}

nlohmann::json to_json(const std::vector<Finding>& findings) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& f : findings) {
    out[f.key] = {{"value", f.value}, {"verdict", f.verdict}, {"note", f.note}};
  }
  return out;
}

std::string to_text(const std::vector<Finding>& findings) {
  std::string out;
  for (const auto& f : findings) {
    std::string v = f.value.is_string() ? f.value.get<std::string>() : f.value.dump();
    out += fmt::format("{:<30} {:<8} {}\n", f.label, f.verdict, v);
    if (!f.note.empty()) out += fmt::format("{:<30} {:<8} -> {}\n", "", "", f.note);
  }
  return out;
}

}  // namespace pmemids::doctor
