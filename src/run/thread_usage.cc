#include "run/thread_usage.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <limits>

namespace pmemids {

std::optional<uint64_t> run_delay_ns(const char* schedstat_path) {
  const int fd = open(schedstat_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buf[128];
  const ssize_t n = read(fd, buf, sizeof buf);
  close(fd);
  if (n <= 0) return std::nullopt;
  const char* p = buf;
  const char* const end = buf + n;
  uint64_t fields[3] = {};
  for (uint64_t& f : fields) {
    const auto [next, ec] = std::from_chars(p, end, f);
    if (ec != std::errc{}) return std::nullopt;
    p = next;
    if (p != end && *p == ' ') ++p;
  }
  return fields[1];
}

ThreadUsage ThreadUsage::now() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  const auto secs = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) * 1e-6;
  };
  const std::optional<uint64_t> delay = run_delay_ns("/proc/thread-self/schedstat");
  return {secs(u.ru_utime), secs(u.ru_stime), static_cast<uint64_t>(u.ru_nvcsw),
          static_cast<uint64_t>(u.ru_nivcsw),
          delay ? static_cast<double>(*delay) * 1e-9 : std::numeric_limits<double>::quiet_NaN()};
}

nlohmann::json usage_json(const ThreadUsage& u) {
  return {
      {"cpu_user_seconds", u.user_seconds},
      {"cpu_system_seconds", u.system_seconds},
      {"voluntary_context_switches", u.voluntary_switches},
      {"involuntary_context_switches", u.involuntary_switches},
      {"run_delay_seconds",
       std::isnan(u.run_delay_seconds) ? nlohmann::json() : nlohmann::json(u.run_delay_seconds)}};
}

ThreadUsage& ThreadUsage::operator-=(const ThreadUsage& o) {
  user_seconds -= o.user_seconds;
  system_seconds -= o.system_seconds;
  voluntary_switches -= o.voluntary_switches;
  involuntary_switches -= o.involuntary_switches;
  run_delay_seconds -= o.run_delay_seconds;
  return *this;
}

ThreadUsage& ThreadUsage::operator+=(const ThreadUsage& o) {
  user_seconds += o.user_seconds;
  system_seconds += o.system_seconds;
  voluntary_switches += o.voluntary_switches;
  involuntary_switches += o.involuntary_switches;
  run_delay_seconds += o.run_delay_seconds;
  return *this;
}

}  // namespace pmemids
