// Operation types and the operation sets that group them.
//
// A structure implements one operation set; a workload asks for one. Each set
// has its own methods (the contract a structure or its per-thread handle
// implements, see ds/traits.h) and its own operation types in records:
//
//   kv          read, update, insert, scan*, readmodifywrite, delete (YCSB);
//               * scan only on ordered-kv structures
//   ordered-kv  kv plus scan in key order
//   queue       push, pop (FIFO)
//   set         insert, delete, contains (keys only)
//   stack       push, pop (LIFO)
//
// "found" in tallies: read/update/scan/readmodifywrite/delete/contains hit a
// present key; insert found the key already present (kv: and updated it; set:
// and did nothing); push took effect (false: the structure was full); pop took
// an element (false: the structure was empty).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace pmemids {

enum class OpType : uint8_t {
  kRead,
  kUpdate,
  kInsert,
  kScan,
  kReadModifyWrite,
  kDelete,
  kContains,
  kPush,
  kPop
};
inline constexpr int kOpTypes = 9;
std::string_view op_name(OpType t);

enum class OpSet : uint8_t { kKv, kOrderedKv, kQueue, kSet, kStack };
inline constexpr OpSet kAllOpSets[] = {OpSet::kKv, OpSet::kOrderedKv, OpSet::kQueue, OpSet::kSet,
                                       OpSet::kStack};

std::string_view op_set_name(OpSet s);
// "kv", "ordered-kv", "queue", "set", "stack"; nullopt for anything else.
std::optional<OpSet> parse_op_set(std::string_view s);

// The operation types a run of this set can execute, in record order.
std::span<const OpType> op_types_of(OpSet s);

// Whether a workload of operation set `workload` runs on a structure of set
// `structure`: the same set, or a kv workload (no scans) on an ordered-kv one.
constexpr bool op_set_fits(OpSet workload, OpSet structure) {
  return workload == structure || (workload == OpSet::kKv && structure == OpSet::kOrderedKv);
}

}  // namespace pmemids
