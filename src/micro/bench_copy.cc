// micro copy: copying into or setting persistent memory (seed 003, Figures
// 4.6-4.9), with the non-temporal threshold under control.
//
//   --fn memcpy (from a DRAM source kept in cache) or memset
//   --op libc            memcpy / memset only
//        libc+flush      + pmemids' flush of the chunk (no fence)
//        libc+persist    + pmemids' flush and a store fence
//        pmem-nodrain    pmem_memcpy_nodrain / pmem_memset_nodrain
//        pmem-persist    pmem_memcpy_persist / pmem_memset_persist
//   --movnt-threshold    libpmem's PMEM_MOVNT_THRESHOLD for the pmem-* ops: a
//                        list sweeps it (points needing another value than this
//                        process was started with run in a child), so the
//                        128 -> 256 B step can be attributed to the switch to
//                        non-temporal stores (it moves with the threshold) or to
//                        the media (it stays at 256 B)
// Records carry movnt_threshold and, for pmem-* ops, libpmem_path: the path
// libpmem takes at this size (non-temporal when size >= threshold and
// PMEM_NO_MOVNT is not 1). libpmem's own flushes and fences are not counted.
#include <libpmem.h>

#include <cstdlib>
#include <cstring>

#include "micro/bench.h"
#include "micro/chunks.h"
#include "micro/libpmem_env.h"

