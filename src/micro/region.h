// The memory a micro bench works on.
//
//   pmem   a file in the pool directory mapped with libpmem (pmem_map_file); on a
//          DAX file system that is real PMEM, elsewhere (tmpfs) emulated PMEM
//   pmem2  the same file mapped with libpmem2 at a required store granularity;
//          where the file system is not DAX the granularity is forced with
//          PMEM2_FORCE_GRANULARITY (libpmem2 reads it at each pmem2_map_new), and
//          describe() says so
//   dram   anonymous memory, huge pages off (as tmpfs pages), the seeds' DRAM
//          control
//
// Files are named <dir>/micro.<pid>.<n>.region, created exclusively and unlinked
// as soon as they are mapped, so nothing is left behind even after a kill.
// Every page is faulted in before the region is returned (MADV_POPULATE_WRITE,
// else one store per page): no page fault is ever timed. Threads bound to a
// NUMA node with bind_memory() before creating a region get its pages there.
#pragma once

#include <libpmem2.h>

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "backend/pool.h"

namespace pmemids::micro {

enum class Granularity : uint8_t { kByte, kCacheLine, kPage };

class Region {
 public:
  static Region pmem(const std::string& dir, uint64_t bytes);
  static Region pmem2(const std::string& dir, uint64_t bytes, Granularity g, bool dax);
  static Region dram(uint64_t bytes);
  // "pmem" or "dram".
  static Region of(const std::string& memory, const std::string& dir, uint64_t bytes);

  Region(Region&& o) noexcept;
  Region& operator=(Region&&) = delete;
  Region(const Region&) = delete;
  ~Region();

  char* data() const { return data_; }
  uint64_t bytes() const { return bytes_; }
  // libpmem2's persist function for this mapping (pmem2 regions only).
  pmem2_persist_fn persist_fn() const;
  // {"memory", "region_bytes", and for pmem2 "pmem2_granularity",
  //  "pmem2_granularity_forced"}
  nlohmann::json describe() const;

 private:
  Region() = default;
  char* data_ = nullptr;
  uint64_t bytes_ = 0;
  uint64_t mapped_ = 0;
  enum class Kind : uint8_t { kPmem, kPmem2, kDram } kind_ = Kind::kDram;
  pmem2_map* map_ = nullptr;
  Granularity granularity_ = Granularity::kPage;
  bool forced_ = false;
};

std::string_view granularity_name(Granularity g);

// Faults every page of [p, p+bytes) in for writing without changing it
// (MADV_POPULATE_WRITE, else one store per page rewriting its first byte).
void populate(void* p, uint64_t bytes);

// A fresh libpmemobj pool for a micro bench, <dir>/micro-<bench>.pmem-trans.<pid>.pool,
// every page faulted in; deleted when the ObjPool is destroyed.
std::unique_ptr<ObjPool> micro_pool(const std::string& dir, std::string_view bench, uint64_t bytes);

}  // namespace pmemids::micro
