// micro persist: make a just-written chunk durable (seed 003, Figures 4.1-4.5).
//
// Each operation dirties one chunk (--dirty full: every byte, the default;
// first-word: its first 8 bytes, as pmembench did) and then:
//   persist          pmemids' flush of the chunk's lines + store fence
//   flush            pmemids' flush only (no fence)
//   drain            store fence only
//   libpmem-persist  pmem_persist(chunk)        libpmem-flush  pmem_flush(chunk)
//   msync            pmem_msync(chunk)          deep-persist   pmem_deep_persist(chunk)
//   pmem2-byte, pmem2-cacheline, pmem2-page
//                    libpmem2's persist function of a mapping at that store
//                    granularity (forced with PMEM2_FORCE_GRANULARITY off DAX)
// pmemids' own flushes use the run's instruction (--flush; auto: libpmem's) and
// are skipped under --domain eadr; their counts are exact. libpmem's are counted
// by its contract (every line of the range; one fence per persist; none under
// emulated eADR, where it runs with PMEM_NO_FLUSH=1); libpmem2 1.12 ignores
// PMEM_NO_FLUSH, so pmem2-cacheline flushes in every domain (pmem2-byte is the
// eADR path). msync and deep-persist enter the kernel: not counted (null).
#include <libpmem.h>

#include "errors.h"
#include "micro/bench.h"
#include "micro/chunks.h"