namespace pmemids::micro {
namespace {

template <bool Copy,
          int Mode>  // Mode: 0 libc, 1 +flush, 2 +persist, 3 pmem-nodrain, 4 pmem-persist
Measurement copy_with(const BenchEnv& env, const ChunkPlan& plan, const ChunkOrders& orders,
                      char* base, const std::vector<char>& source) {
  HwMem mem{env.policy.insn, env.policy.domain.flushes()};
  const uint64_t size = plan.size;
  const char* const from = source.data();
  return run_chunks(env, plan, orders, base, [&mem, from, size](char* c, uint64_t i) -> uint64_t {
    const int byte = static_cast<int>(i & 0x7f) + 1;
    if constexpr (Mode <= 2) {
      if constexpr (Copy) {
        std::memcpy(c, from, size);
      } else {
        std::memset(c, byte, size);
      }
      if constexpr (Mode >= 1) mem.flush(c, size);
      if constexpr (Mode == 2) mem.fence();
    } else if constexpr (Mode == 3) {
      if constexpr (Copy) {
        pmem_memcpy_nodrain(c, from, size);
      } else {
        pmem_memset_nodrain(c, byte, size);
      }
    } else {
      if constexpr (Copy) {
        pmem_memcpy_persist(c, from, size);
      } else {
        pmem_memset_persist(c, byte, size);
      }
    }
    return 0;
  });
}

template <bool Copy>
Measurement dispatch(int mode, const BenchEnv& env, const ChunkPlan& plan,
                     const ChunkOrders& orders, char* base, const std::vector<char>& source) {
  switch (mode) {
    case 0:
      return copy_with<Copy, 0>(env, plan, orders, base, source);
    case 1:
      return copy_with<Copy, 1>(env, plan, orders, base, source);
    case 2:
      return copy_with<Copy, 2>(env, plan, orders, base, source);
    case 3:
      return copy_with<Copy, 3>(env, plan, orders, base, source);
    default:
      return copy_with<Copy, 4>(env, plan, orders, base, source);
  }
}

int mode_of(const std::string& op) {
  if (op == "libc") return 0;
  if (op == "libc+flush") return 1;
  if (op == "libc+persist") return 2;
  if (op == "pmem-nodrain") return 3;
  return 4;
}

ChunkPlan plan_of(const Point& p, const BenchEnv& env) {
  return chunk_plan(env, static_cast<uint64_t>(p.integer("size")), parse_pattern(p.name("pattern")),
                    env.scalars.ops_per_thread);
}

// The chunks, and the one source chunk in DRAM.
Footprint footprint(const Point& p, const BenchEnv& env) {
  const ChunkPlan plan = plan_of(p, env);
  Footprint f = chunk_footprint(env, plan, "pmem");
  f.memory = saturated(static_cast<long double>(f.memory) + plan.size);
  f.breakdown += fmt::format(", source chunk {}", format_bytes(plan.size));
  return f;
}

Measurement run(const Point& p, const BenchEnv& env) {
  const bool copy = p.name("fn") == "memcpy";
  const int mode = mode_of(p.name("op"));
  const uint64_t threshold = static_cast<uint64_t>(p.integer("movnt-threshold"));
  const ChunkPlan plan = plan_of(p, env);
  Region r = Region::pmem(env.pool_dir, plan_bytes(env, plan));
  const ChunkOrders orders = draw_orders(env, plan);
  // One read-only source for every thread: it stays in each core's cache.
  std::vector<char> source(plan.size);
  for (size_t i = 0; i < source.size(); ++i) source[i] = static_cast<char>(i * 131 + 7);
  char* const base = r.data();
  Measurement m = copy ? dispatch<true>(mode, env, plan, orders, base, source)
                       : dispatch<false>(mode, env, plan, orders, base, source);
  if (mode <= 2) {
    m.flushes =
        mode >= 1 && env.policy.domain.flushes() ? lines_touched(env, plan, orders, base, m) : 0;
    m.fences = mode == 2 ? m.ops : 0;
    m.counted_by = "pmemids";
  } else {
    m.counted_by = "libpmem: not counted";
  }
  m.config = plan_json(env, plan, r);
  m.config["movnt_threshold"] = threshold;
  m.config["movnt_threshold_in_force"] = start_env().movnt_threshold;
  if (mode >= 3) {
    const char* no_movnt = std::getenv("PMEM_NO_MOVNT");
    const bool nt = plan.size >= start_env().movnt_threshold &&
                    !(no_movnt != nullptr && std::strcmp(no_movnt, "1") == 0);
    m.config["libpmem_path"] = nt ? "non-temporal" : "temporal";
  } else {
    m.config["libpmem_path"] = nullptr;
  }
  return m;
}

}  // namespace

BenchSpec copy_bench() {
  const std::string threshold = std::to_string(start_env().movnt_threshold);
  return {
      .name = "copy",
      .summary =
          "memcpy and memset into persistent memory: libc (+ flush, + persist) against "
          "libpmem's, with the non-temporal threshold swept",
      .seeds = "seed 003 Figures 4.6-4.9",
      .needs = {.media = "the 128 -> 256 B rise attributed to the XPLine write-combining buffer"},
      .axes = {{.name = "movnt-threshold",
                .kind = AxisKind::kSize,
                .min = 0,
                .max = double(uint64_t{1} << 40),
                .def = threshold,
                .quick = threshold,
                .help = "libpmem's non-temporal threshold (PMEM_MOVNT_THRESHOLD) for the pmem-* "
                        "ops; default: the one this process was started with"},
               {.name = "fn",
                .names = {"memcpy", "memset"},
                .def = "memcpy,memset",
                .quick = "memcpy,memset",
                .help = "Copy from a DRAM source, or set"},
               {.name = "op",
                .names = {"libc", "libc+flush", "libc+persist", "pmem-nodrain", "pmem-persist"},
                .def = "libc,libc+flush,libc+persist,pmem-nodrain,pmem-persist",
                .quick = "libc,libc+persist,pmem-nodrain,pmem-persist",
                .help = "Copy function and what follows it"},
               {.name = "size",
                .kind = AxisKind::kSize,
                .min = 8,
                .max = double(uint64_t{1} << 30),
                .def = "8:*2:8192",
                .quick = "128,256",
                .help = "Bytes per copy"},
               pattern_axis(),
               sharing_axis(),
               threads_axis()},
      .defaults = {.ops_per_thread = 100000, .region = 64 << 20, .latency_sample = 0.01},
      .quick = {.ops_per_thread = 20000, .region = 16 << 20},
      .uses_libpmem = true,
      .footprint = footprint,
      .run = run,
  };
}

}  // namespace pmemids::micro
