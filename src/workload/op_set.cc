#include "workload/op_set.h"

namespace pmemids {
namespace {

constexpr OpType kKvTypes[] = {OpType::kRead, OpType::kUpdate,          OpType::kInsert,
                               OpType::kScan, OpType::kReadModifyWrite, OpType::kDelete};
constexpr OpType kSetTypes[] = {OpType::kInsert, OpType::kDelete, OpType::kContains};
constexpr OpType kPushPopTypes[] = {OpType::kPush, OpType::kPop};

}  // namespace

std::string_view op_name(OpType t) {
  switch (t) {
    case OpType::kRead:
      return "read";
    case OpType::kUpdate:
      return "update";
    case OpType::kInsert:
      return "insert";
    case OpType::kScan:
      return "scan";
    case OpType::kReadModifyWrite:
      return "readmodifywrite";
    case OpType::kDelete:
      return "delete";
    case OpType::kContains:
      return "contains";
    case OpType::kPush:
      return "push";
    case OpType::kPop:
      return "pop";
  }
  return "?";
}

std::string_view op_set_name(OpSet s) {
  switch (s) {
    case OpSet::kKv:
      return "kv";
    case OpSet::kOrderedKv:
      return "ordered-kv";
    case OpSet::kQueue:
      return "queue";
    case OpSet::kSet:
      return "set";
    case OpSet::kStack:
      return "stack";
  }
  return "?";
}

std::optional<OpSet> parse_op_set(std::string_view s) {
  for (OpSet o : kAllOpSets) {
    if (op_set_name(o) == s) return o;
  }
  return std::nullopt;
}

std::span<const OpType> op_types_of(OpSet s) {
  switch (s) {
    case OpSet::kKv:
    case OpSet::kOrderedKv:
      return kKvTypes;
    case OpSet::kSet:
      return kSetTypes;
    case OpSet::kQueue:
    case OpSet::kStack:
      return kPushPopTypes;
  }
  return {};
}

}  // namespace pmemids