namespace pmemids::micro {
namespace {

Dirty parse_dirty(const std::string& s) {
  return s == "first-word" ? Dirty::kFirstWord : Dirty::kFull;
}

template <PersistOp Op>
Measurement own(const BenchEnv& env, const ChunkPlan& plan, const ChunkOrders& orders, char* base,
                Dirty d) {
  HwMem mem{env.policy.insn, env.policy.domain.flushes()};
  const uint64_t size = plan.size;
  return run_chunks(env, plan, orders, base, [&mem, size, d](char* c, uint64_t i) -> uint64_t {
    persist_chunk<Op>(mem, c, size, d, i + 1);
    return 0;
  });
}

template <class Call>
Measurement library(const BenchEnv& env, const ChunkPlan& plan, const ChunkOrders& orders,
                    char* base, Dirty d, Call&& call) {
  const uint64_t size = plan.size;
  HwMem mem;
  return run_chunks(env, plan, orders, base,
                    [&call, &mem, size, d](char* c, uint64_t i) -> uint64_t {
                      dirty_chunk(mem, c, size, d, i + 1);
                      return call(c, size);
                    });
}

ChunkPlan plan_of(const Point& p, const BenchEnv& env) {
  return chunk_plan(env, static_cast<uint64_t>(p.integer("size")), parse_pattern(p.name("pattern")),
                    env.scalars.ops_per_thread);
}

Footprint footprint(const Point& p, const BenchEnv& env) {
  return chunk_footprint(env, plan_of(p, env), "pmem");
}

// The region the chunks are written to: a libpmem2 mapping at the store
// granularity a pmem2 op names, else a libpmem one.
Region region_for(const std::string& op, const BenchEnv& env, uint64_t bytes) {
  if (op == "pmem2-byte") {
    return Region::pmem2(env.pool_dir, bytes, Granularity::kByte, env.probe.real);
  }
  if (op == "pmem2-cacheline") {
    return Region::pmem2(env.pool_dir, bytes, Granularity::kCacheLine, env.probe.real);
  }
  if (op == "pmem2-page") {
    return Region::pmem2(env.pool_dir, bytes, Granularity::kPage, env.probe.real);
  }
  return Region::pmem(env.pool_dir, bytes);
}

// The timed chunks of the region, each made durable by `op`.
Measurement measure(const std::string& op, const BenchEnv& env, const ChunkPlan& plan,
                    const ChunkOrders& orders, Region& r, Dirty d) {
  char* const base = r.data();
  Measurement m;
  // Library calls return an error code: summed into the sink, checked below.
  uint64_t errors_expected_zero = 0;
  if (op == "persist") {
    m = own<PersistOp::kPersist>(env, plan, orders, base, d);
  } else if (op == "flush") {
    m = own<PersistOp::kFlush>(env, plan, orders, base, d);
  } else if (op == "drain") {
    m = own<PersistOp::kDrain>(env, plan, orders, base, d);
  } else if (op == "libpmem-persist") {
    m = library(env, plan, orders, base, d, [](char* c, uint64_t n) -> uint64_t {
      pmem_persist(c, n);
      return 0;
    });
  } else if (op == "libpmem-flush") {
    m = library(env, plan, orders, base, d, [](char* c, uint64_t n) -> uint64_t {
      pmem_flush(c, n);
      return 0;
    });
  } else if (op == "msync") {
    m = library(env, plan, orders, base, d,
                [](char* c, uint64_t n) -> uint64_t { return pmem_msync(c, n) != 0; });
    errors_expected_zero = m.sink;
  } else if (op == "deep-persist") {
    m = library(env, plan, orders, base, d,
                [](char* c, uint64_t n) -> uint64_t { return pmem_deep_persist(c, n) != 0; });
    errors_expected_zero = m.sink;
  } else {
    const pmem2_persist_fn persist = r.persist_fn();
    m = library(env, plan, orders, base, d, [persist](char* c, uint64_t n) -> uint64_t {
      persist(c, n);
      return 0;
    });
  }
  if (errors_expected_zero != 0) {
    throw RuntimeError(
        fmt::format("{} failed {} times: {}", op, errors_expected_zero, pmem_errormsg()));
  }
  return m;
}

bool own_op(const std::string& op) { return op == "persist" || op == "flush" || op == "drain"; }

// The flushes and fences `op` issued, and who counts them.
void count_flushes_and_fences(const std::string& op, const BenchEnv& env, const ChunkPlan& plan,
                              const ChunkOrders& orders, char* base, Measurement& m) {
  const bool flushing = op != "drain" && op != "msync" && op != "deep-persist" &&
                        op != "pmem2-page" && op != "pmem2-byte";
  const bool fencing = op != "flush" && op != "libpmem-flush" && op != "msync" &&
                       op != "deep-persist" && op != "pmem2-page";
  // libpmem honours PMEM_NO_FLUSH (set under emulated eADR); libpmem2 1.12 does
  // not: its cache-line persist flushes in every domain (checked with callgrind).
  const bool library_flushes = op.starts_with("pmem2") || env.policy.domain.flushes();
  if (op == "msync" || op == "deep-persist" || op == "pmem2-page") {
    m.counted_by = "kernel: not counted";
    return;
  }
  const bool flushes_here =
      flushing && (own_op(op) ? env.policy.domain.flushes() : library_flushes);
  m.flushes = flushes_here ? lines_touched(env, plan, orders, base, m) : 0;
  m.fences = fencing ? m.ops : 0;
  m.counted_by = own_op(op) ? "pmemids" : "libpmem contract";
}

Measurement run(const Point& p, const BenchEnv& env) {
  const std::string& op = p.name("op");
  const Dirty d = parse_dirty(p.name("dirty"));
  const ChunkPlan plan = plan_of(p, env);
  Region r = region_for(op, env, plan_bytes(env, plan));
  const ChunkOrders orders = draw_orders(env, plan);
  Measurement m = measure(op, env, plan, orders, r, d);
  count_flushes_and_fences(op, env, plan, orders, r.data(), m);
  m.config = plan_json(env, plan, r);
  m.config["implementation"] = own_op(op)                ? "pmemids"
                               : op.starts_with("pmem2") ? "libpmem2"
                                                         : "libpmem";
  return m;
}

}  // namespace

BenchSpec persist_bench() {
  return {
      .name = "persist",
      .summary =
          "Write a chunk, then make it durable: persist, flush, drain, msync, "
          "deep-persist, libpmem's own calls, libpmem2 granularities",
      .seeds = "seed 003 Figures 4.1-4.5",
      .needs = {.media = "the 256-B XPLine plateau and the 64-B sequential peak"},
      .axes = {{.name = "op",
                .names = {"persist", "flush", "drain", "msync", "deep-persist", "pmem2-byte",
                          "pmem2-cacheline", "pmem2-page", "libpmem-persist", "libpmem-flush"},
                .def = "persist,flush,drain,msync,deep-persist",
                .quick = "persist,flush,drain,msync,deep-persist,pmem2-byte,pmem2-cacheline,"
                         "pmem2-page,libpmem-persist",
                .help = "What makes the chunk durable"},
               {.name = "size",
                .kind = AxisKind::kSize,
                .min = 8,
                .max = double(uint64_t{1} << 30),
                .def = "8:*2:8192",
                .quick = "64,4096",
                .help = "Chunk bytes"},
               pattern_axis(),
               {.name = "dirty",
                .names = {"full", "first-word"},
                .def = "full",
                .quick = "full",
                .help = "Write every byte of the chunk before flushing it, or only its first "
                        "word (pmembench's behaviour)"},
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
