// micro txlog: the cost of undo-logging ranges in libpmemobj transactions
// (seed 003, Figure 4.10: pmemobj_tx_add_range).
//
// Each transaction adds --ranges-per-tx ranges of --size bytes to the undo log
// (pmemobj_tx_add_range_direct) and commits; the ranges are distinct, cache-line
// aligned slots of a per-thread object (64 groups of ranges used in turn).
// An operation is one added range: --ops-per-thread ranges per thread, so
// ops_per_sec is ranges logged per second; tx_per_sec is given too, and
// sampled latencies are of whole transactions. --data kept (the default,
// seed 003's measurement) leaves the ranges as they were: what is measured is
// the snapshot and the commit. --data written overwrites each range after
// adding it, as a transaction that updates an object does, so the commit
// writes back dirty lines: the floor of an update that logs those bytes,
// without the structure's own work (scripts/tx-floor.sh). libpmemobj's write-backs
// and fences are counted through pmemids' libpmem hooks
// (pmem/libpmem_hooks.h) when they are bound: `flushes` are the lines it
// wrote back, `fences` its fences, also given per transaction
// (fences_per_tx, flushed_lines_per_tx); null otherwise. Under emulated eADR
// libpmemobj's write-backs are elided.
#include <fmt/format.h>
#include <libpmemobj.h>

#include <cstring>
#include <type_traits>

#include "counters/cost_counters.h"
#include "errors.h"
#include "micro/bench.h"
#include "micro/harness.h"
#include "micro/kernels.h"
#include "micro/region.h"
#include "pmem/libpmem_hooks.h"

