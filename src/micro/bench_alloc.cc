// micro alloc: libpmemobj allocation and free, atomic against transactional,
// timed apart (seed 003, Figures 4.11-4.12).
//
// --op alloc times --ops-per-thread allocations of --size bytes per thread (the
// frees follow untimed); --op free allocates untimed in set-up and times the
// frees. atomic: pmemobj_alloc / pmemobj_free; tx: one transaction per
// pmemobj_tx_alloc / pmemobj_tx_free. Object ids are kept in DRAM arrays
// allocated before timing. Every pool page is faulted in before timing.
#include <fmt/format.h>
#include <libpmemobj.h>

#include "errors.h"
#include "micro/bench.h"
#include "micro/harness.h"
#include "micro/region.h"

namespace pmemids::micro {
namespace {

uint64_t alloc_one(PMEMobjpool* pop, PMEMoid& oid, uint64_t size, bool tx) {
  if (!tx) return pmemobj_alloc(pop, &oid, size, 0, nullptr, nullptr) != 0;
  uint64_t errors = pmemobj_tx_begin(pop, nullptr, TX_PARAM_NONE) != 0;
  if (errors == 0) oid = pmemobj_tx_alloc(size, 0);
  if (pmemobj_tx_stage() == TX_STAGE_WORK) pmemobj_tx_commit();
  return errors + (pmemobj_tx_end() != 0);
}

uint64_t free_one(PMEMobjpool* pop, PMEMoid& oid, bool tx) {
  if (!tx) {
    pmemobj_free(&oid);
    return 0;
  }
  uint64_t errors = pmemobj_tx_begin(pop, nullptr, TX_PARAM_NONE) != 0;
  if (errors == 0) errors += pmemobj_tx_free(oid) != 0;
  if (pmemobj_tx_stage() == TX_STAGE_WORK) pmemobj_tx_commit();
  return errors + (pmemobj_tx_end() != 0);
}

// Room for every object with libpmemobj's header and size-class rounding,
// and libpmemobj's own 64 MiB.
long double pool_bytes(const Point& p, const BenchEnv& env) {
  const uint64_t size = static_cast<uint64_t>(p.integer("size"));
  const uint64_t per_object = std::max<uint64_t>(128, size + size / 4 + 64);
  return static_cast<long double>(env.threads) * env.scalars.ops_per_thread * per_object +
         (uint64_t{64} << 20);
}

// The pool, and per thread its objects' handles and samples.
Footprint footprint(const Point& p, const BenchEnv& env) {
  const uint64_t n = env.scalars.ops_per_thread;
  return bench_footprint(
      "pmem", 0, pool_bytes(p, env),
      static_cast<long double>(env.threads) * n * sizeof(PMEMoid) + samples_bytes(env, n));
}

Measurement run(const Point& p, const BenchEnv& env) {
  const bool tx = p.name("api") == "tx";
  const bool timing_alloc = p.name("op") == "alloc";
  const uint64_t size = static_cast<uint64_t>(p.integer("size"));
  const uint64_t n = env.scalars.ops_per_thread;
  const auto pool = micro_pool(env.pool_dir, "alloc", saturated(pool_bytes(p, env)));
  PMEMobjpool* const pop = pool->handle();
  std::vector<std::vector<PMEMoid>> oids(static_cast<size_t>(env.threads),
                                         std::vector<PMEMoid>(n, OID_NULL));
  std::vector<std::vector<uint64_t>> samples;
  for (int t = 0; t < env.threads; ++t) samples.push_back(thread_samples(env, t, n));
  std::vector<uint64_t> untimed_errors(static_cast<size_t>(env.threads), 0);
  Measurement m = measure(
      env, {},
      [&](int t) {
        if (timing_alloc) return;
        for (PMEMoid& oid : oids[static_cast<size_t>(t)]) {
          untimed_errors[static_cast<size_t>(t)] += alloc_one(pop, oid, size, tx);
        }
      },
      [&](int t, const DriveControl& ctl, ThreadTally& tally) {
        PMEMoid* const ids = oids[static_cast<size_t>(t)].data();
        if (timing_alloc) {
          timed_loop(n, samples[t], ctl, tally,
                     [=](uint64_t i) -> uint64_t { return alloc_one(pop, ids[i], size, tx); });
        } else {
          timed_loop(n, samples[t], ctl, tally,
                     [=](uint64_t i) -> uint64_t { return free_one(pop, ids[i], tx); });
        }
      });
  uint64_t errors = m.sink;
  for (uint64_t e : untimed_errors) errors += e;
  if (timing_alloc) {
    for (auto& ids : oids) {
      for (PMEMoid& oid : ids) {
        if (!OID_IS_NULL(oid)) pmemobj_free(&oid);
      }
    }
  }
  if (errors != 0) {
    throw RuntimeError(fmt::format("{} {} {} calls failed (pool of {} bytes): {}", errors,
                                   p.name("api"), p.name("op"), pool->bytes(), pmemobj_errormsg()));
  }
  m.counted_by = "libpmemobj: not counted";
  m.config = {{"memory", "pmem"}, {"pool_bytes", pool->bytes()}};
  return m;
}

}  // namespace

BenchSpec alloc_bench() {
  return {
      .name = "alloc",
      .summary = "libpmemobj allocation and free, atomic against transactional, timed apart",
      .seeds = "seed 003 Figures 4.11-4.12",
      .axes = {{.name = "api",
                .names = {"atomic", "tx"},
                .def = "atomic,tx",
                .quick = "atomic,tx",
                .help = "pmemobj_alloc/pmemobj_free, or one transaction per tx_alloc/tx_free"},
               {.name = "op",
                .names = {"alloc", "free"},
                .def = "alloc,free",
                .quick = "alloc,free",
                .help = "Which of the two is timed (the other runs untimed)"},
               {.name = "size",
                .kind = AxisKind::kSize,
                .min = 1,
                .max = 1 << 24,
                .def = "8:*2:8192",
                .quick = "64,4096",
                .help = "Object bytes"},
               threads_axis()},
      .defaults = {.ops_per_thread = 100000, .latency_sample = 0.01},
      .quick = {.ops_per_thread = 10000},
      .uses_libpmem = true,
      .footprint = footprint,
      .run = run,
  };
}

}  // namespace pmemids::micro
