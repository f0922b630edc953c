// The linearizability checker: legal concurrent histories of queues, stacks
// and sets are accepted (with overlapping operations in either order, pending
// operations applied or not, a final state), and planted non-linearizable
// ones are rejected.
#include "crash/linearizability.h"

#include <gtest/gtest.h>

namespace pmemids {
namespace {

constexpr uint64_t P = HistoryOp::kPending;

HistoryOp push(uint32_t t, uint64_t id, uint64_t inv, uint64_t resp, bool ok = true) {
  return {.thread = t, .type = OpType::kPush, .arg = id, .ok = ok, .invoke = inv, .response = resp};
}
HistoryOp pop(uint32_t t, bool ok, uint64_t out, uint64_t inv, uint64_t resp) {
  return {.thread = t, .type = OpType::kPop, .ok = ok, .out = out, .invoke = inv, .response = resp};
}
HistoryOp op(uint32_t t, OpType type, uint64_t key, bool found, uint64_t inv, uint64_t resp) {
  return {.thread = t, .type = type, .arg = key, .ok = found, .invoke = inv, .response = resp};
}

bool queue_ok(const std::vector<HistoryOp>& h,
              const std::optional<std::vector<uint64_t>>& final = std::nullopt,
              uint64_t capacity = 0) {
  return check_sequence_history(OpSet::kQueue, h, {}, final, capacity).ok;
}
bool stack_ok(const std::vector<HistoryOp>& h,
              const std::optional<std::vector<uint64_t>>& final = std::nullopt) {
  return check_sequence_history(OpSet::kStack, h, {}, final).ok;
}

TEST(Linearizability, SequentialQueueHistoryIsAccepted) {
  EXPECT_TRUE(queue_ok({push(0, 1, 0, 1), push(0, 2, 2, 3), pop(1, true, 1, 4, 5),
                        pop(1, true, 2, 6, 7), pop(1, false, 0, 8, 9)}));
}

TEST(Linearizability, OverlappingPushesMayLineariseEitherWay) {
  // Two pushes overlap; the pops see 2 before 1: linearisable (2 first).
  EXPECT_TRUE(
      queue_ok({push(0, 1, 0, 3), push(1, 2, 1, 2), pop(2, true, 2, 4, 5), pop(2, true, 1, 6, 7)}));
}

TEST(Linearizability, PlantedQueueViolationsAreRejected) {
  // FIFO broken: 1 was pushed and returned before 2 was pushed, yet 2 pops first.
  EXPECT_FALSE(queue_ok({push(0, 1, 0, 1), push(0, 2, 2, 3), pop(1, true, 2, 4, 5)}));
  // An element popped twice.
  EXPECT_FALSE(queue_ok({push(0, 1, 0, 1), pop(1, true, 1, 2, 3), pop(2, true, 1, 4, 5)}));
  // "Empty" although an element was in the queue the whole time.
  EXPECT_FALSE(queue_ok({push(0, 1, 0, 1), pop(1, false, 0, 2, 3)}));
  // An element never pushed.
  EXPECT_FALSE(queue_ok({push(0, 1, 0, 1), pop(1, true, 7, 2, 3)}));
  // Full at capacity 2 with one element inside.
  EXPECT_FALSE(queue_ok({push(0, 1, 0, 1), push(0, 2, 2, 3, false)}, std::nullopt, 2));
  EXPECT_TRUE(
      queue_ok({push(0, 1, 0, 1), push(0, 2, 2, 3), push(0, 3, 4, 5, false)}, std::nullopt, 2));
}

TEST(Linearizability, PendingOperationsTakeEffectAtMostOnce) {
  // A pending push may have taken effect (final state has it) or not.
  const std::vector<HistoryOp> h = {push(0, 1, 0, 1), push(1, 2, 2, P)};
  EXPECT_TRUE(queue_ok(h, std::vector<uint64_t>{1}));
  EXPECT_TRUE(queue_ok(h, std::vector<uint64_t>{1, 2}));
  EXPECT_FALSE(queue_ok(h, std::vector<uint64_t>{1, 2, 2}));  // applied twice
  EXPECT_FALSE(queue_ok(h, std::vector<uint64_t>{2}));        // acknowledged push lost
  EXPECT_FALSE(queue_ok(h, std::vector<uint64_t>{2, 1}));     // order
  // A pending pop removes the oldest element or nothing.
  const std::vector<HistoryOp> g = {push(0, 1, 0, 1), push(0, 2, 2, 3), pop(1, true, 0, 4, P)};
  EXPECT_TRUE(queue_ok(g, std::vector<uint64_t>{2}));
  EXPECT_TRUE(queue_ok(g, std::vector<uint64_t>{1, 2}));
  EXPECT_FALSE(queue_ok(g, std::vector<uint64_t>{1}));
}

TEST(Linearizability, DetectableReportsConstrainPendingOperations) {
  std::vector<HistoryOp> h = {push(0, 1, 0, 1), pop(1, true, 0, 2, P)};
  h[1].must = HistoryOp::kNotApplied;
  EXPECT_TRUE(stack_ok(h, std::vector<uint64_t>{1}));
  EXPECT_FALSE(stack_ok(h, std::vector<uint64_t>{}));
  h[1].must = HistoryOp::kApplied;
  h[1].must_ok = true;
  h[1].must_out = 1;
  EXPECT_TRUE(stack_ok(h, std::vector<uint64_t>{}));
  EXPECT_FALSE(stack_ok(h, std::vector<uint64_t>{1}));
  h[1].must_out = 9;  // reported a value it could not have returned
  EXPECT_FALSE(stack_ok(h, std::vector<uint64_t>{}));
}

TEST(Linearizability, StackIsLifo) {
  EXPECT_TRUE(
      stack_ok({push(0, 1, 0, 1), push(0, 2, 2, 3), pop(1, true, 2, 4, 5), pop(1, true, 1, 6, 7)}));
  EXPECT_FALSE(stack_ok({push(0, 1, 0, 1), push(0, 2, 2, 3), pop(1, true, 1, 4, 5)}));
  // Overlapping pop may take either of two overlapping pushes.
  EXPECT_TRUE(stack_ok({push(0, 1, 0, 5), push(1, 2, 1, 6), pop(2, true, 1, 2, 7)}));
}

TEST(Linearizability, SetKeyByKey) {
  using enum OpType;
  // Insert overlapping contains: contains may see it or not.
  EXPECT_TRUE(check_set_history({op(0, kInsert, 5, false, 0, 3), op(1, kContains, 5, true, 1, 2)},
                                {}, std::nullopt)
                  .ok);
  EXPECT_TRUE(check_set_history({op(0, kInsert, 5, false, 0, 3), op(1, kContains, 5, false, 1, 2)},
                                {}, std::nullopt)
                  .ok);
  // Contains misses a key inserted (and returned) before it began.
  EXPECT_FALSE(check_set_history({op(0, kInsert, 5, false, 0, 1), op(1, kContains, 5, false, 2, 3)},
                                 {}, std::nullopt)
                   .ok);
  // Two successful deletes of one key with one insert between none.
  EXPECT_FALSE(check_set_history({op(0, kDelete, 5, true, 0, 3), op(1, kDelete, 5, true, 1, 2)},
                                 {5}, std::nullopt)
                   .ok);
  // Keys are independent: key 6's history does not excuse key 5's.
  EXPECT_FALSE(check_set_history({op(0, kInsert, 5, true, 0, 1), op(1, kInsert, 6, false, 0, 1)},
                                 {}, std::nullopt)
                   .ok);
  // Final state per key, pending ops optional.
  const std::vector<HistoryOp> h = {op(0, kInsert, 5, false, 0, 1), op(1, kDelete, 5, false, 2, P)};
  EXPECT_TRUE(check_set_history(h, {}, std::vector<uint64_t>{5}).ok);
  EXPECT_TRUE(check_set_history(h, {}, std::vector<uint64_t>{}).ok);
  EXPECT_FALSE(check_set_history(h, {}, std::vector<uint64_t>{5, 7}).ok);  // 7 from nowhere
  EXPECT_FALSE(check_set_history({}, {3}, std::vector<uint64_t>{}).ok);    // 3 vanished
}

TEST(Linearizability, ManyInterleavedOperationsStayTractable) {
  // Four threads, 60 operations, each overlapping the other threads' current
  // ones: accepted within the default budget.
  std::vector<HistoryOp> h;
  uint64_t clock = 0;
  std::vector<uint64_t> pushed;
  for (uint64_t round = 0; round < 15; ++round) {
    const uint64_t start = clock;
    for (uint32_t t = 0; t < 4; ++t) {
      h.push_back(push(t, round * 4 + t + 1, start + t, start + 8 + t));
    }
    clock += 12;
  }
  const LinResult r = check_sequence_history(OpSet::kQueue, h, {}, std::nullopt);
  EXPECT_TRUE(r.ok) << r.why;
  EXPECT_FALSE(r.undecided);
}

}  // namespace
}  // namespace pmemids
