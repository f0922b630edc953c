// Crash-consistency runs: crash a structure at chosen points of an operation
// stream, recover it from what PMEM would hold, and check it.
//
// A run of one (structure, mode) applies `ops` (the load inserts, then the
// transaction phase) to a fresh pool through the checking backend
// (backend/shadow.h). A counting pass first numbers the crash points the stream
// offers; `points` of them are picked uniformly (all when there are fewer), with
// the recorded seed. Then, per model:
//
//   power    one pass; at each picked point the pool file is copied and the
//            bytes a power failure would take back are written into the copy
//            (backend/shadow.h): under ADR, in the structure's objects, the
//            durable bytes of every line that differs from what was written
//            back and fenced (lines, or 8-byte words with `grain` 8, survive
//            with probability `survive`); under eADR nothing, or with
//            store-buffer loss a suffix of the stores since the last fence.
//            The run goes on; the image is checked.
//   process  per picked point, a child process runs the stream on a new pool and
//            is killed with SIGKILL at that point; nothing is lost from the CPU
//            caches, so this tests recovery code and libpmemobj's rollback only.
//
// Images are checked in separate processes: libpmemobj refuses to open a copy of
// a pool (same UUID) while the original is open, and pointer translation looks
// pools up by UUID. A checker process is forked before the run opens any pool; it
// forks one worker per image, so a worker that crashes on a corrupt image (a
// wild pointer, a walk that never ends: killed after a timeout) is reported as a
// failed recovery, and the run goes on. A worker opens the image (libpmemobj's
// own recovery runs here), constructs the structure (its recover()), and times
// both: the recovery time. Then it counts leaks (allocated but unreachable) and
// dangling objects (reachable but not allocated, of the wrong type or outside
// the pool: freed but still linked), checks invariants, compares the contents
// with the model of acknowledged operations, runs a few operations on the
// recovered structure against a model of its contents (reads, inserts that
// allocate, reads again: crash/models.h's probe_ops, so the reuse of a
// dangling node shows), closes the pool and runs `pmempool check` on it.
//
// Contents: ops[0, i) were acknowledged when the crash hit op i (in flight).
// The recovered structure is compared with a sequential model of its
// operation set (crash/models.h): kv and set per key (every key must hold
// exactly what the acknowledged ops left, else a lost acknowledged operation;
// the in-flight op's key may hold its state before or after that op, nothing
// else, else half-applied; a key listed twice is a half-applied structural
// change too); queue and stack as a sequence (exactly the acknowledged pushes
// minus the acknowledged pops, in FIFO / LIFO order, the in-flight operation
// applied at most once: a missing element is lost, a duplicate, an element
// never pushed or already popped, or a wrong order is half-applied). check()
// covers the structure's own invariants (no reachable marked node, a slab
// bitmap equal to the reachable nodes, ...).
//
// Multi-thread variant (CrashOptions::threads > 1, internal structures): after
// the load, `threads` workers run their own streams on one instance, one at a
// time: a worker runs until its next backend primitive (a sync point), where a
// seeded scheduler picks who runs next (crash/turns.h). The interleaving is
// thus random but reproducible, and a crash point hit by any worker stops the
// world at a moment when no other worker is inside a backend call, so the
// shadow needs no lock. Each image is checked against the recorded history
// (invocation and response order, responses): some linearisation of the
// acknowledged operations and of a subset of the in-flight ones (one per
// worker at most, each applied at most once) must end in exactly the recovered
// contents (crash/linearizability.h; sets are checked key by key). Detectable
// structures (those with recovered(t), see ds/detectable.h) must report, for
// each worker, its last operation's true response or "not applied".
//
// Crashes during recovery (CrashOptions::recovery_points > 0): the checker
// opens each image through the checking backend, so recover() offers crash
// points too; at the first `recovery_points` of them a second image is taken,
// and after the first recovery has been checked each second image is
// recovered and checked against the same expectations (recovery must be
// idempotent and survive its own crash).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "backend/backends.h"
#include "ds/common.h"
#include "pmem/policy.h"
#include "workload/stream.h"

