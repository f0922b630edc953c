// pmemids micro: the measured kernels against a counting memory (every byte of
// a chunk written before its line is flushed, exactly the chunk's lines flushed,
// fences where promised), chunk orders and thread regions, the flush counts the
// records report, and axis parsing (lists, ranges, N, sizes, decimals, errors).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <vector>

#include "errors.h"
#include "micro/axes.h"
#include "micro/chunks.h"
#include "micro/kernels.h"
#include "micro/offsets.h"
#include "sweep/expand.h"

namespace pmemids::micro {
namespace {

// A memory that performs the stores and records, per byte of its buffer and per
// cache line (absolute line numbers: address / 64), what happened when (one
// event counter for everything).
class CountingMem {
 public:
  explicit CountingMem(std::vector<char>& buf, bool flushes = true)
      : buf_(buf), stored_(buf.size(), -1), nt_(buf.size(), false), flushes_on_(flushes) {}

  void store(char* p, size_t n, uint64_t w) { write(p, n, w, false); }
  void nt_store(char* p, size_t n, uint64_t w) { write(p, n, w, true); }
  void flush(const char* p, size_t n) {
    if (flushes_on_) flush_with(FlushInsn::kClwb, p, n);
  }
  void flush_with(FlushInsn i, const char* p, size_t n) {
    const auto a = reinterpret_cast<uintptr_t>(p);
    for (uintptr_t l = a / kLine; l <= (a + n - 1) / kLine; ++l)
      line_flushes_[l].push_back({++event_, i});
  }
  void fence() { fences_.push_back(++event_); }
  uint64_t load(const char* p, size_t n) {
    uint64_t sum = 0;
    for (size_t i = 0; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      sum += w;
      loaded_ += 8;
    }
    ++event_;
    return sum;
  }

  struct Flush {
    int event;
    FlushInsn insn;
  };
  const std::vector<int>& stored() const { return stored_; }
  const std::vector<bool>& nt() const { return nt_; }
  const std::map<uintptr_t, std::vector<Flush>>& line_flushes() const { return line_flushes_; }
  uintptr_t base() const { return reinterpret_cast<uintptr_t>(buf_.data()); }
  const std::vector<int>& fences() const { return fences_; }
  uint64_t loaded() const { return loaded_; }
  int stores() const { return stores_; }

 private:
  size_t offset(const char* p) const { return static_cast<size_t>(p - buf_.data()); }
  void write(char* p, size_t n, uint64_t w, bool nt) {
    ++event_;
    ++stores_;
    for (size_t i = 0; i < n; ++i) {
      const size_t o = offset(p) + i;
      stored_[o] = event_;
      nt_[o] = nt;
      const auto a = reinterpret_cast<uintptr_t>(p + i);
      p[i] = static_cast<char>(w >> (8 * (a & 7)));
    }
  }

