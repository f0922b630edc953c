#include "options/persistence_options.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "errors.h"
#include "options/validators.h"
#include "pmem/domain.h"
#include "pmem/latency.h"
#include "pmem/libpmem_hooks.h"

namespace pmemids {

const std::vector<MediaProfile>& media_profiles() {
  // Added latency over the DRAM that emulates the media (docs/performance.md
  // gives the sources and the arithmetic).
  static const std::vector<MediaProfile> profiles = {
      // Optane DC PMM: random 64-byte writes at one DIMM's 0.5 GB/s random
      // write bandwidth (Intel's figure) take 128 ns per line; random loads
      // measured at 305 ns against 81 ns for DRAM (Izraelevitz et al. 2019).
      {"optane", 128, 224},
      // CXL-attached memory: 2x to 5x local DRAM's latency (Liu et al. 2024);
      // the low end, one more DRAM access (100 ns), for reads and write-backs.
      {"cxl", 100, 100},
  };
  return profiles;
}

namespace {

// --domain's help: each domain of the table with what it does, then auto.
std::string domain_help() {
  std::string out = "Persistence domain: ";
  for (const DomainInfo& d : kDomainTable) {
    out +=
        fmt::format("{} ({}{}), ", d.name, d.flushes ? "flush and fence" : "fences only",
                    d.emulatable ? "; emulated when the platform's caches are not persistent" : "");
  }
  return out + "auto (the platform's)";
}

}  // namespace

void add_persistence_options(CLI::App* sub, PersistenceOptions& o) {
  sub->add_option("--domain", o.domain, domain_help())
      ->check(CLI::IsMember(domain_choices()))
      ->capture_default_str();
  sub->add_option("--flush", o.flush,
                  "Write-back instruction of pmemids' own flushes: clwb, clflushopt, clflush, "
                  "nt (non-temporal copies at every size), auto (libpmem's choice)")
      ->check(CLI::IsMember({"clwb", "clflushopt", "clflush", "nt", "auto"}))
      ->capture_default_str();
  sub->add_option("--movnt-threshold", o.movnt_threshold,
                  "Copies of at least this many bytes use non-temporal stores")
      ->check(CLI::Range(uint64_t{0}, uint64_t{1} << 40))
      ->default_str("libpmem's: 256 or $PMEM_MOVNT_THRESHOLD");
  sub->add_option("--flush-cold", o.flush_cold,
                  "Under eadr, still flush value payloads (seed 002's R5): on, off")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  sub->add_option("--pmem-write-ns", o.pmem_write_ns,
                  "What-if media write latency: ns busy-waited per flushed line at each fence")
      ->check(finite_range(0.0, 1e6))
      ->default_str("0, or --pmem-profile's");
  sub->add_option("--pmem-read-ns", o.pmem_read_ns,
                  "What-if media read latency: ns busy-waited per persistent node visited")
      ->check(finite_range(0.0, 1e6))
      ->default_str("0, or --pmem-profile's");
  sub->add_option("--pmem-profile", o.pmem_profile,
                  "Published media latencies to inject (docs/performance.md): optane (128 ns "
                  "per written-back line, 224 ns per node read), cxl (100, 100); "
                  "--pmem-write-ns / --pmem-read-ns override either")
      ->check(CLI::IsMember({"optane", "cxl"}))
      ->default_str("none");
}

PersistencePolicy resolve_persistence(const PersistenceOptions& o, bool platform_eadr) {
  PersistencePolicy p;
  const auto d = choose_domain(o.domain, platform_eadr);
  if (!d) {
    const std::vector<std::string> choices = domain_choices();
    throw UsageError(fmt::format("--domain '{}': choose {} or {}", o.domain,
                                 fmt::join(choices.begin(), choices.end() - 1, ", "),
                                 choices.back()));
  }
  p.domain = *d;
  const CpuFlushSupport& cpu = CpuFlushSupport::host();
  if (o.flush == "auto" || o.flush == "nt") {
    p.insn = libpmem_flush_insn();
    p.nt_always = o.flush == "nt";
    p.insn_auto = true;
  } else if (const auto i = parse_flush_insn(o.flush)) {
    if (!cpu.has(*i)) {
      throw UsageError(
          fmt::format("--flush {}: this CPU does not have it; it has: {}", o.flush, cpu.names()));
    }
    p.insn = *i;
    p.insn_auto = false;
  } else {
    throw UsageError(
        fmt::format("--flush '{}': choose clwb, clflushopt, clflush, nt or auto (this CPU has: {})",
                    o.flush, cpu.names()));
  }
  p.movnt_threshold = o.movnt_threshold.value_or(libpmem_movnt_threshold());
  if (p.nt_always) p.movnt_threshold = 0;
  p.flush_cold = o.flush_cold == "on";
  p.profile = o.pmem_profile;
  double write_ns = 0, read_ns = 0;
  if (!o.pmem_profile.empty()) {
    const auto& all = media_profiles();
    const auto it = std::find_if(all.begin(), all.end(),
                                 [&](const MediaProfile& m) { return m.name == o.pmem_profile; });
    if (it == all.end()) {
      throw UsageError(fmt::format("--pmem-profile '{}': choose optane or cxl", o.pmem_profile));
    }
    write_ns = it->write_ns;
    read_ns = it->read_ns;
  }
  for (const auto& [name, v] : {std::pair{"--pmem-write-ns", o.pmem_write_ns},
                                std::pair{"--pmem-read-ns", o.pmem_read_ns}}) {
    if (v && !std::isfinite(*v)) {
      throw UsageError(fmt::format("{} must be a finite number of nanoseconds", name));
    }
  }
  p.write_ns = o.pmem_write_ns.value_or(write_ns);
  p.read_ns = o.pmem_read_ns.value_or(read_ns);
  return p;
}

void warn_policy(const PersistencePolicy& p) {
  if (p.domain.emulated) {
    fmt::print(stderr,
               "pmemids: warning: {} is EMULATED: this machine's CPU caches are not "
               "persistent; pmemids{} skip their cache-line write-backs and keep every "
               "fence, so pools written by this run are NOT crash-safe here. Records say "
               "\"domain\": \"{}\".\n",
               domain_info(p.domain.domain).title, lib_hooks_bound() ? " and libpmemobj" : "",
               p.domain.label());
  }
  if (!p.domain.flushes() && !lib_hooks_bound()) {
    fmt::print(stderr,
               "pmemids: warning: libpmemobj's calls into libpmem are not interposed in this "
               "binary: its own write-backs still run and are not counted\n");
  }
  if (p.write_ns > 0 || p.read_ns > 0) {
    fmt::print(stderr,
               "pmemids: what-if media latency{}: {} ns per written-back line at each fence, "
               "{} ns per persistent node visited (busy-waits on the TSC, {:.3f} ticks/ns)\n",
               p.profile.empty() ? "" : " (" + p.profile + ")", p.write_ns, p.read_ns,
               tsc_calibration().ticks_per_ns);
  }
}

}  // namespace pmemids
