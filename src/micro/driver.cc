#include "micro/driver.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <libpmem.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <utility>

#include "backend/pool.h"
#include "errors.h"
#include "host/placement.h"
#include "micro/libpmem_env.h"
#include "micro/record.h"
#include "run/context.h"
#include "run/result.h"
#include "util/file_checks.h"
#include "util/stop_signals.h"

namespace pmemids::micro {
namespace {

struct Planned {
  const Resolved* sel;
  Point point;
  PersistencePolicy policy;
  LibpmemNeed need;
  std::vector<std::string> shown;  // axes with more than one value, for the table
};

// What `pmemids micro` will run: every point of the selection's grids, checked.
struct MicroPlan {
  std::string pool_dir;
  PmemProbe probe;
  PersistencePolicy base;  // the points' policies differ in movnt_threshold only
  std::vector<Planned> points;
};

PinPolicy parse_pin(const std::string& s) {
  if (s == "compact") return PinPolicy::kCompact;
  if (s == "scatter") return PinPolicy::kScatter;
  return PinPolicy::kNone;
}

std::string default_out() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  return fmt::format("results/micro-{:%Y%m%dT%H%M%SZ}.jsonl", fmt::gmtime(now));
}

LibpmemNeed need_of(const BenchSpec& b, const Point& p, const PersistencePolicy& policy) {
  LibpmemNeed n;
  if (!b.uses_libpmem) return n;
  if (policy.domain.emulated) {
    n.no_flush = true;  // libpmem's flushes skipped as pmemids skips its own
  } else if (policy.domain.flushes()) {
    n.no_flush = false;
  }
  if (p.has("movnt-threshold"))
    n.movnt_threshold = static_cast<uint64_t>(p.integer("movnt-threshold"));
  return n;
}

BenchEnv make_env(const Planned& pl, const MicroOptions& o, const std::string& pool_dir,
                  const PmemProbe& probe) {
  BenchEnv env;
  env.pool_dir = pool_dir;
  env.policy = pl.policy;
  env.probe = probe;
  env.threads = pl.point.has("threads") ? static_cast<int>(pl.point.integer("threads")) : 1;
  env.shared = pl.point.has("region-sharing") && pl.point.name("region-sharing") == "shared";
  env.scalars = pl.sel->scalars;
  env.seed = o.seed;
  env.cpu_node = o.cpu_node;
  env.mem_node = o.mem_node;
  env.placement = plan_placement({.pin = parse_pin(o.pin),
                                  .cpu_node = o.cpu_node,
                                  .mem_node = o.mem_node,
                                  .threads = env.threads});
  return env;
}

nlohmann::json config_json(const Planned& pl, const BenchEnv& env, const MicroOptions& o,
                           const std::string& pool_dir) {
  nlohmann::json c = {{"kind", "micro"}, {"bench", pl.sel->bench->name}};
  c.update(pl.point.to_json());
  const Scalars& s = env.scalars;
  const Scalars& d = pl.sel->bench->defaults;
  if (d.ops_per_thread > 0) {
    c["ops_per_thread"] = s.ops_per_thread;
    c["ops_per_thread_asked"] = pl.sel->scalars.ops_per_thread;
    c["min_time"] = s.min_time;
  }
  if (d.region > 0) c["region"] = s.region;
  if (d.duration > 0) {
    c["duration"] = s.duration;
    c["ramp"] = s.ramp;
  }
  c["latency_sample"] = s.latency_sample;
  c["threads"] = env.threads;
  c["oversubscribed"] = env.threads > cpus_online();
  c["seed"] = o.seed;
  c["repeat"] = o.repeat;
  c["warmup"] = o.warmup;
  c["quick"] = o.quick;
  c["pin"] = o.pin;
  c["cpu_node"] = o.cpu_node ? nlohmann::json(*o.cpu_node) : nlohmann::json();
  c["mem_node"] = o.mem_node ? nlohmann::json(*o.mem_node) : nlohmann::json();
  c["pool_dir"] = pool_dir;
  c.update(pl.policy.to_json());
  c["libpmem_env"] = pl.need.key().empty() ? nlohmann::json() : nlohmann::json(pl.need.key());
  return c;
}

// Refuses a point whose repetition needs more memory or pool space than this
// machine has (util/capacity.h), naming the point and the options to lower.
void check_point_footprint(const Planned& pl, const BenchEnv& env) {
  const BenchSpec& b = *pl.sel->bench;
  Footprint f = b.footprint(pl.point, env);
  f.subject = fmt::format("micro {} {}", b.name, pl.point.text());
  std::string inputs;
  if (env.scalars.ops_per_thread > 0) {
    inputs += fmt::format("--ops-per-thread {}, ", env.scalars.ops_per_thread);
  }
  if (env.scalars.region > 0) inputs += fmt::format("--region {}, ", env.scalars.region);
  f.inputs = inputs + fmt::format("--threads {}", env.threads);
  check_footprint(f, env.pool_dir);
}

// The first repetition of a point under --min-time, `seconds` long: when
// shorter, grows --ops-per-thread in `env` to last about 1.2 --min-time and
// returns true (that repetition is not recorded).
bool grow_to_min_time(const Planned& pl, BenchEnv& env, double seconds) {
  const BenchSpec& b = *pl.sel->bench;
  const uint64_t asked = env.scalars.ops_per_thread;
  if (seconds >= env.scalars.min_time) return false;
  const double f = std::ceil(1.2 * env.scalars.min_time / std::max(seconds, 1e-6));
  env.scalars.ops_per_thread = static_cast<uint64_t>(
      std::min<long double>(uint64_t{1} << 34, static_cast<long double>(asked) * f));
  try {
    check_point_footprint(pl, env);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("--min-time {} grows --ops-per-thread {} to {} for {} {}: {}",
                                 env.scalars.min_time, asked, env.scalars.ops_per_thread, b.name,
                                 pl.point.text(), e.what()));
  }
  fmt::print(stderr,
             "pmemids: {} {}: {:.1f} ms < --min-time {} s: --ops-per-thread {} -> {} (the "
             "short repetition is not recorded)\n",
             b.name, pl.point.text(), 1e3 * seconds, env.scalars.min_time, asked,
             env.scalars.ops_per_thread);
  return true;
}

