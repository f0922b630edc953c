#include "backend/pool.h"

#include <fcntl.h>
#include <memkind.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "errors.h"

namespace pmemids {

std::string PoolSpec::path() const {
  std::string p = fmt::format("{}/{}.{}", dir, ds, mode);
  if (instance >= 0) p += fmt::format(".{}", instance);
  return p + ".pool";
}

std::string PoolSpec::layout() const { return fmt::format("pmemids/{}/{}/v2", ds, mode); }

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

// Reads the signature and layout name of a libpmemobj pool file without mapping
// it: pmemobj_open would write its runtime state into a pool before it checks the
// layout, so a refused pool would not stay byte-for-byte intact. In libpmemobj's
// on-media format (unchanged since PMDK 1.0) the 4 KiB pool header starts with
// the signature "PMEMOBJ" and the layout name opens the pool descriptor after it.
void check_layout_before_open(const PoolSpec& spec) {
  constexpr off_t kLayoutOffset = 4096;
  const std::string path = spec.path();
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw UsageError(fmt::format("cannot read pool '{}': {}", path, std::strerror(errno)));
  char sig[8] = {};
  char layout[PMEMOBJ_MAX_LAYOUT] = {};
  const bool ok = pread(fd, sig, sizeof sig, 0) == sizeof sig &&
                  pread(fd, layout, sizeof layout, kLayoutOffset) == sizeof layout;
  close(fd);
  if (!ok || std::memcmp(sig, "PMEMOBJ", 7) != 0) {
    throw UsageError(fmt::format("'{}' is not a libpmemobj pool; refusing to use it", path));
  }
  layout[sizeof layout - 1] = '\0';
  if (spec.layout() != layout) {
    throw UsageError(
        fmt::format("pool '{}' holds layout '{}', not '{}' ({}/{}); refusing to use it", path,
                    layout, spec.layout(), spec.ds, spec.mode));
  }
}

}  // namespace

ObjPool::ObjPool(const PoolSpec& spec) : spec_(spec) {
  const std::string path = spec.path();
  const bool exists = access(path.c_str(), F_OK) == 0;
  if (spec.reopen) {
    if (!exists) {
      throw UsageError(
          fmt::format("--reopen: pool '{}' does not exist (run once with --keep-pool)", path));
    }
    check_layout_before_open(spec);
    pop_ = pmemobj_open(path.c_str(), spec.layout().c_str());
    if (pop_ == nullptr) {
      throw RuntimeError(fmt::format("cannot open pool '{}': {}", path, pmemobj_errormsg()));
    }
    struct stat st {};
    if (stat(path.c_str(), &st) == 0) bytes_ = static_cast<uint64_t>(st.st_size);
    return;
  }
  if (exists) {
    throw UsageError(
        fmt::format("pool '{}' already exists; pass --reopen to run on it, or remove it", path));
  }
  int sds = 0;
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
  if (!spec_.keep && !spec_.reopen) unlink(spec_.path().c_str());
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
