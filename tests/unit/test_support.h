// Test helpers: a scratch pool directory under /dev/shm, and the list of every
// (structure, backend) pair so behaviour tests are written once and instantiated
// for all of them.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "backend/obj.h"
#include "backend/plain.h"
#include "backend/pool.h"
#include "ds/arraylist.h"
#include "ds/bplustree.h"
#include "ds/btree.h"
#include "ds/hashtable.h"
#include "ds/lflist_harris.h"
#include "ds/linkedlist.h"
#include "ds/rbtree.h"
#include "ds/ringbuffer_volatile.h"
#include "ds/skiplist.h"
#include "run/context.h"

namespace pmemids::test {

class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = "/dev/shm/pmemids-test-XXXXXX";
    path_ = mkdtemp(tmpl.data());
    probe_pool_dir(path_);  // sets PMEM_IS_PMEM_FORCE on tmpfs, as the CLI does
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

  PoolSpec spec(const std::string& ds, Mode m, bool reopen = false, bool keep = false,
                uint64_t bytes = 64 << 20) const {
    return PoolSpec{.dir = path_,
                    .ds = ds,
                    .mode = std::string(mode_name(m)),
                    .bytes = bytes,
                    .reopen = reopen,
                    .keep = keep};
  }

 private:
  std::string path_;
};

template <template <class> class DS_, class B_>
struct Pair {
  using B = B_;
  using DS = DS_<B_>;
  template <class Other>
  using With = DS_<Other>;  // the same structure over another backend
};

#define PMEMIDS_PAIRS_FOR(DS) \
  Pair<DS, DramBackend>, Pair<DS, VolatileBackend>, Pair<DS, PersistBackend>, Pair<DS, TransBackend>

#define PMEMIDS_DURABLE_PAIRS_FOR(DS) Pair<DS, PersistBackend>, Pair<DS, TransBackend>
#define PMEMIDS_VOLATILE_PAIRS_FOR(DS) Pair<DS, DramBackend>, Pair<DS, VolatileBackend>

using AllPairs = ::testing::Types<PMEMIDS_PAIRS_FOR(ArrayList), PMEMIDS_PAIRS_FOR(LinkedList),
                                  PMEMIDS_PAIRS_FOR(HashTable), PMEMIDS_PAIRS_FOR(BTree),
                                  PMEMIDS_PAIRS_FOR(BTreeEmbedded), PMEMIDS_PAIRS_FOR(BPlusTree),
                                  PMEMIDS_PAIRS_FOR(RBTree), PMEMIDS_PAIRS_FOR(SkipList)>;
using DurablePairs =
    ::testing::Types<PMEMIDS_DURABLE_PAIRS_FOR(ArrayList), PMEMIDS_DURABLE_PAIRS_FOR(LinkedList),
                     PMEMIDS_DURABLE_PAIRS_FOR(HashTable), PMEMIDS_DURABLE_PAIRS_FOR(BTree),
                     PMEMIDS_DURABLE_PAIRS_FOR(BTreeEmbedded), PMEMIDS_DURABLE_PAIRS_FOR(BPlusTree),
                     PMEMIDS_DURABLE_PAIRS_FOR(RBTree), PMEMIDS_DURABLE_PAIRS_FOR(SkipList)>;

using VolatilePairs =
    ::testing::Types<PMEMIDS_VOLATILE_PAIRS_FOR(ArrayList), PMEMIDS_VOLATILE_PAIRS_FOR(LinkedList),
                     PMEMIDS_VOLATILE_PAIRS_FOR(HashTable), PMEMIDS_VOLATILE_PAIRS_FOR(BTree),
                     PMEMIDS_VOLATILE_PAIRS_FOR(BTreeEmbedded),
                     PMEMIDS_VOLATILE_PAIRS_FOR(BPlusTree), PMEMIDS_VOLATILE_PAIRS_FOR(RBTree),
                     PMEMIDS_VOLATILE_PAIRS_FOR(SkipList)>;

using OrderedPairs = ::testing::Types<PMEMIDS_PAIRS_FOR(BTree), PMEMIDS_PAIRS_FOR(BTreeEmbedded),
                                      PMEMIDS_PAIRS_FOR(BPlusTree), PMEMIDS_PAIRS_FOR(RBTree),
                                      PMEMIDS_PAIRS_FOR(SkipList)>;
using OrderedDurablePairs =
    ::testing::Types<PMEMIDS_DURABLE_PAIRS_FOR(BTree), PMEMIDS_DURABLE_PAIRS_FOR(BTreeEmbedded),
                     PMEMIDS_DURABLE_PAIRS_FOR(BPlusTree), PMEMIDS_DURABLE_PAIRS_FOR(RBTree),
                     PMEMIDS_DURABLE_PAIRS_FOR(SkipList)>;

struct PairName {
  template <class P>
  static std::string GetName(int) {
    std::string mode(mode_name(P::B::kMode));
    for (char& c : mode) c = c == '-' ? '_' : c;
    std::string ds(P::DS::kName);
    for (char& c : ds) c = c == '-' ? '_' : c;
    return ds + "_" + mode;
  }
};

}  // namespace pmemids::test