// One point's --warmup + --repeat repetitions, reported, then their aggregate.
void run_point(const Planned& pl, const MicroOptions& o, const MicroPlan& plan,
               const Reporter& reporter) {
  const BenchSpec& b = *pl.sel->bench;
  BenchEnv env = make_env(pl, o, plan.pool_dir, plan.probe);
  for (const auto& w : env.placement.warnings) fmt::print(stderr, "pmemids: warning: {}\n", w);
  const std::vector<std::string> cav = caveats(b, pl.point, env);
  Repetitions reps(reporter);
  nlohmann::json config;
  bool calibrating = env.scalars.ops_per_thread > 0 && env.scalars.min_time > 0;
  for (int rep = -o.warmup; rep < o.repeat; ++rep) {
    throw_if_stopped();
    env.repetition = rep;
    const Measurement m = b.run(pl.point, env);
    if (std::exchange(calibrating, false) && grow_to_min_time(pl, env, m.seconds)) {
      --rep;
      continue;
    }
    config = config_json(pl, env, o, plan.pool_dir);
    config["repetition"] = rep < 0 ? rep + o.warmup : rep;
    config.update(m.config);
    nlohmann::json rec = make_record(reporter, b, config, m, cav);
    const nlohmann::json& ops = rec["metrics"]["ops_per_sec"];
    const std::optional<double> measured =
        ops.is_number() ? std::optional(ops.get<double>()) : std::nullopt;
    reps.add(rec, rep, measured);
  }
  if (o.repeat > 1) reporter.emit(make_aggregate(reps, b, config, cav));
}

// Persistence options that mean something to run's backends but that no micro
// bench applies: refused rather than recorded as if they had acted.
void refuse_unapplied(const MicroOptions& o, const std::vector<Resolved>& selection) {
  const PersistenceOptions& p = o.persistence;
  const auto refuse = [](const std::string& what, const std::string& accepted) {
    throw UsageError(fmt::format("{}: no micro bench applies it; accepted: {}", what, accepted));
  };
  if (p.pmem_write_ns || p.pmem_read_ns || !p.pmem_profile.empty()) {
    refuse("--pmem-write-ns/--pmem-read-ns/--pmem-profile (what-if media latency)",
           "leave them out (the micro benches measure the real primitives)");
  }
  if (p.flush_cold == "on") refuse("--flush-cold on", "off");
  if (p.flush == "nt") {
    refuse("--flush nt",
           "clwb, clflushopt, clflush, auto (non-temporal stores are named "
           "explicitly: store and bandwidth --access ntstore, rmw)");
  }
  for (const Resolved& sel : selection) {
    const bool has_axis = std::any_of(sel.bench->axes.begin(), sel.bench->axes.end(),
                                      [](const Axis& a) { return a.name == "movnt-threshold"; });
    if (p.movnt_threshold && !has_axis) {
      refuse(fmt::format("--movnt-threshold on micro {}", sel.bench->name),
             "micro copy --movnt-threshold (the only bench whose libpmem copies use it)");
    }
  }
}

