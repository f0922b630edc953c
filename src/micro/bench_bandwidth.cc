// micro bandwidth: load / store / p-store / nt-store bandwidth against IO size,
// pattern and threads (seed 002, Figures 3(b)-(d), 4(a), 6, 7(a)-(c): I2, I3,
// I5, I6; I4 with --numa remote).
//
// Each thread walks its region (--region bytes) in IO-sized blocks, sequentially
// or in a random permutation drawn before timing, for --duration seconds after
// an untimed --ramp; every IO is one of
//   load     loads of every 8-byte word of the block (summed and consumed): 100% loads
//   store    regular stores + one store fence (the seed's store: a p-store with
//            PMEM_NO_FLUSH=1)
//   pstore   regular stores + write-back of the block's lines + one store fence
//   ntstore  non-temporal stores + one store fence
// Throughput is GiB/s over the common window. --numa remote puts the memory on
// another node than the workers (exit 2 on a one-node machine).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <numa.h>

#include "errors.h"
#include "micro/bench.h"
#include "micro/chunks.h"

namespace pmemids::micro {
namespace {

IoAccess parse_access(const std::string& s) {
  if (s == "store") return IoAccess::kStore;
  if (s == "pstore") return IoAccess::kPStore;
  if (s == "ntstore") return IoAccess::kNtStore;
  return IoAccess::kLoad;
}

template <IoAccess A>
Measurement measure_io(const BenchEnv& env, const ChunkPlan& plan, const ChunkOrders& orders,
                       char* base) {
  HwMem mem{env.policy.insn, env.policy.domain.flushes()};
  const uint64_t io = plan.size;
  return run_chunks(env, plan, orders, base, [&mem, io](char* c, uint64_t i) -> uint64_t {
    return bandwidth_io<A>(mem, c, io, i + 1);
  });
}

int cpu_node_of(const BenchEnv& env) {
  if (env.cpu_node) return *env.cpu_node;
  const std::vector<int> nodes = numa_nodes();
  return nodes.empty() ? 0 : nodes.front();
}

void check(const Point& p, const BenchEnv& env) {
  if (p.name("numa") != "remote") return;
  const std::vector<int> nodes = numa_nodes();
  if (nodes.size() < 2) {
    throw UsageError(fmt::format(
        "--numa remote: needs a second NUMA node for the memory; this machine has {} node{} ({}); "
        "accepted here: --numa local",
        nodes.size(), nodes.size() == 1 ? "" : "s", fmt::join(nodes, ", ")));
  }
  if (env.mem_node) {
    throw UsageError(
        "--numa remote places the memory itself; accepted: --numa remote without --mem-node");
  }
}

ChunkPlan plan_of(const Point& p, const BenchEnv& env) {
  return chunk_plan(env, static_cast<uint64_t>(p.integer("io")), parse_pattern(p.name("pattern")),
                    0);
}

Footprint footprint(const Point& p, const BenchEnv& env) {
  return chunk_footprint(env, plan_of(p, env), p.name("memory"));
}

Measurement run(const Point& p, const BenchEnv& env) {
  const IoAccess a = parse_access(p.name("access"));
  const ChunkPlan plan = plan_of(p, env);
  const bool remote = p.name("numa") == "remote";
  int mem_node = -1;
  if (remote) {
    const int cpu = cpu_node_of(env);
    for (int n : numa_nodes()) {
      if (n != cpu) {
        mem_node = n;
        break;
      }
    }
    bind_memory(mem_node);
  }
  Region r = Region::of(p.name("memory"), env.pool_dir, plan_bytes(env, plan));
  if (remote) numa_set_localalloc();
  const ChunkOrders orders = draw_orders(env, plan);
  char* const base = r.data();
  Measurement m;
  switch (a) {
    case IoAccess::kLoad:
      m = measure_io<IoAccess::kLoad>(env, plan, orders, base);
      break;
    case IoAccess::kStore:
      m = measure_io<IoAccess::kStore>(env, plan, orders, base);
      break;
    case IoAccess::kPStore:
      m = measure_io<IoAccess::kPStore>(env, plan, orders, base);
      break;
    case IoAccess::kNtStore:
      m = measure_io<IoAccess::kNtStore>(env, plan, orders, base);
      break;
  }
  m.flushes = a == IoAccess::kPStore && env.policy.domain.flushes()
                  ? lines_touched(env, plan, orders, base, m)
                  : 0;
  m.fences = a == IoAccess::kLoad ? 0 : m.ops;
  m.counted_by = "pmemids";
  m.config = plan_json(env, plan, r);
  m.config["memory_node"] = remote ? nlohmann::json(mem_node) : nlohmann::json();
  if (a == IoAccess::kNtStore) m.config["nt_store_bytes"] = nt_fill_width();
  return m;
}

}  // namespace

BenchSpec bandwidth_bench() {
  return {
      .name = "bandwidth",
      .summary =
          "Load, store, p-store and nt-store bandwidth against IO size, pattern, threads "
          "and NUMA placement",
      .seeds = "seed 002 Figures 3(b)-(d), 4(a), 5, 6, 7(a)-(c) (I2, I3, I4, I5, I6)",
      .needs = {.media = "I2's extra PMEM asymmetry, I3 (256-B XPLine), I5 and I6's PMEM part "
                         "(XPPrefetcher)"},
      .axes = {{.name = "access",
                .names = {"load", "store", "pstore", "ntstore"},
                .def = "load,store,pstore,ntstore",
                .quick = "load,store,pstore,ntstore",
                .help = "What each IO does"},
               pattern_axis("seq,rand"),
               {.name = "io",
                .kind = AxisKind::kSize,
                .min = 8,
                .max = double(uint64_t{1} << 30),
                .def = "64:*2:4096",
                .quick = "64,4096",
                .help = "Bytes per IO"},
               {.name = "memory",
                .names = {"pmem", "dram"},
                .def = "pmem",
                .quick = "pmem",
                .help = "A file in the pool directory, or anonymous DRAM (the seeds' control)"},
               {.name = "numa",
                .names = {"local", "remote"},
                .def = "local",
                .quick = "local",
                .help = "Memory on the workers' node, or on another node (I4)"},
               sharing_axis(),
               threads_axis()},
      .defaults = {.region = uint64_t{1} << 30, .duration = 5, .ramp = 1},
      .quick = {.region = 32 << 20, .duration = 0.2, .ramp = 0.05},
      .all = {.region = 256 << 20, .duration = 1, .ramp = 0.25},
      .check = check,
      .footprint = footprint,
      .run = run,
  };
}

}  // namespace pmemids::micro
