#include "util/file_checks.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <utility>

#include "errors.h"

namespace pmemids {
namespace {

namespace fs = std::filesystem;

constexpr long kProcMagic = 0x9fa0;
constexpr long kSysfsMagic = 0x62656572;

// Closes a descriptor on every path out of read_input_file.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

std::string file_kind(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFDIR:
      return "a directory";
    case S_IFIFO:
      return "a FIFO";
    case S_IFCHR:
      return "a character device";
    case S_IFBLK:
      return "a block device";
    case S_IFSOCK:
      return "a socket";
    case S_IFLNK:
      return "a symbolic link";
    case S_IFREG:
      return "a regular file";
    default:
      return "not a regular file";
  }
}

InputFile::InputFile(const std::string& path, const std::string& what) {
  // Non-blocking, so that opening a FIFO does not wait for a writer.
  Fd f{open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)};
  if (f.fd < 0) {
    throw UsageError(fmt::format("{} '{}' cannot be read: {}", what, path, std::strerror(errno)));
  }
  struct stat st {};
  struct statfs sf {};
  if (fstat(f.fd, &st) != 0 || fstatfs(f.fd, &sf) != 0) {
    throw UsageError(fmt::format("{} '{}' cannot be read: {}", what, path, std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    throw UsageError(
        fmt::format("{} '{}' is {}; accepted: a regular file", what, path, file_kind(st.st_mode)));
  }
  if (sf.f_type == kProcMagic || sf.f_type == kSysfsMagic) {
    throw UsageError(
        fmt::format("{} '{}' is a file of the {} file system; accepted: a regular file", what, path,
                    sf.f_type == kProcMagic ? "proc" : "sys"));
  }
  const int flags = fcntl(f.fd, F_GETFL);
  if (flags < 0 || fcntl(f.fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    throw UsageError(fmt::format("{} '{}' cannot be read: {}", what, path, std::strerror(errno)));
  }
  size_ = static_cast<uint64_t>(st.st_size);
  fd_ = std::exchange(f.fd, -1);
}

InputFile::~InputFile() { close(fd_); }

std::string read_input_file(const std::string& path, const std::string& what, size_t max_bytes) {
  const InputFile f(path, what);
  const auto too_large = [&](uint64_t bytes) {
    return UsageError(fmt::format("{} '{}' is too large ({}{} bytes); at most {} bytes are read",
                                  what, path, bytes > max_bytes ? "" : "more than ", bytes,
                                  max_bytes));
  };
  if (f.size() > max_bytes) throw too_large(f.size());
  std::string data;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = read(f.fd(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      throw UsageError(fmt::format("{} '{}' cannot be read: {}", what, path, std::strerror(errno)));
    }
    if (n == 0) return data;
    data.append(buf, static_cast<size_t>(n));
    if (data.size() > max_bytes) throw too_large(max_bytes);
  }
}

void check_output_path(const std::string& path, const std::string& what) {
  if (path == "-") return;  // records to stdout (--out -)
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) {
      throw UsageError(fmt::format("{} '{}' is {}; accepted: a regular file or a new file's path",
                                   what, path, file_kind(st.st_mode)));
    }
    struct statfs sf {};
    if (statfs(path.c_str(), &sf) == 0 && (sf.f_type == kProcMagic || sf.f_type == kSysfsMagic)) {
      throw UsageError(
          fmt::format("{} '{}' is a file of the {} file system; accepted: a regular "
                      "file or a new file's path",
                      what, path, sf.f_type == kProcMagic ? "proc" : "sys"));
    }
    if (access(path.c_str(), W_OK) != 0) {
      throw UsageError(
          fmt::format("{} '{}' cannot be written: {}", what, path, std::strerror(errno)));
    }
    return;
  }
  if (errno != ENOENT && errno != ENOTDIR) {
    throw UsageError(fmt::format("{} '{}' cannot be used: {}", what, path, std::strerror(errno)));
  }
  // Absent: the nearest existing ancestor must be a directory we may create in.
  fs::path missing = fs::path(path);
  fs::path dir = missing.parent_path();
  for (;;) {
    const std::string d = dir.empty() ? "." : dir.string();
    if (stat(d.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) {
        throw UsageError(fmt::format("{} '{}': '{}' is {}, not a directory", what, path, d,
                                     file_kind(st.st_mode)));
      }
      if (access(d.c_str(), W_OK | X_OK) != 0) {
        throw UsageError(fmt::format("{} '{}': cannot create '{}' in '{}': {}", what, path,
                                     missing.filename().string(), d, std::strerror(errno)));
      }
      return;
    }
    if ((errno != ENOENT && errno != ENOTDIR) || dir.empty() || dir == dir.parent_path()) {
      throw UsageError(
          fmt::format("{} '{}': '{}' cannot be used: {}", what, path, d, std::strerror(errno)));
    }
    missing = dir;
    dir = dir.parent_path();
  }
}

void check_results_output(const std::string& path, const std::string& what) {
  check_output_path(path, what);
  if (path == "-") return;
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return;  // created by the command
    throw UsageError(fmt::format("{} '{}' cannot be read: {}", what, path, std::strerror(errno)));
  }
  const Fd f{fd};
  // The first line, skipping blank ones; a record line is far below the cap.
  constexpr size_t kMaxFirstLine = size_t{64} << 20;
  std::string head;
  char buf[1 << 16];
  size_t nl = std::string::npos;
  for (;;) {
    const size_t start = head.find_first_not_of(" \t\r\n");
    if (start != std::string::npos) {
      head.erase(0, start);
      nl = head.find('\n');
      if (nl != std::string::npos || head.size() > kMaxFirstLine) break;
    } else {
      head.clear();
    }
    const ssize_t n = read(f.fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      throw UsageError(fmt::format("{} '{}' cannot be read: {}", what, path, std::strerror(errno)));
    }
    if (n == 0) break;
    head.append(buf, static_cast<size_t>(n));
  }
  if (head.empty()) return;                                    // empty or blank
  if (nl == std::string::npos && head.front() == '{') return;  // a torn first record
  const auto first = nlohmann::json::parse(head.substr(0, nl), nullptr, false);
  if (first.is_object() && first.contains("schema_version")) return;
  throw UsageError(fmt::format(
      "{} '{}' exists and is not a pmemids result file (its first line is not a pmemids "
      "record); accepted: a result file to append to, an empty file or a new file's path",
      what, path));
}

void create_parent_dirs(const std::string& path, const std::string& what) {
  const fs::path parent = fs::path(path).parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) {
    throw UsageError(fmt::format("{} '{}': cannot create directory '{}': {}", what, path,
                                 parent.string(), ec.message()));
  }
}

}  // namespace pmemids
