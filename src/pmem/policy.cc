#include "pmem/policy.h"

namespace pmemids {

std::string PersistencePolicy::flush_label() const {
  if (!domain.flushes()) return "none";
  return nt_always ? "nt" : std::string(flush_insn_name(insn));
}

nlohmann::json PersistencePolicy::to_json() const {
  return {{"domain", domain.label()},
          {"flush_instruction", flush_label()},
          {"flush_auto", insn_auto},
          {"movnt_threshold", movnt_threshold},
          {"flush_cold", flush_cold},
          {"pmem_write_ns", write_ns > 0 ? nlohmann::json(write_ns) : nlohmann::json()},
          {"pmem_read_ns", read_ns > 0 ? nlohmann::json(read_ns) : nlohmann::json()},
          {"pmem_profile", profile.empty() ? nlohmann::json() : nlohmann::json(profile)}};
}

}  // namespace pmemids
