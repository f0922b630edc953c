#include "host/pmem_probe.h"

#include <fmt/format.h>
#include <libpmem.h>
#include <libpmem2.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cstdlib>

#include "errors.h"

namespace pmemids {
namespace {

std::string fs_name(const std::string& dir) {
  struct statfs sf {};
  if (statfs(dir.c_str(), &sf) != 0) return "unknown";
  switch (static_cast<unsigned long>(sf.f_type)) {
    case 0x01021994:
      return "tmpfs";
    case 0xEF53:
      return "ext4";
    case 0x58465342:
      return "xfs";
    case 0x9123683E:
      return "btrfs";
    case 0x794c7630:
      return "overlayfs";
    default:
      return fmt::format("0x{:x}", static_cast<unsigned long>(sf.f_type));
  }
}

std::string granularity_name(pmem2_granularity g) {
  switch (g) {
    case PMEM2_GRANULARITY_BYTE:
      return "byte";
    case PMEM2_GRANULARITY_CACHE_LINE:
      return "cache-line";
    case PMEM2_GRANULARITY_PAGE:
      return "page";
  }
  return "unknown";
}

}  // namespace

PmemProbe probe_pool_dir(const std::string& dir) {
  PmemProbe p;
  p.fs = fs_name(dir);
  std::string path = dir + "/.pmemids-probe-XXXXXX";
  const int fd = mkstemp(path.data());
  if (fd < 0) throw UsageError(fmt::format("pool directory '{}' is not writable", dir));
  unlink(path.c_str());
  pmem2_config* cfg = nullptr;
  pmem2_source* src = nullptr;
  pmem2_map* map = nullptr;
  const bool mapped =
      ftruncate(fd, 4096) == 0 && pmem2_config_new(&cfg) == 0 &&
      pmem2_config_set_required_store_granularity(cfg, PMEM2_GRANULARITY_PAGE) == 0 &&
      pmem2_source_from_fd(&src, fd) == 0 && pmem2_map_new(&map, cfg, src) == 0;
  p.granularity = mapped ? granularity_name(pmem2_map_get_store_granularity(map)) : "unknown";
  if (map != nullptr) pmem2_map_delete(&map);
  if (src != nullptr) pmem2_source_delete(&src);
  if (cfg != nullptr) pmem2_config_delete(&cfg);
  close(fd);
  p.real = p.granularity == "byte" || p.granularity == "cache-line";
  p.auto_flush = pmem_has_auto_flush();
  if (!p.real && std::getenv("PMEM_IS_PMEM_FORCE") == nullptr) {
    setenv("PMEM_IS_PMEM_FORCE", "1", 1);
    p.forced_is_pmem = true;
  }
  return p;
}

}  // namespace pmemids
