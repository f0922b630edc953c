#include "micro/region.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <libpmem.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "errors.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace pmemids::micro {
namespace {

std::string region_path(const std::string& dir) {
  static std::atomic<int> n{0};
  return fmt::format("{}/micro.{}.{}.region", dir, getpid(), n++);
}

pmem2_granularity pmem2_value(Granularity g) {
  switch (g) {
    case Granularity::kByte:
      return PMEM2_GRANULARITY_BYTE;
    case Granularity::kCacheLine:
      return PMEM2_GRANULARITY_CACHE_LINE;
    case Granularity::kPage:
      return PMEM2_GRANULARITY_PAGE;
  }
  return PMEM2_GRANULARITY_PAGE;
}

const char* force_value(Granularity g) {
  switch (g) {
    case Granularity::kByte:
      return "BYTE";
    case Granularity::kCacheLine:
      return "CACHE_LINE";
    case Granularity::kPage:
      return "PAGE";
  }
  return "PAGE";
}

[[noreturn]] void pmem2_fail(const char* what, const std::string& path) {
  throw RuntimeError(fmt::format("{} '{}': {}", what, path, pmem2_errormsg()));
}

}  // namespace

void populate(void* p, uint64_t bytes) {
  if (madvise(p, bytes, MADV_POPULATE_WRITE) == 0) return;
  auto* c = static_cast<volatile char*>(p);
  const long page = sysconf(_SC_PAGESIZE);
  for (uint64_t off = 0; off < bytes; off += static_cast<uint64_t>(page)) c[off] = c[off];
}

std::unique_ptr<ObjPool> micro_pool(const std::string& dir, std::string_view bench,
                                    uint64_t bytes) {
  auto pool = std::make_unique<ObjPool>(PoolSpec{.dir = dir,
                                                 .ds = fmt::format("micro-{}", bench),
                                                 .mode = "pmem-trans",
                                                 .instance = static_cast<int>(getpid()),
                                                 .bytes = bytes});
  // The pool's mappings start at its handle; libpmemobj may map less than the
  // file and protect its headers: populate the writable parts that are mapped.
  const auto a = reinterpret_cast<uintptr_t>(pool->handle());
  const uintptr_t end = a + pool->bytes();
  std::ifstream in("/proc/self/maps");
  std::string line;
  while (std::getline(in, line)) {
    uintptr_t lo = 0, hi = 0;
    char perms[5] = {};
    if (std::sscanf(line.c_str(), "%lx-%lx %4s", &lo, &hi, perms) != 3 || perms[1] != 'w') continue;
    lo = std::max(lo, a);
    hi = std::min(hi, end);
    if (lo < hi) populate(reinterpret_cast<void*>(lo), hi - lo);
  }
  return pool;
}

std::string_view granularity_name(Granularity g) {
  switch (g) {
    case Granularity::kByte:
      return "byte";
    case Granularity::kCacheLine:
      return "cache-line";
    case Granularity::kPage:
      return "page";
  }
  return "?";
}

Region Region::pmem(const std::string& dir, uint64_t bytes) {
  const std::string path = region_path(dir);
  size_t mapped = 0;
  int is_pmem = 0;
  void* p = pmem_map_file(path.c_str(), bytes, PMEM_FILE_CREATE | PMEM_FILE_EXCL, 0600, &mapped,
                          &is_pmem);
  if (p == nullptr) {
    throw RuntimeError(
        fmt::format("cannot map a {}-byte region '{}': {}", bytes, path, pmem_errormsg()));
  }
  unlink(path.c_str());
  Region r;
  r.kind_ = Kind::kPmem;
  r.data_ = static_cast<char*>(p);
  r.bytes_ = bytes;
  r.mapped_ = mapped;
  populate(r.data_, r.mapped_);
  return r;
}