namespace pmemids::micro {
namespace {

constexpr uint64_t kGroups = 64;

// Each thread's ranges: kGroups groups of ranges-per-tx ranges, a line apart.
struct Layout {
  uint64_t size, ranges, stride, per_thread, txs;
  bool written;
};

Layout layout_of(const Point& p, const BenchEnv& env) {
  Layout l{};
  l.size = static_cast<uint64_t>(p.integer("size"));
  l.ranges = static_cast<uint64_t>(p.integer("ranges-per-tx"));
  l.stride = (l.size + kLine - 1) / kLine * kLine + kLine;  // a gap between ranges
  l.per_thread = kGroups * l.ranges * l.stride;
  l.txs = (env.scalars.ops_per_thread + l.ranges - 1) / l.ranges;
  l.written = p.name("data") == "written";
  return l;
}

// Each thread's ranges and a MiB of undo log, and libpmemobj's own 64 MiB.
uint64_t pool_bytes(const Layout& l, const BenchEnv& env) {
  return static_cast<uint64_t>(env.threads) * (l.per_thread + (1 << 20)) + (uint64_t{64} << 20);
}

Footprint footprint(const Point& p, const BenchEnv& env) {
  const Layout l = layout_of(p, env);
  return bench_footprint("pmem", 0, pool_bytes(l, env), samples_bytes(env, l.txs));
}

Measurement run(const Point& p, const BenchEnv& env) {
  const Layout l = layout_of(p, env);
  const uint64_t size = l.size, ranges = l.ranges, stride = l.stride, per_thread = l.per_thread,
                 txs = l.txs;
  const auto pool = micro_pool(env.pool_dir, "txlog", pool_bytes(l, env));
  PMEMobjpool* const pop = pool->handle();
  std::vector<char*> areas;
  for (int t = 0; t < env.threads; ++t) {
    PMEMoid oid = OID_NULL;
    if (pmemobj_zalloc(pop, &oid, per_thread, 0) != 0) {
      throw RuntimeError(
          fmt::format("cannot allocate {} bytes in the pool: {}", per_thread, pmemobj_errormsg()));
    }
    areas.push_back(static_cast<char*>(pmemobj_direct(oid)));
  }
  std::vector<std::vector<uint64_t>> samples;
  for (int t = 0; t < env.threads; ++t) samples.push_back(thread_samples(env, t, txs));
  std::vector<CostCounters> costs(static_cast<size_t>(env.threads));  // per thread, timed loop
  Measurement m = measure(
      env, {}, [](int) {},
      [&](int t, const DriveControl& ctl, ThreadTally& tally) {
        char* const area = areas[static_cast<size_t>(t)];
        const CostCounters before = tl_costs;
        struct Tally {  // the loop's cost, also when it returns early
          CostCounters& out;
          const CostCounters& before;
          ~Tally() {
            out = tl_costs;
            out -= before;
          }
        } tally_costs{costs[static_cast<size_t>(t)], before};
        // One loop per --data value, so the timed loop tests nothing per range.
        const auto drive = [&](auto written) {
          timed_loop(txs, samples[t], ctl, tally,
                     [pop, area, ranges, stride, size](uint64_t i) -> uint64_t {
                       uint64_t errors = pmemobj_tx_begin(pop, nullptr, TX_PARAM_NONE) != 0;
                       char* const group = area + (i % kGroups) * ranges * stride;
                       for (uint64_t r = 0; r < ranges && errors == 0; ++r) {
                         char* const range = group + r * stride;
                         errors += pmemobj_tx_add_range_direct(range, size) != 0;
                         if constexpr (decltype(written)::value) {
                           if (errors == 0) std::memset(range, static_cast<int>(i), size);
                         }
                       }
                       if (pmemobj_tx_stage() == TX_STAGE_WORK) pmemobj_tx_commit();
                       errors += pmemobj_tx_end() != 0;
                       return errors;
                     });
        };
        if (l.written) {
          drive(std::true_type{});
        } else {
          drive(std::false_type{});
        }
      });
  if (m.sink != 0) {
    throw RuntimeError(fmt::format("{} transactions failed: {}", m.sink, pmemobj_errormsg()));
  }
  const uint64_t tx_done = m.ops;
  m.ops *= ranges;
  for (auto& o : m.thread_ops) o *= ranges;
  m.bytes = m.ops * size;
  m.metrics["transactions"] = tx_done;
  m.metrics["tx_per_sec"] =
      m.seconds > 0 ? nlohmann::json(static_cast<double>(tx_done) / m.seconds) : nlohmann::json();
  const auto per_tx = [&](uint64_t v) {
    return tx_done > 0 ? nlohmann::json(static_cast<double>(v) / static_cast<double>(tx_done))
                       : nlohmann::json();
  };
  if (lib_hooks_bound()) {
    CostCounters sum;
    for (const CostCounters& c : costs) sum += c;
    m.flushes = sum.lib_flushed_lines;
    m.fences = sum.lib_fences;
    m.counted_by = "libpmemobj, through pmemids' libpmem hooks";
    m.metrics["fences_per_tx"] = per_tx(sum.lib_fences);
    m.metrics["flushed_lines_per_tx"] = per_tx(sum.lib_flushed_lines);
  } else {
    m.counted_by = "libpmemobj: not counted";
    m.metrics["fences_per_tx"] = nlohmann::json();
    m.metrics["flushed_lines_per_tx"] = nlohmann::json();
  }
  m.config = {{"memory", "pmem"},
              {"pool_bytes", pool->bytes()},
              {"range_stride_bytes", stride},
              {"transactions_per_thread", txs},
              {"latency_of", "transaction"}};
  return m;
}

}  // namespace

BenchSpec txlog_bench() {
  return {
      .name = "txlog",
      .summary = "pmemobj_tx_add_range: undo-logging ranges of each size, several per transaction",
      .seeds = "seed 003 Figure 4.10",
      .axes = {{.name = "size",
                .kind = AxisKind::kSize,
                .min = 1,
                .max = 1 << 20,
                .def = "8:*2:8192",
                .quick = "64,4096",
                .help = "Bytes per range"},
               {.name = "ranges-per-tx",
                .kind = AxisKind::kInteger,
                .min = 1,
                .max = 1024,
                .def = "1,4,16",
                .quick = "1,16",
                .help = "Ranges added per transaction"},
               {.name = "data",
                .kind = AxisKind::kNames,
                .names = {"kept", "written"},
                .def = "kept",
                .quick = "kept",
                .help = "What each transaction does to its ranges after logging them: kept "
                        "(unchanged: the snapshot and commit alone) or written (overwritten, "
                        "as an update does: the commit writes back dirty lines)"},
               threads_axis()},
      .defaults = {.ops_per_thread = 100000, .latency_sample = 0.01},
      .quick = {.ops_per_thread = 10000},
      .uses_libpmem = true,
      .footprint = footprint,
      .run = run,
  };
}

}  // namespace pmemids::micro
