#include "micro/options.h"

#include <fmt/format.h>

#include "errors.h"
#include "options/validators.h"

namespace pmemids::micro {
namespace {

std::string size_text(uint64_t b) {
  if (b % (uint64_t{1} << 30) == 0) return fmt::format("{}G", b >> 30);
  if (b % (uint64_t{1} << 20) == 0) return fmt::format("{}M", b >> 20);
  if (b % (uint64_t{1} << 10) == 0) return fmt::format("{}K", b >> 10);
  return std::to_string(b);
}

// CLI11 validator running the axis parser; the message drops parse_axis' own
// "--name " prefix, which CLI11 adds.
CLI::Validator axis_validator(const Axis& a) {
  return CLI::Validator(
      [a](std::string& text) -> std::string {
        try {
          parse_axis(a, text);
          return {};
        } catch (const UsageError& e) {
          const std::string msg = e.what();
          const std::string prefix = "--" + a.name + " ";
          return msg.starts_with(prefix) ? msg.substr(prefix.size()) : msg;
        }
      },
      "", "axis " + a.name);
}

template <class T>
T pick(const std::optional<T>& given, bool quick, T quick_v, bool in_all, T all_v, T def) {
  if (given) return *given;
  if (quick && quick_v != T{}) return quick_v;
  if (in_all && all_v != T{}) return all_v;
  return def;
}

}  // namespace

void add_micro_options(CLI::App* sub, MicroOptions& o, const BenchSpec* b) {
  add_persistence_options(sub, o.persistence);
  if (b != nullptr) {
    for (const Axis& a : b->axes) {
      if (CLI::Option* old = sub->get_option_no_throw("--" + a.name)) sub->remove_option(old);
      sub->add_option("--" + a.name, o.axes[a.name],
                      fmt::format("{}: {} (quick: {})", a.help, accepted_text(a), a.quick))
          ->default_str(a.def)
          ->check(axis_validator(a));
    }
    const Scalars& d = b->defaults;
    if (d.ops_per_thread > 0) {
      sub->add_option("--ops-per-thread", o.ops_per_thread,
                      fmt::format("Operations per thread, generated before timing (quick: {})",
                                  b->quick.ops_per_thread))
          ->default_str(std::to_string(d.ops_per_thread))
          ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 34));
      sub->add_option("--min-time", o.min_time,
                      "A point whose first repetition lasts less than this many seconds runs "
                      "again with --ops-per-thread scaled up (0: never; quick: 0)")
          ->default_str(fmt::format("{}", kMinTime))
          ->check(finite_range(0.0, 3600.0));
    }
    if (d.region > 0) {
      sub->add_option("--region", o.region,
                      "Bytes of memory per thread (one region for all with --region-sharing "
                      "shared; latency: in all, split between threads); suffixes K, M, G")
          ->default_str(size_text(d.region))
          ->check(non_empty());
    }
    if (d.duration > 0) {
      sub->add_option("--duration", o.duration, "Seconds of the timed phase")
          ->default_str(fmt::format("{}", d.duration))
          ->check(finite_range(0.001, 86400.0));
      sub->add_option("--ramp", o.ramp,
                      "Seconds each worker runs the same loop untimed before the start barrier")
          ->default_str(fmt::format("{}", d.ramp))
          ->check(finite_range(0.0, 3600.0));
    }
    sub->add_option("--latency-sample", o.latency_sample,
                    "Fraction of operations timed one by one for latency percentiles (0: none)")
        ->default_str(fmt::format("{}", d.latency_sample))
        ->check(finite_range(0.0, 1.0));
  }
  sub->add_flag("--quick", o.quick, "A small grid and short runs (what `micro all --quick` runs)");
  sub->add_option("--repeat", o.repeat,
                  "Repetitions per point, one record each, then an aggregate record when > 1")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  sub->add_option("--warmup", o.warmup, "Repetitions run first and recorded as warm-ups")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000));
  sub->add_option("--seed", o.seed, "Seed of the random orders (thread t, repetition r: see docs)")
      ->capture_default_str()
      ->check(seed_value());
  sub->add_option("--out", o.out,
                  "JSON-lines file to append to (default results/micro-<time>.jsonl)")
      ->check(non_empty());
  sub->add_option("--pool-dir", o.pool_dir,
                  "Directory of the mapped files and pools (default: $PMEMIDS_POOL_DIR, else "
                  "/dev/shm/pmemids)")
      ->check(non_empty());
  sub->add_option("--pin", o.pin, "Worker pinning: none, compact, scatter")
      ->check(CLI::IsMember({"none", "compact", "scatter"}))
      ->capture_default_str();
  sub->add_option("--cpu-node", o.cpu_node, "Run workers on this NUMA node's CPUs")
      ->check(node_number());
  sub->add_option("--mem-node", o.mem_node, "Place memory (regions, pools) on this NUMA node")
      ->check(node_number());
}

Resolved resolve(const BenchSpec& b, const MicroOptions& o, bool in_all) {
  Resolved r;
  r.bench = &b;
  for (const Axis& a : b.axes) {
    const auto it = o.axes.find(a.name);
    const bool given = it != o.axes.end() && it->second.has_value();
    r.axes.emplace_back(a.name, given ? *it->second : o.quick ? a.quick : a.def);
  }
  const Scalars &d = b.defaults, &q = b.quick, &all = b.all;
  Scalars& s = r.scalars;
  if (d.ops_per_thread > 0) {
    s.ops_per_thread = pick(o.ops_per_thread, o.quick, q.ops_per_thread, in_all, all.ops_per_thread,
                            d.ops_per_thread);
  }
  if (d.region > 0) {
    const std::optional<uint64_t> given =
        o.region ? std::optional<uint64_t>(parse_size("region", *o.region)) : std::nullopt;
    s.region = pick(given, o.quick, q.region, in_all, all.region, d.region);
  }
  if (d.duration > 0) {
    s.duration = pick(o.duration, o.quick, q.duration, in_all, all.duration, d.duration);
    s.ramp = pick(o.ramp, o.quick, q.ramp, in_all, all.ramp, d.ramp);
  }
  s.latency_sample = o.latency_sample.value_or(d.latency_sample);
  if (d.ops_per_thread > 0) s.min_time = o.min_time.value_or(o.quick ? 0 : kMinTime);
  return r;
}

}  // namespace pmemids::micro
