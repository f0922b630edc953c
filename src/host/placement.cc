#include "host/placement.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <numa.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>

#include "errors.h"

namespace pmemids {
namespace {

bool have_numa() { return numa_available() >= 0; }

int read_topology(int cpu, const char* field) {
  std::ifstream in(fmt::format("/sys/devices/system/cpu/cpu{}/topology/{}", cpu, field));
  int v = 0;
  return (in >> v) ? v : 0;
}

int node_of(int cpu) {
  if (!have_numa()) return 0;
  const int n = numa_node_of_cpu(cpu);
  return n < 0 ? 0 : n;
}

void check_node(const char* flag, int node) {
  const std::vector<int> nodes = numa_nodes();
  if (std::find(nodes.begin(), nodes.end(), node) == nodes.end()) {
    throw UsageError(fmt::format("{} {}: no such NUMA node; this machine has node{} {}", flag, node,
                                 nodes.size() == 1 ? "" : "s", fmt::join(nodes, ", ")));
  }
}

struct CpuInfo {
  int cpu, node, package, core, sibling, core_rank;
};

// Topology of `cpus`: sibling = rank among the hardware threads of its core,
// core_rank = rank of its core among the cores of its node.
std::vector<CpuInfo> describe(const std::vector<int>& cpus) {
  std::vector<CpuInfo> info;
  for (int c : cpus) {
    info.push_back({c, node_of(c), read_topology(c, "physical_package_id"),
                    read_topology(c, "core_id"), 0, 0});
  }
  std::map<std::tuple<int, int>, int> siblings;              // (package, core) -> seen
  std::map<int, std::map<std::tuple<int, int>, int>> cores;  // node -> core -> rank
  for (auto& i : info) {
    i.sibling = siblings[{i.package, i.core}]++;
    auto& ranks = cores[i.node];
    i.core_rank = ranks.emplace(std::make_tuple(i.package, i.core), static_cast<int>(ranks.size()))
                      .first->second;
  }
  return info;
}

}  // namespace

std::vector<int> node_cpus(int node) {
  std::vector<int> out;
  bitmask* bm = numa_allocate_cpumask();
  if (numa_node_to_cpus(node, bm) == 0) {
    for (unsigned c = 0; c < bm->size; ++c) {
      if (numa_bitmask_isbitset(bm, c) != 0) out.push_back(static_cast<int>(c));
    }
  }
  numa_free_cpumask(bm);
  return out;
}

std::vector<int> numa_nodes() {
  std::vector<int> out;
  if (!have_numa()) {  // the nodes still exist; this process just cannot set policies
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/sys/devices/system/node", ec)) {
      const std::string name = e.path().filename().string();
      if (name.size() > 4 && name.rfind("node", 0) == 0 &&
          name.find_first_not_of("0123456789", 4) == std::string::npos) {
        out.push_back(std::stoi(name.substr(4)));
      }
    }
    std::sort(out.begin(), out.end());
    if (out.empty()) out.push_back(0);
    return out;
  }
  for (int n = 0; n <= numa_max_node(); ++n) {
    if (numa_bitmask_isbitset(numa_nodes_ptr, static_cast<unsigned>(n)) != 0) out.push_back(n);
  }
  return out;
}

std::vector<int> current_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) out.push_back(c);
  }
  return out;
}

Placement plan_placement(const PlacementRequest& req) {
  if (req.cpu_node) check_node("--cpu-node", *req.cpu_node);
  if (req.mem_node) check_node("--mem-node", *req.mem_node);
  if ((req.cpu_node || req.mem_node) && !have_numa()) {
    throw UsageError(
        "--cpu-node/--mem-node: this process cannot set NUMA policies (libnuma: "
        "numa_available() failed; a container without CAP_SYS_NICE?)");
  }

  Placement p;
  p.mem_node = req.mem_node;
  std::vector<int> cpus = current_cpus();
  if (req.cpu_node) {
    const std::vector<int> on_node = node_cpus(*req.cpu_node);
    std::erase_if(
        cpus, [&](int c) { return std::find(on_node.begin(), on_node.end(), c) == on_node.end(); });
    if (cpus.empty()) {
      throw UsageError(fmt::format(
          "--cpu-node {}: the node has no CPUs this process may run on (CPUs {}; allowed {})",
          *req.cpu_node, fmt::join(on_node, ","), fmt::join(current_cpus(), ",")));
    }
  }
  p.allowed_cpus = static_cast<int>(cpus.size());
  std::vector<CpuInfo> info = describe(cpus);
  if (req.pin == PinPolicy::kCores) {
    std::erase_if(info, [](const CpuInfo& c) { return c.sibling != 0; });
    p.allowed_cpus = static_cast<int>(info.size());
  }
  if (req.threads > p.allowed_cpus) {
    p.warnings.push_back(fmt::format(
        "{} worker threads on {} allowed CPUs: oversubscribed, threads share CPUs (recorded as "
        "\"oversubscribed\": true)",
        req.threads, p.allowed_cpus));
  }
  if (req.pin == PinPolicy::kNone) {
    p.thread_cpus.assign(req.threads, req.cpu_node ? cpus : std::vector<int>{});
    return p;
  }
  if (req.pin == PinPolicy::kCompact) {
    std::sort(info.begin(), info.end(), [](const CpuInfo& a, const CpuInfo& b) {
      return std::tie(a.node, a.package, a.core, a.sibling) <
             std::tie(b.node, b.package, b.core, b.sibling);
    });
  } else {
    std::sort(info.begin(), info.end(), [](const CpuInfo& a, const CpuInfo& b) {
      return std::tie(a.sibling, a.core_rank, a.node) < std::tie(b.sibling, b.core_rank, b.node);
    });
  }
  for (int t = 0; t < req.threads; ++t) p.thread_cpus.push_back({info[t % info.size()].cpu});
  return p;
}

void run_on_node(int node) {
  if (numa_run_on_node(node) != 0) {
    throw RuntimeError(
        fmt::format("--cpu-node {}: cannot run on the node: {}", node, std::strerror(errno)));
  }
}

void bind_memory(int node) {
  bitmask* bm = numa_allocate_nodemask();
  numa_bitmask_setbit(bm, static_cast<unsigned>(node));
  numa_set_membind(bm);
  bitmask* got = numa_get_membind();
  const bool ok = numa_bitmask_equal(bm, got) != 0;
  numa_free_nodemask(got);
  numa_free_nodemask(bm);
  if (!ok)
    throw RuntimeError(fmt::format("--mem-node {}: memory binding did not take effect", node));
}

std::vector<int> apply_placement(const Placement& placement, int t) {
  const std::vector<int> want = static_cast<size_t>(t) < placement.thread_cpus.size()
                                    ? placement.thread_cpus[t]
                                    : std::vector<int>{};
  if (!want.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : want) CPU_SET(c, &set);
    const int rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    if (rc != 0 || current_cpus() != want) {
      throw RuntimeError(fmt::format("thread {}: CPU affinity {} did not take effect (now {})", t,
                                     fmt::join(want, ","), fmt::join(current_cpus(), ",")));
    }
  }
  if (placement.mem_node) bind_memory(*placement.mem_node);
  return current_cpus();
}

}  // namespace pmemids
