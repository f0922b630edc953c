#include "crash/crash_registry.h"

#include "crash/crash_entry.h"
#include "ds/arraylist.h"
#include "ds/bplustree.h"
#include "ds/btree.h"
#include "ds/hashtable.h"
#include "ds/linkedlist.h"
#include "ds/rbtree.h"
#include "ds/skiplist.h"

namespace pmemids {
namespace {

template <template <class> class DS>
CrashEntry entry() {
  return make_crash_entry<DS>();
}

std::vector<CrashEntry>& added() {
  static std::vector<CrashEntry> entries;
  return entries;
}

}  // namespace

void add_crash_index(CrashEntry e) { added().push_back(e); }

const std::vector<CrashEntry>& crash_registry() {
  static const std::vector<CrashEntry> entries = [] {
    std::vector<CrashEntry> all = {
        entry<ArrayList>(), entry<LinkedList>(),    entry<HashTable>(), entry<SkipList>(),
        entry<BTree>(),     entry<BTreeEmbedded>(), entry<BPlusTree>(), entry<RBTree>(),
    };
    all.insert(all.end(), added().begin(), added().end());
    return all;
  }();
  return entries;
}

const CrashEntry& find_crash_entry(std::string_view name) {
  std::string names;
  for (const auto& e : crash_registry()) {
    if (e.name == name) return e;
    names += (names.empty() ? "" : ", ") + std::string(e.name);
  }
  throw UsageError(fmt::format("unknown data structure '{}'; choose from: {}", name, names));
}

}  // namespace pmemids