// Every point of `sel`'s grid, each checked before anything runs.
void expand_points(const Resolved& sel, const MicroOptions& o, MicroPlan& plan) {
  const BenchSpec& b = *sel.bench;
  std::vector<std::vector<Scalar>> values;
  std::vector<std::string> shown;
  for (size_t i = 0; i < b.axes.size(); ++i) {
    values.push_back(parse_axis(b.axes[i], sel.axes[i].second));
    if (values.back().size() > 1) shown.push_back(b.axes[i].name);
  }
  if (shown.empty() && !b.axes.empty()) shown.push_back(b.axes.front().name);
  for (Point& p : product(b.axes, values)) {
    Planned pl{&sel, std::move(p), plan.base, {}, shown};
    if (pl.point.has("movnt-threshold")) {
      pl.policy.movnt_threshold = static_cast<uint64_t>(pl.point.integer("movnt-threshold"));
    }
    pl.need = need_of(b, pl.point, pl.policy);
    for (const char* axis : {"size", "io"}) {
      if (pl.point.has(axis) && sel.scalars.region > 0 &&
          static_cast<uint64_t>(pl.point.integer(axis)) > sel.scalars.region) {
        throw UsageError(
            fmt::format("--{} {} does not fit in --region {} bytes; accepted: sizes "
                        "up to the region",
                        axis, pl.point.integer(axis), sel.scalars.region));
      }
    }
    const BenchEnv env = make_env(pl, o, plan.pool_dir, plan.probe);  // refuses a bad placement
    if (b.check != nullptr) b.check(pl.point, env);
    check_point_footprint(pl, env);
    plan.points.push_back(std::move(pl));
  }
}

// The pool directory, the policy and every point, checked before anything runs.
MicroPlan plan_micro(const std::vector<Resolved>& selection, const MicroOptions& o) {
  MicroPlan plan;
  plan.pool_dir = resolve_pool_dir(o.pool_dir);
  check_pool_dir(plan.pool_dir);
  plan.probe = probe_pool_dir(plan.pool_dir);
  plan.base = resolve_persistence(o.persistence,
                                  plan.probe.granularity == "byte" || pmem_has_auto_flush() == 1);
  refuse_unapplied(o, selection);
  for (const Resolved& sel : selection) expand_points(sel, o, plan);
  return plan;
}

// What this machine and build cannot show, said once (not again by a child).
void warn_machine(const MicroPlan& plan) {
  if (!optimized_build()) {
    fmt::print(stderr,
               "pmemids: warning: this binary was built without optimisation ({}); its timings "
               "do not represent the primitives\n",
               PMEMIDS_BUILD_TYPE);
  }
  if (!plan.probe.real) {
    fmt::print(stderr,
               "pmemids: warning: PMEM is EMULATED: '{}' is on {} ({} granularity, no DAX); "
               "media effects (256-B XPLine, XPBuffer, XPPrefetcher) cannot show. Records say "
               "\"pmem\": \"emulated\".\n",
               plan.pool_dir, plan.probe.fs, plan.probe.granularity);
  }
  if (plan.base.domain.emulated) {
    fmt::print(stderr,
               "pmemids: warning: --domain eadr is emulated: flushes are skipped, fences kept "
               "(libpmem's too, through PMEM_NO_FLUSH=1 in a child)\n");
  }
}

// Points run in plan order; the points this process cannot serve run in a
// child per requirement, when the first of them comes up. A child runs only
// its requirement's points.
void run_points(const MicroPlan& plan, const MicroOptions& o, const Reporter& reporter,
                MicroTable& table) {
  const StartEnv& start = start_env();
  const bool child = start.group.has_value();
  std::vector<std::string> delegated;
  for (size_t i = 0; i < plan.points.size(); ++i) {
    const Planned& pl = plan.points[i];
    const std::string key = pl.need.key();
    if (child) {
      if (key != *start.group) continue;
      if (!pl.need.satisfied_by(start)) {
        throw RuntimeError(fmt::format("child for {} started without that environment", key));
      }
    } else if (!pl.need.satisfied_by(start)) {
      if (std::find(delegated.begin(), delegated.end(), key) != delegated.end()) continue;
      delegated.push_back(key);
      fmt::print(stderr, "pmemids: running the points that need {} in a child process\n", key);
      const int code = run_group_child(pl.need);
      if (code != 0) {
        throw Error(code, fmt::format("the child run for {} failed (exit {}; its error is above)",
                                      key, code));
      }
      continue;
    }
    fmt::print(stderr, "pmemids: [{}/{}] micro {} {}\n", i + 1, plan.points.size(),
               pl.sel->bench->name, pl.point.text());
    table.point(pl.point.text(pl.shown));
    run_point(pl, o, plan, reporter);
  }
}

}  // namespace

void run_micro(const std::vector<Resolved>& selection, const MicroOptions& o) {
  const bool child = start_env().group.has_value();
  const MicroPlan plan = plan_micro(selection, o);
  if (!child) warn_machine(plan);
  if (o.cpu_node) run_on_node(*o.cpu_node);
  if (o.mem_node) bind_memory(*o.mem_node);

  nlohmann::json context = micro_context(plan.pool_dir, plan.probe, plan.base);
  const std::string out = o.out.empty() ? default_out() : o.out;
  check_results_output(out, "--out");
  install_stop_signals();
  size_t width = 5;  // "point"
  for (const Planned& pl : plan.points) width = std::max(width, pl.point.text(pl.shown).size());
  MicroTable table(width);
  const Reporter reporter(out, stdout, table, std::move(context));
  if (!child) reporter.header();
  run_points(plan, o, reporter, table);
  if (!child) {
    print_table_footnote(stdout);
    fmt::print(stderr, "pmemids: results appended to {}\n", out);
  }
}

}  // namespace pmemids::micro
