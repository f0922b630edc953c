#include "counters/perf_events.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "errors.h"

namespace pmemids {
namespace {

constexpr size_t index_of(std::string_view name) {
  for (size_t i = 0; i < kPerfEventCount; ++i) {
    if (kPerfEvents[i].name == name) return i;
  }
  return kPerfEventCount;
}

std::string paranoid_text() {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  int level = 0;
  if (in >> level) return fmt::format("kernel.perf_event_paranoid is {}", level);
  return "kernel.perf_event_paranoid is unknown";
}

std::string open_failure(const PerfEventInfo& e, int err) {
  const std::string what = fmt::format("{} ({})", std::strerror(err), err);
  switch (err) {
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV:
      return fmt::format("not supported by this CPU or kernel (perf's {}): {}", e.perf_name, what);
    case EACCES:
    case EPERM:
      return fmt::format("refused: {}; {}", what, paranoid_text());
    case EBUSY:
      return fmt::format("the counters are taken (another profiler or the NMI watchdog): {}", what);
    default:
      return fmt::format("perf_event_open of {} failed: {}", e.perf_name, what);
  }
}

int open_event(const PerfEventInfo& e, int group_fd, bool user_only) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = e.type;
  attr.config = e.config;
  attr.disabled = group_fd == -1 ? 1 : 0;  // members follow their leader
  attr.exclude_kernel = user_only ? 1 : 0;
  attr.exclude_hv = 1;
  attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                     PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
  const long fd = syscall(SYS_perf_event_open, &attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
  return fd < 0 ? -errno : static_cast<int>(fd);
}

}  // namespace

PerfEventSet parse_perf_events(const std::vector<std::string>& words) {
  PerfEventSet set{};
  for (const std::string& word : words) {
    bool known = false;
    for (size_t i = 0; i < kPerfEventCount; ++i) {
      const PerfEventInfo& e = kPerfEvents[i];
      if (word == "all" || (word == "hardware" && e.hardware) ||
          (word == "software" && !e.hardware) || word == e.name || word == e.perf_name) {
        set[i] = true;
        known = true;
      }
    }
    if (!known) {
      throw UsageError(
          fmt::format("--perf-events: unknown event '{}'; accepted: all, hardware, "
                      "software, or a comma-separated list of {}",
                      word, perf_event_names()));
    }
  }
  if (std::none_of(set.begin(), set.end(), [](bool b) { return b; })) {
    throw UsageError(
        "--perf-events: no event named; accepted: all, hardware, software, or "
        "a comma-separated list of " +
        perf_event_names());
  }
  return set;
}

bool wants_hardware(const PerfEventSet& set) {
  for (size_t i = 0; i < kPerfEventCount; ++i) {
    if (set[i] && kPerfEvents[i].hardware) return true;
  }
  return false;
}

std::string perf_event_names() {
  std::string out;
  for (const PerfEventInfo& e : kPerfEvents) {
    if (!out.empty()) out += ", ";
    out += e.name;
  }
  return out;
}

PerfCounts& PerfCounts::operator+=(const PerfCounts& o) {
  for (size_t i = 0; i < kPerfEventCount; ++i) {
    selected[i] = selected[i] || o.selected[i];
    if (value[i] && o.value[i]) {
      *value[i] += *o.value[i];
    } else {
      value[i].reset();
      if (reason[i].empty()) reason[i] = o.reason[i];
    }
    counted_fraction[i] = std::min(counted_fraction[i], o.counted_fraction[i]);
    user_only[i] = user_only[i] || o.user_only[i];
  }
  return *this;
}

void add_perf_metrics(nlohmann::json& m, const PerfCounts& c, uint64_t ops) {
  nlohmann::json unavailable = nlohmann::json::object();
  nlohmann::json fraction = nlohmann::json::object();
  nlohmann::json user_only = nlohmann::json::array();
  const auto number = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json();
  };
  for (size_t i = 0; i < kPerfEventCount; ++i) {
    const std::string name(kPerfEvents[i].name);
    const std::optional<double>& v = c.value[i];
    m[name] = number(v);
    m[name + "_per_op"] =
        v && ops > 0 ? nlohmann::json(*v / static_cast<double>(ops)) : nlohmann::json();
    if (!c.selected[i]) {
      unavailable[name] = "not selected (--perf-events)";
    } else if (!v) {
      unavailable[name] = c.reason[i];
    } else {
      if (c.counted_fraction[i] < 1) fraction[name] = c.counted_fraction[i];
      if (c.user_only[i]) user_only.push_back(name);
    }
  }
  const auto ratio = [&](std::string_view num, std::string_view den) {
    const auto& a = c.value[index_of(num)];
    const auto& b = c.value[index_of(den)];
    return a && b && *b > 0 ? nlohmann::json(*a / *b) : nlohmann::json();
  };
  m["llc_miss_ratio"] = ratio("llc_misses", "llc_loads");
  m["ipc"] = ratio("instructions", "cycles");
  m["perf_unavailable"] = unavailable;
  m["perf_counted_fraction"] = fraction;
  m["perf_user_only"] = user_only;
}

