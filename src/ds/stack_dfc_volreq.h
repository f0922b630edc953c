// stack-dfc-volreq: seed 004's "modified DFC", operation set `stack`. DFC
// (ds/stack_dfc.h) with its announcement records moved to volatile memory
// and the responses kept in one persistent state record that the combiner
// copies at the start of every session: PBcomb's split of requests and state
// (ds/stack_pbcomb.h, whose class this is, with DFC's session).
//
// Volatile: per-thread announcements {type, arg, seq} (ds/combining.h
// RequestBoard: DFC's name, param and activate bit; nothing of them is ever
// flushed), the combiner lock, the pool's free bitmap. Persistent: the index
// of the current state copy and two copies of the state record {top, per
// thread the last applied seq with ok, and its response}, and the node pool.
//
// What differs from stack-pbcomb is DFC's session: one pass over the
// announcements per session (--combining-rounds is ignored), and each new
// node flushed when it is made (DFC), not its lines recorded and flushed once
// each at the end (PBcomb's deduplication). A session (lock held, current
// copy c): copy c into the other copy; collect every announcement the copy
// has not answered; eliminate push/pop pairs (--elimination) and apply the
// rest, flushing each new node; write the responses and the new top into the
// copy, flush the whole copy, fence; switch the index, persist it; only then
// recycle the popped nodes (--recycle). --persist-requests has nothing to
// persist (the announcements are volatile).
//
// Durable when: an operation returns only after the session that applied it
// persisted the index naming the copy that holds its response (the copy and
// the nodes it reaches were persisted before).
// What a crash can leave: an index naming the old copy (the session is lost)
// or the new one (committed); nodes unreachable from the current copy's top
// (free after the bitmap rebuild). The announcements are gone: unlike
// stack-dfc, recovery cannot complete an announced operation.
// Recovery: rebuild the bitmap from the current copy's top and take each
// thread's last applied seq from that copy; nothing is written, so a crash
// inside recovery changes nothing.
// Detectability: recovered(t) reports thread t's last operation whose session
// committed, with its response (ok, the popped id). An operation in flight at
// the crash, announced or not, is therefore detectable as not applied exactly
// when its session had not switched the index (the report names the thread's
// previous operation), and as applied with its response when it had (the
// operation's thread had not yet read it). What is lost relative to
// stack-dfc is the completion: stack-dfc's recovery applies every announced,
// uncommitted operation; here such an operation was not applied and its
// thread must reissue it.
//
// Synchronisation: internal; worker t calls through handle(t). Modes dram,
// pmem-volatile and pmem-persist.
#pragma once

#include "ds/stack_pbcomb.h"
#include "pmemids/combining_options.h"

namespace pmemids {
namespace dfc {

struct VolatileRequestsSession {
  static constexpr const char* kName = "stack-dfc-volreq";
  static constexpr const char* kDescription =
      "DFC with volatile requests (seed 004's modified DFC): one persistent state record copied "
      "per session, nodes flushed one by one, with recovery";
  static uint32_t passes(const CombiningOptions&) { return 1; }
  static constexpr const Knob* kKnobs[] = {&kWaitKnob, &kCombinerYieldKnob, &kEliminationKnob,
                                           &kRecycleKnob};
  static constexpr bool kDedupNodeFlushes = false;
};

}  // namespace dfc

template <Backend B>
using StackDfcVolreq = StateCopyStack<B, dfc::VolatileRequestsSession>;

}  // namespace pmemids
