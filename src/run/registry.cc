#include "run/registry.h"

#include <set>

#include "ds/arraylist.h"
#include "ds/blackhole.h"
#include "ds/bplustree.h"
#include "ds/btree.h"
#include "ds/hashtable.h"
#include "ds/linkedlist.h"
#include "ds/rbtree.h"
#include "ds/skiplist.h"
#include "errors.h"
#include "run/entry.h"

namespace pmemids {
namespace {

template <template <class> class DS>
DsEntry entry(std::string_view description) {
  return make_entry<DS>(description);
}

std::vector<DsEntry>& added() {
  static std::vector<DsEntry> entries;
  return entries;
}

}  // namespace

void add_index(DsEntry e) { added().push_back(e); }

const std::vector<DsEntry>& registry() {
  static const std::vector<DsEntry> entries = [] {
    std::vector<DsEntry> all = {
        entry<ArrayList>("fixed array of value slots addressed by record id"),
        entry<LinkedList>("append-only persistent list with a DRAM hash index"),
        entry<HashTable>("chained hashtable, fixed bucket array, insert at chain head"),
        entry<SkipList>("skiplist, fair coin, up to 16 levels (--max-height)"),
        entry<BTree>("B-tree, keys and value references in every node (about 256-byte nodes)"),
        entry<BTreeEmbedded>(
            "the same B-tree with the values inside the nodes (about 1.5 KB nodes)"),
        entry<BPlusTree>(
            "B+-tree, keys in inner nodes, value references in linked leaves (256-byte nodes)"),
        entry<RBTree>(
            "red-black tree without parent pointers, rebalanced on every insert and delete"),
        entry<Blackhole>("does nothing: measures the harness itself"),
    };
    all.insert(all.end(), added().begin(), added().end());
    std::set<std::string_view> names;
    for (const auto& e : all) {
      if (!names.insert(e.name).second) {
        throw UsageError(fmt::format(
            "two structures are named '{}' (one built in with PMEMIDS_EXTRA_DS?); rename one",
            e.name));
      }
    }
    return all;
  }();
  return entries;
}

const DsEntry& find_ds(std::string_view name) {
  std::string names;
  for (const auto& e : registry()) {
    if (e.name == name) return e;
    names += (names.empty() ? "" : ", ") + std::string(e.name);
  }
  throw UsageError(fmt::format("unknown data structure '{}'; choose from: {}", name, names));
}

Mode find_mode(std::string_view name) {
  std::string names;
  for (Mode m : kAllModes) {
    if (mode_name(m) == name) return m;
    names += (names.empty() ? "" : ", ") + std::string(mode_name(m));
  }
  throw UsageError(fmt::format("unknown mode '{}'; choose from: {}", name, names));
}

std::string scanning_structures() {
  std::string names;
  for (const auto& e : registry()) {
    if (e.can_scan && e.name != "blackhole")
      names += (names.empty() ? "" : ", ") + std::string(e.name);
  }
  return names.empty() ? "none yet" : names;
}

}  // namespace pmemids
