// Hardware and software event counts of one thread over its timed phase, with
// perf_event_open (`--counters perf`).
//
// kPerfEvents is the one list of events: their record names, perf's names, how
// to open them and their group. Events of one group are scheduled on the PMU
// together, so ratios within a group (LLC misses over LLC loads, instructions
// over cycles) are exact; when the PMU has too few counters for all groups at
// once the kernel multiplexes groups and the counts are scaled by time
// enabled / time running (the fraction counted is recorded).
//
// PerfThreadCounters::open() must run on the thread to be measured (pid 0,
// any CPU); the events start disabled. enable() and disable() are the calls
// around the timed phase: one ioctl per group leader each, outside the clock
// reads that time it. read() after disable(). Every event is counted in user
// and kernel space when the kernel allows it, else in user space only (the
// record says which); events that happen in the kernel (context switches, CPU
// migrations) are then null with the reason, never a count of 0.
#pragma once

#include <linux/perf_event.h>

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pmemids {

struct PerfEventInfo {
  std::string_view name;       // record field: metrics.<name> (total), <name>_per_op
  std::string_view perf_name;  // perf's own name for it
  uint32_t type;               // perf_event_attr.type
  uint64_t config;             // perf_event_attr.config
  uint8_t group;               // counted together with the other events of its group
  bool hardware;               // needs a PMU
  bool in_kernel;              // happens in the kernel: uncountable in user space only
};

namespace detail {
constexpr uint64_t hw_cache(uint64_t cache, uint64_t op, uint64_t result) {
  return cache | (op << 8) | (result << 16);
}
}  // namespace detail

inline constexpr PerfEventInfo kPerfEvents[] = {
    {"cycles", "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, true, false},
    {"instructions", "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, true,
     false},
    {"branch_misses", "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 0, true,
     false},
    {"llc_loads", "LLC-loads", PERF_TYPE_HW_CACHE,
     detail::hw_cache(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ,
                      PERF_COUNT_HW_CACHE_RESULT_ACCESS),
     1, true, false},
    {"llc_misses", "LLC-load-misses", PERF_TYPE_HW_CACHE,
     detail::hw_cache(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ,
                      PERF_COUNT_HW_CACHE_RESULT_MISS),
     1, true, false},
    {"l1d_misses", "L1-dcache-load-misses", PERF_TYPE_HW_CACHE,
     detail::hw_cache(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ,
                      PERF_COUNT_HW_CACHE_RESULT_MISS),
     2, true, false},
    {"dtlb_misses", "dTLB-load-misses", PERF_TYPE_HW_CACHE,
     detail::hw_cache(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_READ,
                      PERF_COUNT_HW_CACHE_RESULT_MISS),
     2, true, false},
    {"page_faults", "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 3, false, false},
    {"context_switches", "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 3,
     false, true},
    {"cpu_migrations", "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, 3, false,
     true},
};
inline constexpr size_t kPerfEventCount = std::size(kPerfEvents);

// Which events a run counts (--perf-events).
using PerfEventSet = std::array<bool, kPerfEventCount>;

// Words of --perf-events: "all", "hardware", "software", record or perf names
// of events; a UsageError naming the accepted words otherwise.
PerfEventSet parse_perf_events(const std::vector<std::string>& words);
bool wants_hardware(const PerfEventSet& set);
std::string perf_event_names();  // for help and error text

// What one or more threads counted.
struct PerfCounts {
  PerfEventSet selected{};
  std::array<std::optional<double>, kPerfEventCount> value{};  // scaled; nullopt: not counted
  std::array<std::string, kPerfEventCount> reason{};           // why not counted
  std::array<double, kPerfEventCount> counted_fraction{};      // time running / enabled (min)
  std::array<bool, kPerfEventCount> user_only{};               // kernel space not counted

  // Sums another thread's counts: an event is null when it is null in either.
  PerfCounts& operator+=(const PerfCounts& o);
};

// Record fields of `c` over `ops` operations, merged into `metrics`: each
// event's total and <name>_per_op, llc_miss_ratio, ipc (null where an input
// is null), perf_unavailable {name: reason}, perf_counted_fraction {name: f}
// for multiplexed events, perf_user_only [names].
void add_perf_metrics(nlohmann::json& metrics, const PerfCounts& c, uint64_t ops);

class PerfThreadCounters {
 public:
  PerfThreadCounters() = default;
  PerfThreadCounters(const PerfThreadCounters&) = delete;
  PerfThreadCounters& operator=(const PerfThreadCounters&) = delete;
  PerfThreadCounters(PerfThreadCounters&& o) noexcept;
  PerfThreadCounters& operator=(PerfThreadCounters&& o) noexcept;
  ~PerfThreadCounters();

  // Opens `set` for the calling thread, disabled. Events the kernel refuses
  // are remembered with the reason; nothing throws.
  void open(const PerfEventSet& set);
  void enable();
  void disable();
  PerfCounts read() const;

 private:
  struct Member {
    int fd = -1;
    uint64_t id = 0;
    size_t event = 0;
  };
  struct Group {
    int leader = -1;
    std::vector<Member> members;  // the leader first
  };
  void close_all();

  std::vector<Group> groups_;
  PerfCounts opened_;  // selection, refusals and scopes found at open()
};

}  // namespace pmemids
