#include "report/records.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "errors.h"
#include "stats/summary.h"
#include "util/file_checks.h"

namespace pmemids {

nlohmann::json make_record(const nlohmann::json& context, const nlohmann::json& config,
                           nlohmann::json metrics) {
  return {{"schema_version", kSchemaVersion},
          {"context", context},
          {"config", config},
          {"metrics", std::move(metrics)}};
}

nlohmann::json make_aggregate(const nlohmann::json& context, nlohmann::json config,
                              std::span<const double> ops_per_sec) {
  const Summary s = summarize(ops_per_sec);
  config.erase("repetition");
  return {{"schema_version", kSchemaVersion},
          {"aggregate", true},
          {"context", context},
          {"config", config},
          {"metrics",
           {{"repetitions", s.n},
            {"ops_per_sec_mean", s.mean},
            {"ops_per_sec_median", s.median},
            {"ops_per_sec_stddev", s.stddev},
            {"ops_per_sec_cv", s.cv},
            {"ops_per_sec_min", s.min},
            {"ops_per_sec_max", s.max},
            {"ops_per_sec_ci95_low", s.ci95_low},
            {"ops_per_sec_ci95_high", s.ci95_high}}}};
}

std::string records_destination(const std::string& out) {
  return out == kStdoutPath ? "written to stdout" : "appended to " + out;
}

void append_record(const std::string& path, const nlohmann::json& record) {
  // Invalid UTF-8 (an ignored property's value, a file name) becomes U+FFFD:
  // a record is always valid JSON, and never lost at the end of a run.
  const std::string line =
      record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (path == kStdoutPath) {
    std::fflush(stdout);
    for (size_t done = 0; done < line.size();) {
      const ssize_t n = write(STDOUT_FILENO, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        throw RuntimeError(fmt::format("cannot write records to stdout: {}", std::strerror(errno)));
      done += static_cast<size_t>(n);
    }
    return;
  }
  create_parent_dirs(path, "result file");
  // Non-blocking: a FIFO without a reader is refused (ENXIO) instead of waited on.
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd < 0)
    throw UsageError(fmt::format("cannot open result file '{}': {}", path, std::strerror(errno)));
  const ssize_t n = write(fd, line.data(), line.size());
  const int err = errno;
  close(fd);
  if (n != static_cast<ssize_t>(line.size())) {
    throw RuntimeError(fmt::format("cannot write result file '{}': {}", path, std::strerror(err)));
  }
}

std::string cell(const nlohmann::json& v, const char* format, double scale) {
  return v.is_number() ? fmt::format(fmt::runtime(format), v.get<double>() * scale) : "n/a";
}

}  // namespace pmemids