PerfThreadCounters::PerfThreadCounters(PerfThreadCounters&& o) noexcept
    : groups_(std::move(o.groups_)), opened_(o.opened_) {
  o.groups_.clear();
}

PerfThreadCounters& PerfThreadCounters::operator=(PerfThreadCounters&& o) noexcept {
  if (this != &o) {
    close_all();
    groups_ = std::move(o.groups_);
    opened_ = o.opened_;
    o.groups_.clear();
  }
  return *this;
}

PerfThreadCounters::~PerfThreadCounters() { close_all(); }

void PerfThreadCounters::close_all() {
  for (const Group& g : groups_) {
    for (const Member& m : g.members) close(m.fd);
  }
  groups_.clear();
}

void PerfThreadCounters::open(const PerfEventSet& set) {
  close_all();
  opened_ = PerfCounts{};
  opened_.selected = set;
  opened_.counted_fraction.fill(1.0);
  uint8_t last_group = 0;
  for (const PerfEventInfo& e : kPerfEvents) last_group = std::max(last_group, e.group);
  std::vector<Group> alone;  // events their group would not take
  for (uint8_t g = 0; g <= last_group; ++g) {
    Group group;
    for (size_t i = 0; i < kPerfEventCount; ++i) {
      const PerfEventInfo& e = kPerfEvents[i];
      if (e.group != g || !set[i]) continue;
      const auto attach = [&](Group& to) {
        int fd = open_event(e, to.leader, false);
        if (fd == -EACCES || fd == -EPERM) {
          if (e.in_kernel) {
            opened_.reason[i] = fmt::format(
                "counted in the kernel, which this process may not observe: {} ({}); {} "
                "(needs 1 or below, or CAP_PERFMON)",
                std::strerror(-fd), -fd, paranoid_text());
            return true;
          }
          fd = open_event(e, to.leader, true);
          opened_.user_only[i] = fd >= 0;
        }
        if (fd < 0) {
          opened_.reason[i] = open_failure(e, -fd);
          return fd != -EINVAL || to.leader == -1;  // EINVAL in a group: try alone
        }
        uint64_t id = 0;
        ioctl(fd, PERF_EVENT_IOC_ID, &id);
        if (to.leader == -1) to.leader = fd;
        to.members.push_back({fd, id, i});
        opened_.reason[i].clear();
        return true;
      };
      if (!attach(group)) {
        Group own;
        attach(own);
        if (own.leader != -1) alone.push_back(std::move(own));
      }
    }
    if (group.leader != -1) groups_.push_back(std::move(group));
  }
  for (Group& g : alone) groups_.push_back(std::move(g));
}

void PerfThreadCounters::enable() {
  for (const Group& g : groups_) ioctl(g.leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
}

void PerfThreadCounters::disable() {
  for (const Group& g : groups_) ioctl(g.leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
}

PerfCounts PerfThreadCounters::read() const {
  PerfCounts out = opened_;
  for (size_t i = 0; i < kPerfEventCount; ++i) {
    if (out.reason[i].empty()) out.reason[i] = "not opened";
  }
  for (const Group& g : groups_) {
    // {nr, time_enabled, time_running, {value, id}[nr]}
    std::vector<uint64_t> buf(3 + 2 * g.members.size());
    const ssize_t n = ::read(g.leader, buf.data(), buf.size() * sizeof(uint64_t));
    const bool ok = n == static_cast<ssize_t>(buf.size() * sizeof(uint64_t));
    const uint64_t enabled = ok ? buf[1] : 0, running = ok ? buf[2] : 0;
    for (const Member& m : g.members) {
      const size_t i = m.event;
      if (!ok) {
        out.reason[i] = fmt::format("reading the counters failed: {}", std::strerror(errno));
        continue;
      }
      if (running == 0) {
        out.reason[i] = enabled == 0 ? "never enabled"
                                     : "never counted: the PMU did not schedule its group "
                                       "(too few counters, or they are taken)";
        continue;
      }
      for (size_t k = 0; k < buf[0]; ++k) {
        if (buf[4 + 2 * k] != m.id) continue;
        const double raw = static_cast<double>(buf[3 + 2 * k]);
        const double f = static_cast<double>(running) / static_cast<double>(enabled);
        out.value[i] = f < 1 ? raw / f : raw;
        out.counted_fraction[i] = std::min(1.0, f);
        out.reason[i].clear();
      }
    }
  }
  return out;
}

}  // namespace pmemids