Region Region::pmem2(const std::string& dir, uint64_t bytes, Granularity g, bool dax) {
  const std::string path = region_path(dir);
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw RuntimeError(fmt::format("cannot create '{}': {}", path, std::strerror(errno)));
  }
  unlink(path.c_str());
  const int err = posix_fallocate(fd, 0, static_cast<off_t>(bytes));
  if (err != 0) {
    close(fd);
    throw RuntimeError(
        fmt::format("cannot allocate {} bytes for '{}': {}", bytes, path, std::strerror(err)));
  }
  Region r;
  r.kind_ = Kind::kPmem2;
  r.granularity_ = g;
  // Off DAX every mapping is page-granular; the finer ones need forcing, and
  // forcing page too keeps the three variants' mapping code identical.
  r.forced_ = !dax;
  const char* before = std::getenv("PMEM2_FORCE_GRANULARITY");
  const std::string saved = before != nullptr ? before : "";
  if (r.forced_) setenv("PMEM2_FORCE_GRANULARITY", force_value(g), 1);
  pmem2_config* cfg = nullptr;
  pmem2_source* src = nullptr;
  int rc = pmem2_config_new(&cfg);
  if (rc == 0) rc = pmem2_config_set_required_store_granularity(cfg, pmem2_value(g));
  if (rc == 0) rc = pmem2_source_from_fd(&src, fd);
  if (rc == 0) rc = pmem2_map_new(&r.map_, cfg, src);
  if (r.forced_) {
    if (before != nullptr) {
      setenv("PMEM2_FORCE_GRANULARITY", saved.c_str(), 1);
    } else {
      unsetenv("PMEM2_FORCE_GRANULARITY");
    }
  }
  if (src != nullptr) pmem2_source_delete(&src);
  if (cfg != nullptr) pmem2_config_delete(&cfg);
  close(fd);
  if (rc != 0) pmem2_fail("cannot map with libpmem2", path);
  if (pmem2_map_get_store_granularity(r.map_) != pmem2_value(g)) {
    throw RuntimeError(fmt::format("libpmem2 mapped '{}' at {} granularity, not {}", path,
                                   static_cast<int>(pmem2_map_get_store_granularity(r.map_)),
                                   granularity_name(g)));
  }
  r.data_ = static_cast<char*>(pmem2_map_get_address(r.map_));
  r.bytes_ = bytes;
  r.mapped_ = pmem2_map_get_size(r.map_);
  populate(r.data_, r.mapped_);
  return r;
}

Region Region::dram(uint64_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    throw RuntimeError(fmt::format("cannot map {} bytes of DRAM: {}", bytes, std::strerror(errno)));
  }
  madvise(p, bytes, MADV_NOHUGEPAGE);
  Region r;
  r.kind_ = Kind::kDram;
  r.data_ = static_cast<char*>(p);
  r.bytes_ = bytes;
  r.mapped_ = bytes;
  populate(r.data_, r.mapped_);
  return r;
}

Region Region::of(const std::string& memory, const std::string& dir, uint64_t bytes) {
  return memory == "dram" ? dram(bytes) : pmem(dir, bytes);
}

Region::Region(Region&& o) noexcept
    : data_(o.data_),
      bytes_(o.bytes_),
      mapped_(o.mapped_),
      kind_(o.kind_),
      map_(o.map_),
      granularity_(o.granularity_),
      forced_(o.forced_) {
  o.data_ = nullptr;
  o.map_ = nullptr;
}

Region::~Region() {
  if (data_ == nullptr) return;
  switch (kind_) {
    case Kind::kPmem:
      pmem_unmap(data_, mapped_);
      break;
    case Kind::kPmem2:
      pmem2_map_delete(&map_);
      break;
    case Kind::kDram:
      munmap(data_, mapped_);
      break;
  }
}

pmem2_persist_fn Region::persist_fn() const {
  return map_ != nullptr ? pmem2_get_persist_fn(map_) : nullptr;
}

nlohmann::json Region::describe() const {
  nlohmann::json j = {{"memory", kind_ == Kind::kDram ? "dram" : "pmem"}, {"region_bytes", bytes_}};
  if (kind_ == Kind::kPmem2) {
    j["pmem2_granularity"] = granularity_name(granularity_);
    j["pmem2_granularity_forced"] = forced_;
    if (forced_) {
      j["pmem2_force_granularity"] = force_value(granularity_);
    }
  }
  return j;
}

}  // namespace pmemids::micro
