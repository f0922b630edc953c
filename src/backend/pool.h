// Pool files: where they live, how big they are, and the libpmemobj pool handle
// shared by the pmem-persist and pmem-trans backends.
//
// A pool file is named <dir>/<ds>.<mode>[.<instance>].pool and created with the
// layout "pmemids/<ds>/<mode>/v3" (v2: the root record follows the lock slot
// prefix, see backend.h; v3: the B-trees' values and the nodes of the
// hashtable, linked list, skip list and rbtree are bare objects, without
// libpmemobj's header: kTypeBare in backend.h); opening a file whose layout
// differs is refused (UsageError) and leaves the file untouched. Creating over
// an existing file is refused too: pass reopen to use it. Shadow data structures (SDS) are disabled
// at creation through the ctl API so pools work on emulated PMEM and on PMDK 2.x.
#pragma once

#include <libpmemobj.h>

#include <cstdint>
#include <string>

struct memkind;

namespace pmemids {

struct PoolSpec {
  std::string dir;      // pool directory (must exist and be writable)
  std::string ds;       // structure name, part of file name and layout
  std::string mode;     // persistence mode name, part of file name and layout
  int instance = -1;    // >= 0 for per-thread pools (parallel mode)
  uint64_t bytes = 0;   // pool size used at creation
  bool reopen = false;  // open an existing pool instead of creating one
  bool keep = false;    // keep the file when the backend is destroyed

  std::string path() const;
  std::string layout() const;
};

// Read-only checks of the file a reopen would open, without mapping it: it
// exists, is a regular file (a symbolic link to one is accepted), and starts
// with libpmemobj's signature. UsageError otherwise.
void check_pool_file(const PoolSpec& spec);

// Checks that dir exists, is a directory and is writable; UsageError otherwise.
void check_pool_dir(const std::string& dir);

// A pool's size when --pool-size is not given: twice the structure's own
// estimate of its bytes, plus 64 MiB for libpmemobj's metadata and logs.
constexpr uint64_t default_pool_bytes(uint64_t structure_bytes) {
  return structure_bytes * 2 + (uint64_t{64} << 20);
}

// The embedded default pool directory: DRAM-backed, so PMEM is emulated there.
inline constexpr const char* kDefaultPoolDir = "/dev/shm/pmemids";

// The pool directory every command uses: `flag` when given, else
// $PMEMIDS_POOL_DIR, else kDefaultPoolDir, which is created if missing (the
// embedded default is ours to create; a directory the user names is not).
std::string resolve_pool_dir(const std::string& flag);

// An open libpmemobj pool. Closes on destruction; a pool it created is deleted
// unless spec.keep (also when the run failed), and also with spec.keep when
// the run was interrupted (SIGINT / SIGTERM); a reopened pool is the user's
// data and is never deleted. A dangling symbolic link or anything but a
// regular file at the pool path is refused (UsageError) before any open.
class ObjPool {
 public:
  explicit ObjPool(const PoolSpec& spec);
  ~ObjPool();
  ObjPool(const ObjPool&) = delete;
  ObjPool& operator=(const ObjPool&) = delete;

  PMEMobjpool* handle() const { return pop_; }
  bool created() const { return created_; }  // false when an existing pool was opened
  uint64_t bytes() const { return bytes_; }  // size of the pool file
  const PoolSpec& spec() const { return spec_; }

 private:
  PoolSpec spec_;
  PMEMobjpool* pop_ = nullptr;
  bool created_ = false;
  uint64_t bytes_ = 0;
};

// A memkind PMEM kind backed by a temporary file in spec.dir (pmem-volatile).
class KindPool {
 public:
  explicit KindPool(const PoolSpec& spec);
  ~KindPool();
  KindPool(const KindPool&) = delete;
  KindPool& operator=(const KindPool&) = delete;
  ::memkind* kind() const { return kind_; }
  uint64_t bytes() const { return bytes_; }  // the kind's maximum size

 private:
  ::memkind* kind_ = nullptr;
  uint64_t bytes_ = 0;
};

}  // namespace pmemids