namespace pmemids {

enum class CrashModel : uint8_t { kPower, kProcess };

// CrashOptions::points for every crash point the stream offers (`--points all`).
inline constexpr uint32_t kAllPoints = UINT32_MAX;

struct CrashOptions {
  std::string work_dir;   // private directory for the run's pool and images (must exist)
  uint32_t points = 100;  // drawn from the available ones; kAllPoints: every one
  CrashModel model = CrashModel::kPower;
  double survive = 0;   // power: probability that a pending line survives
  uint32_t grain = 64;  // power, ADR: bytes that survive or not together (64: a line, 8: a word)
  uint64_t seed = 1;
  uint64_t pool_bytes = 0;  // 0: derived from the structure's estimate
  bool pmempool_check = true;
  double worker_timeout_s = 20;
  uint32_t jobs = 2;                         // images checked at once, while the run goes on
  PlantedFault fault = PlantedFault::kNone;  // tests of the checker only
  uint64_t fault_nth = 0;
  // Installed for the run: its domain decides both what the backends write
  // back and what the power model keeps.
  PersistencePolicy policy = PersistencePolicy::host_default();
  bool store_buffer_loss = false;   // eADR: a suffix of the unfenced stores is lost
  double switch_probability = 0.5;  // multi-thread: chance of a switch at each sync point
  uint32_t recovery_points = 0;     // crash points taken inside each recovery
};

struct CrashWorkload {
  OpSet op_set = OpSet::kKv;
  std::vector<Op> ops;                      // load (inserts, pushes), then single-threaded ops
  std::vector<std::vector<Op>> thread_ops;  // multi-thread variant: worker t's operations
  DsOptions ds;
  std::vector<Stream> streams;  // what the ops' values point into
};

// The load keys as inserts (queue, stack: pushes), then the stream's
// operations, each change with its own value (as far as the value pool
// reaches) so that a lost update shows. With threads > 1, the load followed
// by one stream per worker (plan_streams: queues get producers and
// consumers), for the multi-thread variant.
CrashWorkload crash_workload(const WorkloadSpec& spec, uint32_t threads = 1);

// What one crash point's check found (sent through a pipe: plain data).
struct PointResult {
  uint64_t point = 0;
  uint64_t op_index = 0;      // single-threaded: the op in flight; multi-thread: history length
  uint8_t recovered = 0;      // opened, recovered and passed pmempool check
  uint8_t invariants_ok = 0;  // check() passed and agrees with the contents
  uint8_t pmempool_ok = 0;
  uint8_t opened = 0;  // the pool opened and the structure recovered
  uint64_t lost = 0;
  uint64_t half = 0;
  uint64_t torn_values = 0;       // in-flight overwrites torn, where the design admits it
  uint64_t leaked = 0;            // unreachable objects before leak repair
  uint64_t leaked_after = 0;      // still unreachable after recovery
  uint64_t dangling = 0;          // reachable objects not allocated (or of the wrong type)
  uint64_t recovery_crashes = 0;  // crashes inside recovery checked
  double recovery_ms = 0;
  char message[256] = {};
};

struct CrashReport {
  uint64_t points_available = 0;  // crash points the stream offered
  uint64_t points = 0;            // checked
  uint64_t recovered = 0;
  uint64_t invariant_failures = 0;
  uint64_t lost_acknowledged = 0;
  uint64_t half_applied = 0;
  uint64_t torn_values = 0;  // points whose in-flight overwrite was torn (kTornValueModes)
  uint64_t leaked_objects = 0;
  uint64_t leaks_after_repair = 0;
  uint64_t dangling_objects = 0;  // reachable but not allocated, wrong type or outside the pool
  uint64_t pmempool_failures = 0;
  uint64_t recovery_crashes = 0;  // crashes inside recovery checked (all points)
  std::vector<double> recovery_ms;
  std::vector<std::string> failures;  // the first few messages, with their point
  // Every failed point's first finding, numbers masked ("key #: acknowledged key
  // missing"), with how many points it describes.
  std::map<std::string, uint64_t> failure_kinds;

  double recovery_ms_median() const;
  double recovery_ms_max() const;
  // Any failed recovery, invariant failure, lost or half-applied operation,
  // dangling object, or leak left behind: after repair under a backend that
  // RepairsLeaks (pmem-persist), any at all when `every_leak` (pmem-trans).
  bool violation(bool every_leak) const;
  void add(const PointResult& r);
};

// Runs one (structure, mode): see above. B is ShadowPersistBackend or
// ShadowTransBackend. Defined in crash/crash_impl.h, instantiated by the
// crash registry.
template <template <class> class DS, class B>
CrashReport run_crash(const CrashOptions& opt, const CrashWorkload& w);

}  // namespace pmemids
