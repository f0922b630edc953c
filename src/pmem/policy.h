// How a run makes stores durable: the persistence domain, the write-back
// instruction pmemids' own flushes use, when copies switch to non-temporal
// stores, and the what-if media latency injected per flushed line and per
// persistent node visited. Chosen once per run (cli/persistence_options.h) and
// handed to the backends; recorded in every record's context and config.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "pmem/domain.h"
#include "pmem/flush.h"

namespace pmemids {

struct PersistencePolicy {
  DomainChoice domain;
  FlushInsn insn = FlushInsn::kClwb;  // write-back instruction of pmemids' own flushes
  bool insn_auto = true;              // insn is libpmem's choice (--flush auto)
  bool nt_always = false;             // --flush nt: every copy uses non-temporal stores
  uint64_t movnt_threshold = 256;     // copies of at least this many bytes go non-temporal
  bool flush_cold = false;            // eadr: still flush value payloads (seed 002's R5)
  double write_ns = 0;                // injected per flushed line, at the fence
  double read_ns = 0;                 // injected per persistent node visited
  std::string profile;                // --pmem-profile name, empty when none

  // "clwb", ..., or "nt"; what records call flush_instruction.
  std::string flush_label() const;
  nlohmann::json to_json() const;
};

}  // namespace pmemids
