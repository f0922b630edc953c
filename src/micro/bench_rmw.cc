// micro rmw: repeated non-temporal p-stores into one 256-byte XPLine per thread
// (seed 002, Figure 7(d): I7, "p-stores are read-modify-write").
//
// Each operation writes `io` bytes with non-temporal stores and fences; the
// operations of a thread cycle through the same 256-B aligned line (io < 256:
// 256 / io writes cover it once; larger IOs rewrite the same io bytes). The
// seed's evidence is EWR and RWR from DCPMM counters: they are never printed
// here (no counters); what runs is the bandwidth of the pattern.
#include "micro/bench.h"
#include "micro/chunks.h"

namespace pmemids::micro {
namespace {

constexpr uint64_t kXpLine = 256;

// One XPLine (or one IO when larger) per thread, rewritten by every operation.
ChunkPlan plan_of(const Point& p, const BenchEnv& env) {
  const uint64_t io = static_cast<uint64_t>(p.integer("io"));
  BenchEnv line_env = env;
  line_env.scalars.region = std::max(kXpLine, io);
  return chunk_plan(line_env, io, Pattern::kSeq, env.scalars.ops_per_thread);
}

Footprint footprint(const Point& p, const BenchEnv& env) {
  return chunk_footprint(env, plan_of(p, env), p.name("memory"));
}

Measurement run(const Point& p, const BenchEnv& env) {
  const uint64_t io = static_cast<uint64_t>(p.integer("io"));
  const ChunkPlan plan = plan_of(p, env);
  Region r = Region::of(p.name("memory"), env.pool_dir, plan_bytes(env, plan));
  const ChunkOrders orders = draw_orders(env, plan);
  HwMem mem{env.policy.insn, env.policy.domain.flushes()};
  Measurement m =
      run_chunks(env, plan, orders, r.data(), [&mem, io](char* c, uint64_t i) -> uint64_t {
        mem.nt_store(c, io, i + 1);
        mem.fence();
        return 0;
      });
  m.flushes = 0;
  m.fences = m.ops;
  m.counted_by = "pmemids";
  m.config = plan_json(env, plan, r);
  m.config["xpline_bytes"] = kXpLine;
  m.config["nt_store_bytes"] = nt_fill_width();
  m.metrics["ewr"] = nullptr;
  m.metrics["rwr"] = nullptr;
  return m;
}

}  // namespace

BenchSpec rmw_bench() {
  return {
      .name = "rmw",
      .summary = "Repeated non-temporal p-stores into one 256-B XPLine (bandwidth only)",
      .seeds = "seed 002 Figure 7(d) (I7)",
      .needs = {.media = "the XPBuffer's read-modify-write of partially written XPLines",
                .counters = true,
                .counter_names = "EWR and RWR (DCPMM media counters)"},
      .axes = {{.name = "io",
                .kind = AxisKind::kSize,
                .min = 8,
                .max = 1 << 20,
                .def = "64:*2:512",
                .quick = "64,256",
                .help = "Bytes per p-store"},
               {.name = "memory",
                .names = {"pmem", "dram"},
                .def = "pmem",
                .quick = "pmem",
                .help = "A file in the pool directory, or anonymous DRAM (the seeds' control)"},
               threads_axis()},
      .defaults = {.ops_per_thread = 4194304},
      .quick = {.ops_per_thread = 200000},
      .footprint = footprint,
      .run = run,
  };
}

}  // namespace pmemids::micro
