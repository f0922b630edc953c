// How a run makes stores durable: the persistence domain, the write-back
// instruction pmemids' own flushes use, when copies switch to non-temporal
// stores, and the what-if media latency injected per flushed line and per
// persistent node visited. Chosen once per command
// (options/persistence_options.h), installed before any pool is opened, and read
// by the backends when they are constructed; recorded in every record's
// context and config.
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

  // ADR, libpmem's instruction and non-temporal threshold, no injection: what
  // a process uses until a command installs its own.
  static PersistencePolicy host_default();

  // "clwb", ..., "nt", or "none" when the domain needs no write-back.
  std::string flush_label() const;
  // The record's fields, options spelled as on the command line (flush_cold
  // "on" / "off", so a claim's select(flush_cold=on) matches its sweep and its
  // records); null for what-if latencies not injected.
  nlohmann::json to_json() const;
};

// libpmem's default: copies of at least 256 bytes take the non-temporal path,
// unless PMEM_MOVNT_THRESHOLD says otherwise.
uint64_t libpmem_movnt_threshold();

// Makes `p` the process's policy: backends constructed from now on use it,
// libpmemobj's write-backs are elided when the domain needs none, and the
// what-if latencies are calibrated and armed. Call before worker threads start
// and before any pool is opened.
void install_policy(const PersistencePolicy& p);
const PersistencePolicy& installed_policy();

// Installs a policy for the lifetime of the object, then restores the one
// installed before (a crash run, a test).
class ScopedPolicy {
 public:
  explicit ScopedPolicy(const PersistencePolicy& p) : saved_(installed_policy()) {
    install_policy(p);
  }
  ~ScopedPolicy() { install_policy(saved_); }
  ScopedPolicy(const ScopedPolicy&) = delete;
  ScopedPolicy& operator=(const ScopedPolicy&) = delete;

 private:
  PersistencePolicy saved_;
};

}  // namespace pmemids
