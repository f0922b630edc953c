// The (structure, backend) pairs of seed 004's stacks, for the typed tests
// of the stack operation set (oracle, reopen, stress).
#pragma once

#include "ds/stack_dfc.h"
#include "ds/stack_dfc_volreq.h"
#include "ds/stack_fc_volatile.h"
#include "ds/stack_lock.h"
#include "ds/stack_pbcomb.h"
#include "test_support.h"

#define PMEMIDS_STACK_PAIRS_FOR(DS) \
  Pair<DS, DramBackend>, Pair<DS, VolatileBackend>, Pair<DS, PersistBackend>

// Every stack of the catalogue in every mode it supports.
#define PMEMIDS_SEED004_STACK_PAIRS                                                  \
  PMEMIDS_STACK_PAIRS_FOR(StackDfc), PMEMIDS_STACK_PAIRS_FOR(StackDfcFlat),          \
      PMEMIDS_STACK_PAIRS_FOR(StackPbcomb), PMEMIDS_STACK_PAIRS_FOR(StackDfcVolreq), \
      PMEMIDS_STACK_PAIRS_FOR(StackLock), PMEMIDS_VOLATILE_PAIRS_FOR(StackFcVolatile)

// The durable ones in pmem-persist.
#define PMEMIDS_SEED004_DURABLE_STACK_PAIRS                                    \
  Pair<StackDfc, PersistBackend>, Pair<StackDfcFlat, PersistBackend>,          \
      Pair<StackPbcomb, PersistBackend>, Pair<StackDfcVolreq, PersistBackend>, \
      Pair<StackLock, PersistBackend>
