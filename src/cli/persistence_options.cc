#include "cli/persistence_options.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

#include "cli/validators.h"
#include "errors.h"

namespace pmemids {
namespace {

// libpmem's default: copies of at least 256 bytes take the non-temporal path,
// unless PMEM_MOVNT_THRESHOLD says otherwise.
uint64_t libpmem_movnt_threshold() {
  const char* v = std::getenv("PMEM_MOVNT_THRESHOLD");
  if (v == nullptr || *v == '\0') return 256;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  return *end == '\0' ? n : 256;
}

}  // namespace

void add_persistence_options(CLI::App* sub, PersistenceOptions& o) {
  sub->add_option("--domain", o.domain,
                  "Persistence domain: adr (flush and fence), eadr (fences only; emulated "
                  "when the platform's caches are not persistent), auto (the platform's)")
      ->check(CLI::IsMember({"adr", "eadr", "auto"}))
      ->capture_default_str();
  sub->add_option("--flush", o.flush,
                  "Write-back instruction of pmemids' own flushes: clwb, clflushopt, clflush, "
                  "nt (non-temporal copies at every size), auto (libpmem's choice)")
      ->check(CLI::IsMember({"clwb", "clflushopt", "clflush", "nt", "auto"}))
      ->capture_default_str();
  sub->add_option("--movnt-threshold", o.movnt_threshold,
                  "Copies of at least this many bytes use non-temporal stores (default: "
                  "libpmem's, 256 or $PMEM_MOVNT_THRESHOLD)")
      ->check(CLI::Range(uint64_t{0}, uint64_t{1} << 40));
  sub->add_option("--flush-cold", o.flush_cold,
                  "Under eadr, still flush value payloads (seed 002's R5): on, off")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  sub->add_option("--pmem-write-ns", o.pmem_write_ns,
                  "What-if media write latency: ns busy-waited per flushed line at each fence")
      ->check(finite_range(0.0, 1e6));
  sub->add_option("--pmem-read-ns", o.pmem_read_ns,
                  "What-if media read latency: ns busy-waited per persistent node visited")
      ->check(finite_range(0.0, 1e6));
  sub->add_option("--pmem-profile", o.pmem_profile,
                  "Published media latencies to inject (see docs): optane, cxl")
      ->check(CLI::IsMember({"optane", "cxl"}));
}

PersistencePolicy resolve_persistence(const PersistenceOptions& o, bool platform_eadr) {
  PersistencePolicy p;
  const auto d = choose_domain(o.domain, platform_eadr);
  if (!d) {
    throw UsageError(fmt::format("--domain '{}': choose adr, eadr or auto", o.domain));
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
  for (const auto& [name, v] : {std::pair{"--pmem-write-ns", o.pmem_write_ns},
                                std::pair{"--pmem-read-ns", o.pmem_read_ns}}) {
    if (v && !std::isfinite(*v)) {
      throw UsageError(fmt::format("{} must be a finite number of nanoseconds", name));
    }
  }
  p.write_ns = o.pmem_write_ns.value_or(0);
  p.read_ns = o.pmem_read_ns.value_or(0);
  return p;
}

}  // namespace pmemids
