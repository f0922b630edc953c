#include "pmem/policy.h"

#include <cstdlib>

#include "pmem/latency.h"
#include "pmem/libpmem_hooks.h"

namespace pmemids {
namespace {

PersistencePolicy& installed() {
  static PersistencePolicy p = PersistencePolicy::host_default();
  return p;
}

}  // namespace

PersistencePolicy PersistencePolicy::host_default() {
  PersistencePolicy p;
  p.insn = libpmem_flush_insn();
  p.movnt_threshold = libpmem_movnt_threshold();
  return p;
}

uint64_t libpmem_movnt_threshold() {
  const char* v = std::getenv("PMEM_MOVNT_THRESHOLD");
  if (v == nullptr || *v == '\0') return 256;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  return *end == '\0' ? n : 256;
}

std::string PersistencePolicy::flush_label() const {
  if (!domain.flushes()) return "none";
  return nt_always ? "nt" : std::string(flush_insn_name(insn));
}

nlohmann::json PersistencePolicy::to_json() const {
  return {{"domain", domain.label()},
          {"flush_instruction", flush_label()},
          {"flush_auto", insn_auto},
          {"movnt_threshold", movnt_threshold},
          {"flush_cold", flush_cold ? "on" : "off"},
          {"pmem_write_ns", write_ns > 0 ? nlohmann::json(write_ns) : nlohmann::json()},
          {"pmem_read_ns", read_ns > 0 ? nlohmann::json(read_ns) : nlohmann::json()},
          {"pmem_profile", profile.empty() ? nlohmann::json() : nlohmann::json(profile)}};
}

void install_policy(const PersistencePolicy& p) {
  installed() = p;
  set_lib_flushes(p.domain.flushes());
  set_injection(p.write_ns, p.read_ns);
}

const PersistencePolicy& installed_policy() { return installed(); }

}  // namespace pmemids
