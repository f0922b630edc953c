#include "micro/chunks.h"

#include <algorithm>

namespace pmemids::micro {

ChunkPlan chunk_plan(const BenchEnv& env, uint64_t size, Pattern p, uint64_t ops) {
  ChunkPlan plan;
  plan.size = size;
  plan.pattern = p;
  plan.cyclic = env.scalars.duration > 0;
  const uint64_t fit = std::max<uint64_t>(1, env.scalars.region / size);
  plan.blocks = plan.cyclic || ops == 0 ? fit : std::min(fit, ops);
  plan.ops = plan.cyclic || ops == 0 ? plan.blocks : ops;
  constexpr uint64_t kPage = 4096;
  plan.region_bytes = (plan.blocks * size + kPage - 1) / kPage * kPage;
  return plan;
}

ChunkOrders draw_orders(const BenchEnv& env, const ChunkPlan& plan) {
  ChunkOrders o;
  const int orders = env.shared ? 1 : env.threads;
  for (int t = 0; t < orders; ++t) {
    o.order.push_back(block_order(plan.pattern, plan.blocks, plan.ops,
                                  thread_seed(env.seed, env.repetition, t, env.shared)));
  }
  for (int t = 0; t < env.threads; ++t) o.samples.push_back(thread_samples(env, t, plan.ops));
  return o;
}

Footprint chunk_footprint(const BenchEnv& env, const ChunkPlan& plan, std::string_view memory) {
  const long double orders =
      static_cast<long double>(env.shared ? 1 : env.threads) * plan.ops * sizeof(uint32_t);
  return bench_footprint(
      memory, static_cast<long double>(plan.region_bytes) * (env.shared ? 1 : env.threads), 0,
      orders + samples_bytes(env, plan.ops));
}

uint64_t lines_touched(const BenchEnv& env, const ChunkPlan& plan, const ChunkOrders& orders,
                       const char* base, const Measurement& m) {
  uint64_t lines = 0;
  for (int t = 0; t < env.threads; ++t) {
    const auto b =
        reinterpret_cast<uintptr_t>(base) + thread_region_offset(env.shared, t, plan.region_bytes);
    const std::vector<uint32_t>& order = orders.of(t);
    uint64_t pass = 0;
    for (uint32_t blk : order) pass += lines_of(b + blk * plan.size, plan.size);
    const uint64_t done = m.thread_ops[static_cast<size_t>(t)];
    lines += done / order.size() * pass;
    for (uint64_t i = 0; i < done % order.size(); ++i) {
      lines += lines_of(b + order[i] * plan.size, plan.size);
    }
  }
  return lines;
}

nlohmann::json plan_json(const BenchEnv& env, const ChunkPlan& plan, const Region& r) {
  nlohmann::json j = r.describe();
  j["region_bytes"] = plan.region_bytes;  // per thread
  j["mapped_bytes"] = r.bytes();
  j["chunks_per_region"] = plan.blocks;
  j["region_sharing"] = env.shared ? "shared" : "disjoint";
  std::vector<uint64_t> seeds;
  for (int t = 0; t < (env.shared ? 1 : env.threads); ++t) {
    seeds.push_back(thread_seed(env.seed, env.repetition, t, env.shared));
  }
  j["order_seeds"] = seeds;
  return j;
}

}  // namespace pmemids::micro
