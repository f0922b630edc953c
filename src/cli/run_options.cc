#include "cli/run_options.h"

#include <fmt/format.h>

#include <cstdlib>

#include "cli/validators.h"
#include "errors.h"

namespace pmemids {

void check_thread_count(const std::string& thread_mode, int threads) {
  if (thread_mode == "single" && threads != 1) {
    throw UsageError(fmt::format(
        "--threads {} needs --thread-mode parallel, concurrent or native (single runs one "
        "thread)",
        threads));
  }
}

void add_run_options(CLI::App* sub, RunOptions& o) {
  sub->add_option("--ds", o.ds, "Structure(s): name, comma-separated names, or 'all'")
      ->required()
      ->check(non_empty());
  sub->add_option(
         "--mode", o.mode,
         "Mode(s): dram, pmem-volatile, pmem-persist, pmem-trans, comma-separated, or 'all'")
      ->required()
      ->check(non_empty());
  sub->add_option("-P,--workload", o.workload_files, "YCSB workload property file(s)")
      ->check(non_empty());
  sub->add_option("-p", o.properties, "Property override key=value (repeatable)");
  sub->add_option("--pool-dir", o.pool_dir,
                  "Pool directory (default $PMEMIDS_POOL_DIR, else /dev/shm/pmemids: emulated)")
      ->check(non_empty());
  sub->add_option("--pool-size", o.pool_size,
                  "Pool size per instance, e.g. 2G (default: derived from workload)")
      ->check(non_empty());
  sub->add_flag("--keep-pool", o.keep_pool,
                "Keep the pool(s) after the run (with --repeat: the last repetition's)");
  sub->add_flag("--reopen", o.reopen,
                "Run on kept pool(s) instead of creating and loading them (they are kept); "
                "each is checked first, in a child process that cannot change it");
  sub->add_option("--pool-check-timeout", o.pool_check_timeout,
                  "Seconds the check of a reopened pool may take before the pool is reported "
                  "corrupt (default 60 plus 1 per 8 MiB of pool)")
      ->check(finite_range(0.1, 86400.0));
  sub->add_flag("--no-pool-check", o.no_pool_check,
                "UNSAFE: reopen without checking the pool first (saves the check's time on big "
                "pools you trust; a corrupt pool can then crash or hang the run, and a failed "
                "open can change the file)");
  sub->add_option("--repeat", o.repeat,
                  "Measured repetitions: one record each, plus an aggregate record when > 1")
      ->check(CLI::Range(1, 1000000));
  sub->add_option("--warmup", o.warmup,
                  "Repetitions run first and discarded (recorded with \"warmup\": true)")
      ->check(CLI::Range(0, 1000));
  sub->add_option("--out", o.out,
                  "JSON-lines result file to append to (default results/<time>.jsonl)")
      ->check(non_empty());
  sub->add_option("--load-factor", o.load_factor, "Hashtable elements per bucket")
      ->check(finite_range(0.01, 100.0));
  sub->add_option("--node-keys", o.node_keys,
                  "B-tree / B+-tree keys per node (default: btree 10, bplustree 15)")
      ->check(CLI::Range(3, 1024));
  sub->add_option("--max-height", o.max_height, "Skiplist maximum height")
      ->check(CLI::Range(1, 64));
  sub->add_option("--thread-mode", o.thread_mode,
                  "single | parallel (an instance and pool per thread, each runs the whole "
                  "workload) | concurrent (one instance, operations split, one global lock) | "
                  "native (one instance that synchronises itself, no lock: internal structures)")
      ->check(CLI::IsMember({"single", "parallel", "concurrent", "native"}));
  sub->add_option("--threads", o.threads, "Worker threads (parallel, concurrent, native)")
      ->check(CLI::Range(1, 1024));
  sub->add_option("--lock", o.lock,
                  "Concurrent mode's global lock: pthread-dram, pthread-pmem, pmemobj, "
                  "rwlock-dram, rwlock-pmemobj (default: pthread-dram for dram and "
                  "pmem-volatile, pmemobj for pmem-persist and pmem-trans)")
      ->check(non_empty());
  sub->add_flag("--unsafe", o.unsafe,
                "Run a structure under a persistence domain it is not crash-consistent in (a "
                "negative control)");
  sub->add_option("--pin", o.pin,
                  "Pin worker threads: none, compact (fill cores in order), scatter (spread "
                  "over nodes and cores)")
      ->check(CLI::IsMember({"none", "compact", "scatter"}));
  sub->add_option("--cpu-node", o.cpu_node, "Run worker threads on this NUMA node's CPUs")
      ->check(node_number());
  sub->add_option("--mem-node", o.mem_node,
                  "Place structure memory and emulated pools on this NUMA node")
      ->check(node_number());
  sub->add_option("--duration", o.duration,
                  "Run for this many seconds, replaying the operation stream cyclically, "
                  "instead of operationcount operations")
      ->check(finite_range(0.001, 86400.0));
  sub->add_option("--timeline-ms", o.timeline_ms,
                  "Record throughput per interval of this many milliseconds")
      ->check(CLI::Range(1, 3600000));
  sub->add_option("--latency-sample", o.latency_sample,
                  fmt::format("Fraction of operations whose latency is timed (0 disables; "
                              "default {})",
                              kDefaultLatencySample))
      ->check(finite_range(0, 1))
      ->check([](const std::string& v) -> std::string {
        const double r = std::strtod(v.c_str(), nullptr);
        return r == 0 || r >= 1e-9 ? "" : "a fraction in [1e-9, 1], or 0 to disable";
      });
  sub->add_option("--wait", o.wait,
                  "Combining stacks: how a thread waits for the combiner: spin, yield, adaptive "
                  "(spin while workers <= CPUs, yield when oversubscribed; default)")
      ->check(CLI::IsMember({"spin", "yield", "adaptive"}));
  sub->add_flag("--combiner-yield", o.combiner_yield,
                "Combining stacks: the combiner yields the CPU after each session");
  sub->add_option("--persist-requests", o.persist_requests,
                  "stack-dfc, stack-dfc-flat: threads persist their announcements (on, default) "
                  "or leave it to the combiner (off)")
      ->check(CLI::IsMember({"on", "off"}));
  sub->add_option("--elimination", o.elimination,
                  "Combining stacks: answer push/pop pairs of a session directly (on, default)")
      ->check(CLI::IsMember({"on", "off"}));
  sub->add_option("--recycle", o.recycle,
                  "Combining stacks: return popped nodes to the node pool (on, default)")
      ->check(CLI::IsMember({"on", "off"}));
  sub->add_option("--combining-rounds", o.combining_rounds,
                  "Combining stacks: passes over the requests per session (default 20)")
      ->check(CLI::Range(1, 1000));
}

}  // namespace pmemids
