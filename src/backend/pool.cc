#include "backend/pool.h"

#include <fcntl.h>
#include <memkind.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "backend/pmemobj_settings.h"
#include "errors.h"
#include "util/file_checks.h"
#include "util/stop_signals.h"

namespace pmemids {

std::string PoolSpec::path() const {
  std::string p = fmt::format("{}/{}.{}", dir, ds, mode);
  if (instance >= 0) p += fmt::format(".{}", instance);
  return p + ".pool";
}

namespace {
// SDS (shutdown state tracking) off at creation: see the header comment.
constexpr int kSdsAtCreate = 0;
}  // namespace

nlohmann::json libpmemobj_settings() {
  nlohmann::json out;
  for (const char* name :
       {"prefault.at_create", "prefault.at_open", "fallocate.at_create", "copy_on_write.at_open"}) {
    int v = 0;
    out[name] = pmemobj_ctl_get(nullptr, name, &v) == 0 ? nlohmann::json(v) : nlohmann::json();
  }
  out["sds.at_create"] = kSdsAtCreate;
  const char* conf = std::getenv("PMEMOBJ_CONF");
  out["PMEMOBJ_CONF"] = conf != nullptr ? nlohmann::json(conf) : nlohmann::json();
  out["tx_log_append_buffer"] = "none";
  out["alloc_classes"] = {{"max_bytes", kClassedBytesMax},
                          {"alignment", kClassAlignment},
                          {"block_bytes", kClassBlockBytes},
                          {"header_typed", "compact"},
                          {"header_bare", "none"}};
  return out;
}

std::string PoolSpec::layout() const { return fmt::format("pmemids/{}/{}/v3", ds, mode); }

std::string resolve_pool_dir(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* env = std::getenv("PMEMIDS_POOL_DIR"); env != nullptr && *env != '\0') return env;
  mkdir(kDefaultPoolDir, 0700);
  return kDefaultPoolDir;
}

void check_pool_dir(const std::string& dir) {
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0) {
    throw UsageError(
        fmt::format("pool directory '{}' does not exist ({}); create it or pass "
                    "--pool-dir / PMEMIDS_POOL_DIR",
                    dir, std::strerror(errno)));
  }
  if (!S_ISDIR(st.st_mode))
    throw UsageError(fmt::format("pool directory '{}' is not a directory", dir));
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    throw UsageError(fmt::format("pool directory '{}' is not writable", dir));
  }
}

namespace {

// Whether a pool file is at `path`. A symbolic link counts as what it points
// to; one that points nowhere, or anything but a regular file, is refused with
// one message whether the pool is to be created or reopened.
bool pool_file_exists(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return false;
    throw UsageError(fmt::format("pool path '{}' cannot be used: {}", path, std::strerror(errno)));
  }
  if (S_ISLNK(st.st_mode) && stat(path.c_str(), &st) != 0) {
    const int err = errno;
    std::error_code ec;
    const std::string target = std::filesystem::read_symlink(path, ec).string();
    throw UsageError(fmt::format(
        "pool path '{}' is a symbolic link to '{}', which cannot be used ({}); remove the link "
        "or choose another --pool-dir",
        path, target, std::strerror(err)));
  }
  if (!S_ISREG(st.st_mode)) {
    throw UsageError(
        fmt::format("pool path '{}' is {}; a pool is a regular file", path, file_kind(st.st_mode)));
  }
  return true;
}

// Reads `n` bytes at `off` of a pool file without mapping it: pmemobj_open
// writes its runtime state into a pool before it checks it, so a refused pool
// would not stay byte-for-byte intact.
bool read_pool_bytes(const std::string& path, void* buf, size_t n, off_t off) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw UsageError(fmt::format("cannot read pool '{}': {}", path, std::strerror(errno)));
  const bool ok = pread(fd, buf, n, off) == static_cast<ssize_t>(n);
  close(fd);
  return ok;
}

// In libpmemobj's on-media format (unchanged since PMDK 1.0) the layout name
// opens the pool descriptor, after the 4 KiB pool header.
void check_layout(const PoolSpec& spec) {
  constexpr off_t kLayoutOffset = 4096;
  char layout[PMEMOBJ_MAX_LAYOUT] = {};
  read_pool_bytes(spec.path(), layout, sizeof layout, kLayoutOffset);
  layout[sizeof layout - 1] = '\0';
  if (spec.layout() != layout) {
    throw UsageError(
        fmt::format("pool '{}' holds layout '{}', not '{}' ({}/{}); refusing to use it",
                    spec.path(), layout, spec.layout(), spec.ds, spec.mode));
  }
}

}  // namespace

void check_pool_file(const PoolSpec& spec) {
  const std::string path = spec.path();
  if (!pool_file_exists(path)) {
    throw UsageError(
        fmt::format("--reopen: pool '{}' does not exist (run once with --keep-pool)", path));
  }
  // The pool header starts with the signature "PMEMOBJ".
  char sig[8] = {};
  if (!read_pool_bytes(path, sig, sizeof sig, 0) || std::memcmp(sig, "PMEMOBJ", 7) != 0) {
    throw UsageError(fmt::format("'{}' is not a libpmemobj pool; refusing to use it", path));
  }
}

ObjPool::ObjPool(const PoolSpec& spec) : spec_(spec) {
  const std::string path = spec.path();
  if (spec.reopen) {
    check_pool_file(spec);
    check_layout(spec);
    pop_ = pmemobj_open(path.c_str(), spec.layout().c_str());
    if (pop_ == nullptr) {
      throw RuntimeError(fmt::format("cannot open pool '{}': {}", path, pmemobj_errormsg()));
    }
    struct stat st {};
    if (stat(path.c_str(), &st) == 0) bytes_ = static_cast<uint64_t>(st.st_size);
    return;
  }
  if (pool_file_exists(path)) {
    throw UsageError(
        fmt::format("pool '{}' already exists; pass --reopen to run on it, or remove it", path));
  }
  int sds = kSdsAtCreate;
  if (pmemobj_ctl_set(nullptr, "sds.at_create", &sds) != 0) {
    throw RuntimeError(fmt::format("cannot disable SDS: {}", pmemobj_errormsg()));
  }
  const uint64_t bytes = std::max<uint64_t>(spec.bytes, PMEMOBJ_MIN_POOL);
  pop_ = pmemobj_create(path.c_str(), spec.layout().c_str(), bytes, 0600);
  if (pop_ == nullptr) {
    throw RuntimeError(
        fmt::format("cannot create pool '{}' of {} bytes: {}", path, bytes, pmemobj_errormsg()));
  }
  created_ = true;
  bytes_ = bytes;
}

ObjPool::~ObjPool() {
  pmemobj_close(pop_);
  if (created_ && (!spec_.keep || stop_requested())) unlink(spec_.path().c_str());
}

KindPool::KindPool(const PoolSpec& spec) {
  const size_t bytes = std::max<size_t>(spec.bytes, MEMKIND_PMEM_MIN_SIZE);
  bytes_ = bytes;
  const int err = memkind_create_pmem(spec.dir.c_str(), bytes, &kind_);
  if (err != 0) {
    char msg[MEMKIND_ERROR_MESSAGE_SIZE];
    memkind_error_message(err, msg, sizeof(msg));
    throw RuntimeError(fmt::format("memkind_create_pmem('{}', {}): {}", spec.dir, bytes, msg));
  }
}

KindPool::~KindPool() { memkind_destroy_kind(kind_); }

}  // namespace pmemids
