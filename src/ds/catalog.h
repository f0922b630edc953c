// The descriptor list: every structure pmemids knows, once. The registry
// (registry/registry.h) turns it into the table `run`, `crash`, `list` and sweep
// validation read; each structure's traits come from its own source
// (ds/traits.h). A new structure is one line here.
#pragma once

#include <cstddef>
#include <utility>

#include "ds/arraylist.h"
#include "ds/blackhole.h"
#include "ds/bplustree.h"
#include "ds/btree.h"
#include "ds/hashtable.h"
#include "ds/lflist.h"
#include "ds/linkedlist.h"
#include "ds/rbtree.h"
#include "ds/ringbuffer.h"
#include "ds/skiplist.h"
#include "ds/stack_dfc.h"
#include "ds/stack_dfc_volreq.h"
#include "ds/stack_fc_volatile.h"
#include "ds/stack_lock.h"
#include "ds/stack_pbcomb.h"

namespace pmemids {

template <template <class> class... DS>
struct StructureList {};

using Catalog =
    StructureList<ArrayList, LinkedList, HashTable, SkipList, BTree, BTreeEmbedded, BPlusTree,
                  RBTree, RingBufferVolatile, RingBufferTx, RingBufferTxFree, LfListHarris,
                  LfListTlog, LfListLogfree, LfListSoft, LfListLinkfree, StackDfc, StackDfcFlat,
                  StackPbcomb, StackDfcVolreq, StackFcVolatile, StackLock, Blackhole>;

// Calls f.template operator()<DS>() for every structure of the list, in order.
template <template <class> class... DS, class F>
void for_each_structure(StructureList<DS...>, F&& f) {
  (f.template operator()<DS>(), ...);
}

template <template <class> class... DS>
constexpr size_t structure_count(StructureList<DS...>) {
  return sizeof...(DS);
}

// f.template operator()<DS>() for the I-th structure of the list (from 0).
template <size_t I, template <class> class First, template <class> class... Rest, class F>
decltype(auto) with_structure(StructureList<First, Rest...>, F&& f) {
  if constexpr (I == 0) {
    return f.template operator()<First>();
  } else {
    return with_structure<I - 1>(StructureList<Rest...>{}, std::forward<F>(f));
  }
}

}  // namespace pmemids
