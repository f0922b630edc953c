// Whether the pool directory is real PMEM or emulated: the probe every command
// makes before it opens a pool (run/context.h records what it found).
#pragma once

#include <string>

namespace pmemids {

struct PmemProbe {
  bool real = false;            // the pool directory is DAX-mapped PMEM
  std::string granularity;      // libpmem2 store granularity: byte, cache-line, page
  std::string fs;               // file system type of the pool directory
  bool forced_is_pmem = false;  // we set PMEM_IS_PMEM_FORCE=1 for this process
  int auto_flush = -1;          // pmem_has_auto_flush(): 1 eADR, 0 not, -1 unknown

  // The platform keeps CPU caches persistent (eADR): byte store granularity,
  // or libpmem reports automatic flushing.
  bool platform_eadr() const { return granularity == "byte" || auto_flush == 1; }
};

// Maps a scratch file in `dir` with libpmem2 to learn its store granularity:
// page granularity means no DAX, i.e. emulated PMEM. When emulated and the user
// has not set PMEM_IS_PMEM_FORCE, sets it to 1 so libpmemobj flushes with cache
// line instructions instead of msync (call before any pool is opened).
PmemProbe probe_pool_dir(const std::string& dir);

}  // namespace pmemids
