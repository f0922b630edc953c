#include "options/run_options.h"

#include <fmt/format.h>

#include <cstdlib>

#include "backend/backends.h"
#include "counters/perf_events.h"
#include "errors.h"
#include "options/validators.h"

namespace pmemids {

void check_thread_count(const std::string& thread_mode, int threads, const std::string& from) {
  if (thread_mode == "single" && threads != 1) {
    throw UsageError(fmt::format(
        "{} needs --thread-mode parallel, concurrent or native (single runs one thread)",
        from.empty() ? fmt::format("--threads {}", threads) : from));
  }
}

namespace {

// "pthread-dram for dram and pmem-volatile, pmemobj for ...": each lock the
// backend list names as a default, with the modes it is the default of.
std::string default_locks() {
  std::string out;
  for (LockKind k : kAllLockKinds) {
    const std::string modes =
        mode_names([k](const ModeInfo& i) { return i.default_lock == k; }, " and ");
    if (!modes.empty())
      out += fmt::format("{}{} for {}", out.empty() ? "" : ", ", lock_name(k), modes);
  }
  return out;
}

// Which structures in which modes.
void add_selection_options(CLI::App* sub, RunOptions& o) {
  sub->add_option("--ds", o.ds, "Structure(s): name, comma-separated names, or 'all'")
      ->required()
      ->check(non_empty());
  sub->add_option("--mode", o.mode,
                  fmt::format("Mode(s): {}, comma-separated, or 'all'",
                              mode_names([](const ModeInfo&) { return true; })))
      ->required()
      ->check(non_empty());
}

// Where the pools are, how big, and whether a run keeps or reopens them.
void add_pool_options(CLI::App* sub, RunOptions& o) {
  sub->add_option("--pool-dir", o.pool_dir,
                  "Pool directory (a DAX mount for real PMEM; tmpfs emulates it)")
      ->check(non_empty())
      ->type_name("DIR")
      ->default_str("$PMEMIDS_POOL_DIR, else /dev/shm/pmemids");
  sub->add_option("--pool-size", o.pool_size, "Pool size per instance, e.g. 2G")
      ->check(non_empty())
      ->type_name("SIZE")
      ->default_str("derived from the workload");
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
}

// How many repetitions, and where their records go.
void add_repetition_options(CLI::App* sub, RunOptions& o) {
  sub->add_option("--repeat", o.repeat,
                  "Measured repetitions: one record each, plus an aggregate record when > 1")
      ->check(CLI::Range(1, 1000000));
  sub->add_option("--warmup", o.warmup,
                  "Repetitions run first and discarded (recorded with \"warmup\": true)")
      ->check(CLI::Range(0, 1000));
  sub->add_option("--out", o.out,
                  "JSON-lines result file to append to; '-': records to stdout, the table to "
                  "stderr")
      ->check(non_empty())
      ->type_name("FILE")
      ->default_str("results/<time>.jsonl");
}

// The structures' knobs: what each structure declares (ds/traits.h, kKnobs),
// once per knob of the catalog.
void add_structure_options(CLI::App* sub, RunOptions& o, std::span<const Knob* const> knobs) {
  add_knob_options(sub, knobs, o.knobs);
}

// Worker threads: how many, sharing what, under which lock, placed where.
void add_thread_options(CLI::App* sub, RunOptions& o) {
  sub->add_option("--thread-mode", o.thread_mode,
                  "single | parallel (an instance and pool per thread, each runs the whole "
                  "workload) | concurrent (one instance, each thread its own part of the "
                  "workload, one global lock) | native (as concurrent with no lock: "
                  "structures that synchronise themselves)")
      ->check(CLI::IsMember({"single", "parallel", "concurrent", "native"}))
      ->default_str("single; concurrent for more than one thread, as YCSB");
  sub->add_option("--threads", o.threads,
                  "Worker threads (parallel, concurrent, native); YCSB's threadcount")
      ->check(CLI::Range(1, 1024))
      ->default_str("threadcount, else 1");
  sub->add_option("--lock", o.lock,
                  "Concurrent mode's global lock: pthread-dram, pthread-pmem, pmemobj, "
                  "rwlock-dram, rwlock-pmemobj")
      ->check(non_empty())
      ->default_str(default_locks());
  sub->add_flag("--unsafe", o.unsafe,
                "Run a structure under a persistence domain it is not crash-consistent in (a "
                "negative control)");
  sub->add_option("--pin", o.pin,
                  "Pin worker threads: none, compact (fill cores in order), scatter (spread "
                  "over nodes and cores), cores (as scatter, one hardware thread per core: "
                  "SMT unused)")
      ->check(CLI::IsMember({"none", "compact", "scatter", "cores"}));
  sub->add_option("--cpu-node", o.cpu_node, "Run worker threads on this NUMA node's CPUs")
      ->check(node_number())
      ->default_str("any");
  sub->add_option("--mem-node", o.mem_node,
                  "Place structure memory and emulated pools on this NUMA node")
      ->check(node_number())
      ->default_str("the kernel's choice");
}

// How long the timed phase lasts and what it samples.
void add_timing_options(CLI::App* sub, RunOptions& o) {
  sub->add_option("--duration", o.duration,
                  "Run for this many seconds, replaying the operation stream cyclically, "
                  "instead of operationcount operations")
      ->check(finite_range(0.001, 86400.0))
      ->default_str("off: operationcount operations");
  sub->add_option("--min-time", o.min_time,
                  "Grow operationcount (regenerating the stream before timing) and rerun a "
                  "repetition until its timed phase lasts at least this many seconds")
      ->check(finite_range(0.001, 86400.0))
      ->default_str("off");
  sub->add_option("--timeline-ms", o.timeline_ms,
                  "Record throughput per interval of this many milliseconds")
      ->check(CLI::Range(1, 3600000))
      ->default_str("off");
  sub->add_option("--latency-sample", o.latency_sample,
                  "Fraction of operations whose latency is timed (0 disables)")
      ->check(finite_range(0, 1))
      ->check([](const std::string& v) -> std::string {
        const double r = std::strtod(v.c_str(), nullptr);
        return r == 0 || r >= 1e-9 ? "" : "a fraction in [1e-9, 1], or 0 to disable";
      })
      ->default_str(fmt::format("{}", kDefaultLatencySample));
}

// What is counted around each timed phase (counters/).
void add_counter_options(CLI::App* sub, RunOptions& o) {
  sub->add_option("--counters", o.counters,
                  "Count over each timed phase: none, perf (hardware and software events with "
                  "perf_event_open; needs a PMU for hardware events), sim (re-run under "
                  "valgrind's callgrind: simulated caches, many times slower)")
      ->check(CLI::IsMember({"none", "perf", "sim"}))
      ->capture_default_str();
  sub->add_option("--perf-events", o.perf_events,
                  "--counters perf: events to count (comma-separated): all, hardware, "
                  "software, or names among " +
                      perf_event_names())
      ->delimiter(',')
      ->default_str("all");
  sub->add_option("--sim-instrument", o.sim_instrument,
                  "--counters sim: simulate caches from the start of set-up (load: the load "
                  "warms them) or in the timed phase only (timed: faster, caches start empty)")
      ->check(CLI::IsMember({"load", "timed"}))
      ->capture_default_str();
}

// YCSB's client settings: a throttle and status lines.
void add_client_options(CLI::App* sub, RunOptions& o) {
  sub->add_option("--target", o.target,
                  "Throttle to this many operations per second in total, spread over the "
                  "workers; latencies are then also measured from each operation's intended "
                  "start (intended_latency_*); YCSB's target; 0: no throttle")
      ->check(finite_range(0.0, 1e12))
      ->default_str("target, else none");
  sub->add_option("--status-interval", o.status_interval,
                  "A status line on stderr every this many seconds: elapsed time, operations, "
                  "current ops/sec and, when sampling, current p99 per operation type")
      ->check(finite_range(0.001, 86400.0))
      ->default_str("status.interval with -s, else none");
  sub->add_flag("-s", o.status, "Status lines every status.interval seconds (default 10), as YCSB");
}

}  // namespace

void add_run_options(CLI::App* sub, RunOptions& o, std::span<const Knob* const> knobs) {
  add_selection_options(sub, o);
  add_workload_options(sub, o.workload);
  add_pool_options(sub, o);
  add_repetition_options(sub, o);
  add_structure_options(sub, o, knobs);
  add_thread_options(sub, o);
  add_timing_options(sub, o);
  add_persistence_options(sub, o.persistence);
  add_counter_options(sub, o);
  add_client_options(sub, o);
}

ClientSettings resolve_client(const RunOptions& o, const WorkloadSpec& spec) {
  ClientSettings c;
  if (o.threads > 0) {
    c.threads = o.threads;
    c.threads_from = fmt::format("--threads {}", o.threads);
  } else if (spec.threadcount) {
    c.threads = *spec.threadcount;
    c.threads_from = fmt::format("threadcount={}", *spec.threadcount);
  }
  c.thread_mode = o.thread_mode;
  if (c.thread_mode.empty()) {
    c.default_concurrent = c.threads > 1;
    c.thread_mode = c.default_concurrent ? "concurrent" : "single";
  }
  c.target = o.target >= 0 ? o.target : spec.target.value_or(0);
  if (o.status_interval > 0) {
    c.status_interval = o.status_interval;
  } else if (spec.status_interval) {
    c.status_interval = *spec.status_interval;
  } else if (o.status) {
    c.status_interval = kDefaultStatusInterval;
  }
  return c;
}

std::vector<std::string> ycsb_long_flags(int argc, const char* const* argv) {
  std::vector<std::string> out;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    for (const char* name : {"-threads", "-target"}) {
      const std::string n(name);
      if (i > 0 && (a == n || a.starts_with(n + "="))) a = "-" + a;
    }
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace pmemids