  std::vector<char>& buf_;
  std::vector<int> stored_;
  std::vector<bool> nt_;
  bool flushes_on_;
  std::map<uintptr_t, std::vector<Flush>> line_flushes_;
  std::vector<int> fences_;
  int event_ = 0;
  int stores_ = 0;
  uint64_t loaded_ = 0;
};

// A chunk at `offset` of `size` bytes inside a line-aligned buffer.
struct ChunkCase {
  size_t offset;
  size_t size;
};

class Chunk : public ::testing::TestWithParam<ChunkCase> {
 protected:
  Chunk() : buf_(16384 + 4 * kLine) {
    const auto a = reinterpret_cast<uintptr_t>(buf_.data());
    align_ = static_cast<size_t>((kLine - a % kLine) % kLine);
  }
  char* chunk() { return buf_.data() + align_ + GetParam().offset; }
  size_t begin() const { return align_ + GetParam().offset; }
  size_t end() const { return begin() + GetParam().size; }
  std::set<uintptr_t> chunk_lines() const {
    std::set<uintptr_t> out;
    const auto b = reinterpret_cast<uintptr_t>(buf_.data());
    for (size_t o = begin(); o < end(); ++o) out.insert((b + o) / kLine);
    return out;
  }
  std::vector<char> buf_;
  size_t align_ = 0;
};

// Every byte of the chunk stored, nothing outside it.
void expect_whole_chunk_stored(const CountingMem& m, size_t begin, size_t end) {
  for (size_t o = 0; o < m.stored().size(); ++o) {
    EXPECT_EQ(m.stored()[o] >= 0, o >= begin && o < end) << "byte " << o;
  }
}

// Each of `lines` flushed exactly once (with `insn`), after every store to it;
// no other line flushed. Returns the last flush's event.
int expect_flushed_after_stores(const CountingMem& m, const std::set<size_t>& lines,
                                FlushInsn insn) {
  int last = 0;
  EXPECT_EQ(m.line_flushes().size(), lines.size());
  for (const auto& [line, flushes] : m.line_flushes()) {
    EXPECT_TRUE(lines.count(line)) << "line " << line << " flushed but not in the chunk";
    EXPECT_EQ(flushes.size(), 1u) << "line " << line;
    if (flushes.empty()) continue;
    EXPECT_EQ(flushes[0].insn, insn);
    for (uintptr_t a = line * kLine; a < (line + 1) * kLine; ++a) {
      if (a < m.base() || a - m.base() >= m.stored().size()) continue;
      EXPECT_LT(m.stored()[a - m.base()], flushes[0].event)
          << "byte " << a - m.base() << " stored after its flush";
    }
    last = std::max(last, flushes[0].event);
  }
  return last;
}

TEST_P(Chunk, DirtyFullStoresEveryByteFirstWordOnlyEight) {
  CountingMem full(buf_);
  dirty_chunk(full, chunk(), GetParam().size, Dirty::kFull, 7);
  expect_whole_chunk_stored(full, begin(), end());
  CountingMem first(buf_);
  dirty_chunk(first, chunk(), GetParam().size, Dirty::kFirstWord, 7);
  expect_whole_chunk_stored(first, begin(), begin() + std::min<size_t>(8, GetParam().size));
}

TEST_P(Chunk, PersistWritesEveryByteThenFlushesExactlyItsLinesThenFences) {
  CountingMem m(buf_);
  persist_chunk<PersistOp::kPersist>(m, chunk(), GetParam().size, Dirty::kFull, 3);
  expect_whole_chunk_stored(m, begin(), end());
  const int last_flush = expect_flushed_after_stores(m, chunk_lines(), FlushInsn::kClwb);
  ASSERT_EQ(m.fences().size(), 1u);
  EXPECT_GT(m.fences()[0], last_flush);
  EXPECT_EQ(chunk_lines().size(), lines_of(reinterpret_cast<uintptr_t>(chunk()), GetParam().size));
}

TEST_P(Chunk, FlushDoesNotFenceDrainDoesNotFlush) {
  CountingMem flush(buf_);
  persist_chunk<PersistOp::kFlush>(flush, chunk(), GetParam().size, Dirty::kFull, 3);
  expect_flushed_after_stores(flush, chunk_lines(), FlushInsn::kClwb);
  EXPECT_TRUE(flush.fences().empty());
  CountingMem drain(buf_);
  persist_chunk<PersistOp::kDrain>(drain, chunk(), GetParam().size, Dirty::kFull, 3);
  EXPECT_TRUE(drain.line_flushes().empty());
  EXPECT_EQ(drain.fences().size(), 1u);
}

TEST_P(Chunk, FirstWordStillFlushesTheWholeChunk) {
  // pmembench's behaviour, kept for comparison: clean lines are flushed too.
  CountingMem m(buf_);
  persist_chunk<PersistOp::kPersist>(m, chunk(), GetParam().size, Dirty::kFirstWord, 3);
  EXPECT_EQ(m.line_flushes().size(), chunk_lines().size());
}

TEST_P(Chunk, EadrSkipsFlushesKeepsFences) {
  CountingMem m(buf_, /*flushes=*/false);
  persist_chunk<PersistOp::kPersist>(m, chunk(), GetParam().size, Dirty::kFull, 3);
  expect_whole_chunk_stored(m, begin(), end());
  EXPECT_TRUE(m.line_flushes().empty());
  EXPECT_EQ(m.fences().size(), 1u);
}

TEST_P(Chunk, StoreAccessesFlushTheirLinesWithTheirInstruction) {
  for (const auto& [access, insn] : {std::pair{StoreAccess::kClwb, FlushInsn::kClwb},
                                     std::pair{StoreAccess::kClflushopt, FlushInsn::kClflushopt},
                                     std::pair{StoreAccess::kClflush, FlushInsn::kClflush}}) {
    CountingMem m(buf_);
    switch (access) {
      case StoreAccess::kClwb:
        store_chunk<StoreAccess::kClwb>(m, chunk(), GetParam().size, 1);
        break;
      case StoreAccess::kClflushopt:
        store_chunk<StoreAccess::kClflushopt>(m, chunk(), GetParam().size, 1);
        break;
      default:
        store_chunk<StoreAccess::kClflush>(m, chunk(), GetParam().size, 1);
        break;
    }
    expect_whole_chunk_stored(m, begin(), end());
    expect_flushed_after_stores(m, chunk_lines(), insn);
    EXPECT_TRUE(m.fences().empty());  // the bench's --fence adds them
  }
  CountingMem plain(buf_);
  store_chunk<StoreAccess::kStore>(plain, chunk(), GetParam().size, 1);
  expect_whole_chunk_stored(plain, begin(), end());
  EXPECT_TRUE(plain.line_flushes().empty());
  CountingMem nt(buf_);
  store_chunk<StoreAccess::kNtStore>(nt, chunk(), GetParam().size, 1);
  expect_whole_chunk_stored(nt, begin(), end());
  EXPECT_TRUE(nt.line_flushes().empty());
  for (size_t o = begin(); o < end(); ++o) EXPECT_TRUE(nt.nt()[o]);
}

TEST_P(Chunk, BandwidthLoadOnlyLoadsStoresFenceOncePStoreFlushesItsLines) {
  std::iota(buf_.begin(), buf_.end(), char{1});
  CountingMem load(buf_);
  uint64_t expect = 0;
  for (size_t i = 0; i + 8 <= GetParam().size; i += 8) {
    uint64_t w;
    std::memcpy(&w, chunk() + i, 8);
    expect += w;
  }
  EXPECT_EQ((bandwidth_io<IoAccess::kLoad>(load, chunk(), GetParam().size, 1)), expect);
  EXPECT_EQ(load.stores(), 0);
  EXPECT_EQ(load.loaded(), GetParam().size / 8 * 8);
  EXPECT_TRUE(load.line_flushes().empty());
  EXPECT_TRUE(load.fences().empty());

  CountingMem store(buf_);
  bandwidth_io<IoAccess::kStore>(store, chunk(), GetParam().size, 1);
  expect_whole_chunk_stored(store, begin(), end());
  EXPECT_TRUE(store.line_flushes().empty());
  EXPECT_EQ(store.fences().size(), 1u);

  CountingMem pstore(buf_);
  bandwidth_io<IoAccess::kPStore>(pstore, chunk(), GetParam().size, 1);
  expect_whole_chunk_stored(pstore, begin(), end());
  const int last = expect_flushed_after_stores(pstore, chunk_lines(), FlushInsn::kClwb);
  ASSERT_EQ(pstore.fences().size(), 1u);
  EXPECT_GT(pstore.fences()[0], last);

  CountingMem nt(buf_);
  bandwidth_io<IoAccess::kNtStore>(nt, chunk(), GetParam().size, 1);
  expect_whole_chunk_stored(nt, begin(), end());
  EXPECT_EQ(nt.fences().size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Sizes, Chunk,
                         ::testing::Values(ChunkCase{0, 8}, ChunkCase{56, 8}, ChunkCase{0, 64},
                                           ChunkCase{8, 64}, ChunkCase{60, 12}, ChunkCase{0, 100},
                                           ChunkCase{64, 256}, ChunkCase{32, 256},
                                           ChunkCase{0, 4096}, ChunkCase{128, 8192}),
                         [](const ::testing::TestParamInfo<ChunkCase>& c) {
                           return "off" + std::to_string(c.param.offset) + "_size" +
                                  std::to_string(c.param.size);
                         });

TEST(HwMem, StoresThePatternNtFillWrites) {
  std::vector<char> a(300), b(300);
  for (size_t off = 0; off < 9; ++off) {
    for (size_t n : {1u, 7u, 8u, 31u, 64u, 200u}) {
      std::fill(a.begin(), a.end(), 0);
      std::fill(b.begin(), b.end(), 0);
      HwMem::store(a.data() + off, n, 0x0807060504030201ULL);
      nt_fill(b.data() + off, 0x0807060504030201ULL, n, libpmem_flush_insn());
      store_fence();
      EXPECT_EQ(a, b) << "off " << off << " n " << n;
      for (size_t i = 0; i < n; ++i) {
        const auto addr = reinterpret_cast<uintptr_t>(a.data() + off + i);
        EXPECT_EQ(a[off + i], static_cast<char>(1 + addr % 8));
      }
    }
  }
}

TEST(Offsets, SequentialWrapsAround) {
  const auto o = block_order(Pattern::kSeq, 5, 12, 1);
  EXPECT_EQ(o, (std::vector<uint32_t>{0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1}));
}

TEST(Offsets, RandomIsAFreshPermutationEachPassDrawnFromTheSeed) {
  const uint64_t blocks = 1000;
  const auto o = block_order(Pattern::kRand, blocks, 2500, 42);
  ASSERT_EQ(o.size(), 2500u);
  for (size_t pass = 0; pass < 2; ++pass) {
    std::vector<uint32_t> p(o.begin() + static_cast<long>(pass * blocks),
                            o.begin() + static_cast<long>((pass + 1) * blocks));
    std::sort(p.begin(), p.end());
    std::vector<uint32_t> all(blocks);
    std::iota(all.begin(), all.end(), 0u);
    EXPECT_EQ(p, all) << "pass " << pass << " is not a permutation";
  }
  EXPECT_FALSE(std::equal(o.begin(), o.begin() + blocks, o.begin() + blocks));
  // Random, not sequential: few steps of +1.
  size_t steps = 0;
  for (size_t i = 1; i < blocks; ++i) steps += o[i] == o[i - 1] + 1;
  EXPECT_LT(steps, blocks / 20);
  EXPECT_EQ(o, block_order(Pattern::kRand, blocks, 2500, 42));
  EXPECT_NE(o, block_order(Pattern::kRand, blocks, 2500, 43));
}

TEST(Offsets, DisjointThreadsGetDisjointRegionsAndOwnSeedsSharedOnesTheSame) {
  EXPECT_EQ(thread_region_offset(false, 3, 4096), 3u * 4096);
  EXPECT_EQ(thread_region_offset(true, 3, 4096), 0u);
  EXPECT_NE(thread_seed(1, 0, 0, false), thread_seed(1, 0, 1, false));
  EXPECT_EQ(thread_seed(1, 0, 0, true), thread_seed(1, 0, 1, true));
  EXPECT_NE(thread_seed(1, 0, 0, false), thread_seed(1, 1, 0, false));
}

BenchEnv env_with(int threads, bool shared, uint64_t region) {
  BenchEnv env;
  env.threads = threads;
  env.shared = shared;
  env.scalars.region = region;
  return env;
}

TEST(ChunkPlan, FreshChunkPerOperationUpToTheRegionAtLeastOne) {
  const ChunkPlan few = chunk_plan(env_with(1, false, 1 << 20), 64, Pattern::kSeq, 100);
  EXPECT_EQ(few.blocks, 100u);         // no more chunks than operations
  EXPECT_EQ(few.region_bytes, 8192u);  // page-rounded
  const ChunkPlan many = chunk_plan(env_with(1, false, 1 << 20), 64, Pattern::kSeq, 1000000);
  EXPECT_EQ(many.blocks, (1u << 20) / 64);
  const ChunkPlan big = chunk_plan(env_with(1, false, 100), 4096, Pattern::kSeq, 10);
  EXPECT_EQ(big.blocks, 1u);
  EXPECT_EQ(plan_bytes(env_with(4, false, 1 << 20), many), 4u << 20);
  EXPECT_EQ(plan_bytes(env_with(4, true, 1 << 20), many), 1u << 20);
}

TEST(ChunkPlan, LinesTouchedCountsEveryCompletedOperationsLines) {
  for (uint64_t size : {8u, 24u, 64u, 100u, 4096u}) {
    for (bool shared : {false, true}) {
      BenchEnv env = env_with(2, shared, 1 << 16);
      const ChunkPlan plan = chunk_plan(env, size, Pattern::kRand, 1000);
      env.scalars.latency_sample = 0;
      const ChunkOrders orders = draw_orders(env, plan);
      Measurement m;
      m.thread_ops = {1000, 1537};  // a thread that went round more than once, partly
      char* base = reinterpret_cast<char*>(uintptr_t{1} << 20);
      uint64_t expect = 0;
      for (int t = 0; t < 2; ++t) {
        const uintptr_t b =
            reinterpret_cast<uintptr_t>(base) + thread_region_offset(shared, t, plan.region_bytes);
        for (uint64_t i = 0; i < m.thread_ops[static_cast<size_t>(t)]; ++i) {
          const uint64_t blk = orders.of(t)[i % orders.of(t).size()];
          for (uintptr_t l = (b + blk * size) / 64; l <= (b + blk * size + size - 1) / 64; ++l) {
            ++expect;
          }
        }
      }
      EXPECT_EQ(lines_touched(env, plan, orders, base, m), expect) << size << " " << shared;
    }
  }
}

Axis names_axis() {
  return {.name = "op", .kind = AxisKind::kNames, .names = {"persist", "flush"}};
}
Axis int_axis() { return {.name = "threads", .kind = AxisKind::kInteger, .min = 1, .max = 64}; }
Axis size_axis() { return {.name = "size", .kind = AxisKind::kSize, .min = 8, .max = 1 << 30}; }
Axis decimal_axis() {
  return {.name = "hit-ratio", .kind = AxisKind::kDecimal, .min = 0, .max = 1};
}

std::vector<int64_t> ints(const std::vector<Scalar>& v) {
  std::vector<int64_t> out;
  for (const auto& s : v) out.push_back(std::get<int64_t>(s));
  return out;
}

TEST(Axes, ListsRangesNAndSizeSuffixes) {
  EXPECT_EQ(parse_axis(names_axis(), "flush,persist").size(), 2u);
  EXPECT_EQ(ints(parse_axis(size_axis(), "8:*2:8192")),
            (std::vector<int64_t>{8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192}));
  EXPECT_EQ(ints(parse_axis(size_axis(), "1K:*4:1M,64")),
            (std::vector<int64_t>{1024, 4096, 16384, 65536, 262144, 1048576, 64}));
  const auto n = ints(parse_axis(int_axis(), "1:*2:N"));
  EXPECT_EQ(n.front(), 1);
  EXPECT_LE(n.back(), cpus_online());
  EXPECT_GT(n.back() * 2, cpus_online());
  EXPECT_EQ(ints(parse_axis(int_axis(), "3")), (std::vector<int64_t>{3}));
}

TEST(Axes, DecimalRangesLandOnDecimals) {
  const auto v = parse_axis(decimal_axis(), "0:0.1:1");
  ASSERT_EQ(v.size(), 11u);
  EXPECT_EQ(std::get<double>(v[3]), 0.3);
  EXPECT_EQ(std::get<double>(v[7]), 0.7);
  EXPECT_EQ(std::get<double>(v.back()), 1.0);
  EXPECT_EQ(sweep::parse_decimal_range("0.5:*2:4"), (std::vector<double>{0.5, 1, 2, 4}));
}

void expect_refused(const Axis& a, const std::string& text, const std::string& needle) {
  try {
    parse_axis(a, text);
    FAIL() << text << " accepted";
  } catch (const UsageError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("--" + a.name), std::string::npos) << msg;
    EXPECT_NE(msg.find("accepted"), std::string::npos) << msg;
    EXPECT_NE(msg.find(needle), std::string::npos) << msg;
  }
}

TEST(Axes, BadValuesAreRefusedNamingTheOptionAndWhatIsAccepted) {
  expect_refused(names_axis(), "persist,bogus", "persist, flush");
  expect_refused(names_axis(), "persist,,flush", "empty");
  expect_refused(names_axis(), "flush,flush", "twice");
  expect_refused(size_axis(), "4", "out of range");
  expect_refused(size_axis(), "64X", "not a size");
  expect_refused(size_axis(), "64:*1:128", "factor");
  expect_refused(int_axis(), "0", "out of range");
  expect_refused(int_axis(), "1:*2:M", "not an integer");
  expect_refused(decimal_axis(), "0:0.5:2", "out of range");
  expect_refused(decimal_axis(), "0:0:1", "step");
  expect_refused(decimal_axis(), "x", "not a number");
}

TEST(Axes, ProductVariesTheFirstAxisSlowest) {
  const std::vector<Axis> axes = {names_axis(), int_axis()};
  const auto points =
      product(axes, {parse_axis(axes[0], "persist,flush"), parse_axis(axes[1], "1,2,4")});
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[0].text(), "op=persist threads=1");
  EXPECT_EQ(points[2].text(), "op=persist threads=4");
  EXPECT_EQ(points[3].text(), "op=flush threads=1");
  EXPECT_EQ(points[4].to_json()["threads"], 2);
}

}  // namespace
}  // namespace pmemids::micro
