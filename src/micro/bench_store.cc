// micro store: the store and write-back instructions themselves (seed 002's
// R3: store + flush against non-temporal stores, per operation).
//
// Each operation writes every byte of one chunk with regular stores and writes
// its lines back with the access' instruction (store: none; clwb, clflushopt,
// clflush), or writes it with non-temporal stores (ntstore); --fence each puts
// a store fence after every operation, end one after the thread's last, none
// none. The instructions are named explicitly, so --flush and --domain do not
// change them (they are recorded). Counts are exact.
#include <fmt/format.h>

#include "errors.h"
#include "micro/bench.h"
#include "micro/chunks.h"

namespace pmemids::micro {
namespace {

StoreAccess parse_access(const std::string& s) {
  if (s == "clwb") return StoreAccess::kClwb;
  if (s == "clflushopt") return StoreAccess::kClflushopt;
  if (s == "clflush") return StoreAccess::kClflush;
  if (s == "ntstore") return StoreAccess::kNtStore;
  return StoreAccess::kStore;
}

template <StoreAccess A>
Measurement measure_access(const BenchEnv& env, const ChunkPlan& plan, const ChunkOrders& orders,
                           char* base, bool fence_each, bool fence_end) {
  HwMem mem{env.policy.insn, true};
  const uint64_t size = plan.size;
  const uint64_t last = plan.ops - 1;
  return run_chunks(env, plan, orders, base,
                    [&mem, size, fence_each, fence_end, last](char* c, uint64_t i) -> uint64_t {
                      store_chunk<A>(mem, c, size, i + 1);
                      if (fence_each || (fence_end && i == last)) mem.fence();
                      return 0;
                    });
}

void check(const Point& p, const BenchEnv&) {
  const StoreAccess a = parse_access(p.name("access"));
  if (a == StoreAccess::kStore || a == StoreAccess::kNtStore) return;
  const CpuFlushSupport& cpu = CpuFlushSupport::host();
  if (!cpu.has(store_access_insn(a))) {
    throw UsageError(fmt::format("--access {}: this CPU does not have it; it has: {}",
                                 p.name("access"), cpu.names()));
  }
}

ChunkPlan plan_of(const Point& p, const BenchEnv& env) {
  return chunk_plan(env, static_cast<uint64_t>(p.integer("size")), parse_pattern(p.name("pattern")),
                    env.scalars.ops_per_thread);
}

Footprint footprint(const Point& p, const BenchEnv& env) {
  return chunk_footprint(env, plan_of(p, env), p.name("memory"));
}

Measurement run(const Point& p, const BenchEnv& env) {
  const StoreAccess a = parse_access(p.name("access"));
  const std::string& fence = p.name("fence");
  const bool each = fence == "each", end = fence == "end";
  const ChunkPlan plan = plan_of(p, env);
  Region r = Region::of(p.name("memory"), env.pool_dir, plan_bytes(env, plan));
  const ChunkOrders orders = draw_orders(env, plan);
  char* const base = r.data();
  Measurement m;
  switch (a) {
    case StoreAccess::kStore:
      m = measure_access<StoreAccess::kStore>(env, plan, orders, base, each, end);
      break;
    case StoreAccess::kClwb:
      m = measure_access<StoreAccess::kClwb>(env, plan, orders, base, each, end);
      break;
    case StoreAccess::kClflushopt:
      m = measure_access<StoreAccess::kClflushopt>(env, plan, orders, base, each, end);
      break;
    case StoreAccess::kClflush:
      m = measure_access<StoreAccess::kClflush>(env, plan, orders, base, each, end);
      break;
    case StoreAccess::kNtStore:
      m = measure_access<StoreAccess::kNtStore>(env, plan, orders, base, each, end);
      break;
  }
  const bool flushing = a != StoreAccess::kStore && a != StoreAccess::kNtStore;
  m.flushes = flushing ? lines_touched(env, plan, orders, base, m) : 0;
  uint64_t fences = each ? m.ops : 0;
  if (end) {
    for (uint64_t done : m.thread_ops) fences += done == plan.ops ? 1 : 0;
  }
  m.fences = fences;
  m.counted_by = "pmemids";
  m.config = plan_json(env, plan, r);
  if (a == StoreAccess::kNtStore) m.config["nt_store_bytes"] = nt_fill_width();
  return m;
}

}  // namespace

BenchSpec store_bench() {
  return {
      .name = "store",
      .summary = "Stores with each write-back instruction, or non-temporal stores, and fences",
      .seeds = "seed 002 R3 (store + flush vs nt-store per operation)",
      .axes = {{.name = "access",
                .names = {"store", "clwb", "clflushopt", "clflush", "ntstore"},
                .def = "store,clwb,clflushopt,clflush,ntstore",
                .quick = "store,clwb,clflushopt,clflush,ntstore",
                .help = "Instructions of an operation"},
               {.name = "fence",
                .names = {"each", "end", "none"},
                .def = "each",
                .quick = "each",
                .help = "A store fence after each operation, after the thread's last, or none"},
               {.name = "size",
                .kind = AxisKind::kSize,
                .min = 8,
                .max = double(uint64_t{1} << 30),
                .def = "64:*2:4096",
                .quick = "64,4096",
                .help = "Chunk bytes"},
               pattern_axis(),
               {.name = "memory",
                .names = {"pmem", "dram"},
                .def = "pmem",
                .quick = "pmem",
                .help = "A file in the pool directory, or anonymous DRAM (the seeds' control)"},
               sharing_axis(),
               threads_axis()},
      .defaults = {.ops_per_thread = 100000, .region = 64 << 20, .latency_sample = 0.01},
      .quick = {.ops_per_thread = 20000, .region = 16 << 20},
      .check = check,
      .footprint = footprint,
      .run = run,
  };
}

}  // namespace pmemids::micro
