// The files a command reads and writes (workload files, sweep files, result
// files), checked before any work starts, with one message per cause.
//
// An input must be a regular file: a directory, FIFO, socket or device, or a
// file of the proc or sys file systems (/proc/self/mem), is refused without
// reading it (a FIFO is opened non-blocking, so no writer is waited for), and
// reading stops at a size limit. An output must be a regular file or absent
// with a directory it can be created in; /dev/full, a directory or a FIFO are
// refused before anything runs, as is a parent directory that cannot be
// created, with the reason (a read-only file system, no permission).
// A result file (--out of run, micro, crash, sweep) that exists must hold
// pmemids records. Every refusal is a UsageError "<what> '<path>' ...".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace pmemids {

// Property and sweep files: far larger than any real one.
inline constexpr size_t kMaxInputBytes = size_t{1} << 20;

// A regular file opened for reading (close-on-exec, blocking reads), after the
// checks above; owns the descriptor. `size` is the file's size when opened.
class InputFile {
 public:
  InputFile(const std::string& path, const std::string& what);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  int fd() const { return fd_; }
  uint64_t size() const { return size_; }

 private:
  int fd_ = -1;
  uint64_t size_ = 0;
};

// The whole content of the regular file `path`. `what` names it in messages
// ("workload file", "sweep file").
std::string read_input_file(const std::string& path, const std::string& what,
                            size_t max_bytes = kMaxInputBytes);

// Checks that `path` can be written (appended to, or created together with
// its missing parent directories) without writing or creating anything; "-"
// (stdout) always can.
void check_output_path(const std::string& path, const std::string& what);

// check_output_path for a file of result records (JSON lines), and when it
// exists and is not empty, its first line must be a pmemids record (a JSON
// object with "schema_version"; a file holding only a torn first record, no
// line end yet, may continue): records are never appended to a file of
// something else (run, micro, crash, sweep --out; reproduce's outputs follow
// the same rule in python/pmemids_report/outputs.py).
void check_results_output(const std::string& path, const std::string& what);

// Creates the missing parent directories of `path`; UsageError naming the
// directory and the reason (e.g. "Read-only file system") when one cannot be.
void create_parent_dirs(const std::string& path, const std::string& what);

// "a directory", "a FIFO", ...: the kind of a file that is not a regular one.
std::string file_kind(unsigned mode);

}  // namespace pmemids
