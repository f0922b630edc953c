// The backends' flush layer, observed through a counting CPU: what pmemids
// writes back and fences per domain, instruction and copy size; the what-if
// latency charged per line and per translation; libpmemobj's own write-backs
// seen through the interposed libpmem functions.
#include <fmt/format.h>
#include <libpmem.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <string>
#include <vector>

#include "catalog_pairs.h"
#include "counting_cpu.h"
#include "oracle_driver.h"
#include "pmem/libpmem_hooks.h"

namespace pmemids::test {
namespace {

PersistencePolicy policy(const char* domain, FlushInsn insn = libpmem_flush_insn()) {
  PersistencePolicy p = PersistencePolicy::host_default();
  p.domain = *choose_domain(domain, false);
  p.insn = insn;
  return p;
}

CostCounters since(const CostCounters& before) {
  CostCounters d = tl_costs;
  d -= before;
  return d;
}

std::vector<uintptr_t> expected_lines(const void* p, size_t n) {
  std::vector<uintptr_t> out;
  if (n == 0) return out;
  const auto a = reinterpret_cast<uintptr_t>(p);
  for (uintptr_t l = a / 64; l <= (a + n - 1) / 64; ++l) out.push_back(l * 64);
  return out;
}

std::vector<uintptr_t> logged_lines() {
  std::vector<uintptr_t> out;
  for (const auto& [insn, line] : CountingCpu::log.lines) out.push_back(line);
  return out;
}

TEST(FlushLayer, FlushWritesBackExactlyTheLinesOfTheRange) {
  ScratchDir dir;
  const ScopedPolicy scoped(policy("adr"));
  CountingPersistBackend b(dir.spec("flush", Mode::kPersist));
  alignas(64) static char buf[1024];
  for (size_t off = 0; off < 130; off += 3) {
    for (size_t n : {0u, 1u, 2u, 63u, 64u, 65u, 127u, 128u, 129u, 300u}) {
      CountingCpu::log = {};
      const CostCounters before = tl_costs;
      b.flush(buf + off, n);
      const auto want = expected_lines(buf + off, n);
      EXPECT_EQ(logged_lines(), want) << "offset " << off << " length " << n;
      EXPECT_EQ(since(before).flushed_lines, want.size());
      EXPECT_EQ(CountingCpu::log.fences, 0u) << "flush alone does not fence";
    }
  }
  CountingCpu::log = {};
  b.persist(buf + 10, 100);
  EXPECT_EQ(logged_lines(), expected_lines(buf + 10, 100));
  EXPECT_EQ(CountingCpu::log.fences, 1u);
}

// The crash checker's power model learns of write-backs from the flush layer:
// it must see the lines and fences the CPU was given, no more (a caller that
// writes back less than it changed must not be believed), and nothing elided.
struct WatchLog {
  static constexpr bool kActive = true;
  std::vector<uintptr_t> lines;
  uint64_t fences = 0;
  void flushed(const void* p, size_t n) {
    for (uintptr_t l : expected_lines(p, n)) lines.push_back(l);
  }
  void fenced() { ++fences; }
};

TEST(FlushLayer, TheWatchSeesExactlyTheWriteBacksAndFencesIssued) {
  alignas(64) static char buf[1024];
  for (const char* domain : {"adr", "eadr"}) {
    SCOPED_TRACE(domain);
    PersistencePolicy p = policy(domain);
    p.movnt_threshold = 256;
    WatchLog w;
    const Flusher<CountingCpu, WatchLog> fl(p, &w);
    CountingCpu::log = {};
    fl.flush(buf + 10, 100, false);
    fl.flush(buf + 200, 1, false);
    fl.drain();
    fl.flush(buf + 300, 64, true);
    EXPECT_EQ(w.lines, logged_lines());
    EXPECT_EQ(w.fences, CountingCpu::log.fences);
    EXPECT_EQ(w.fences, 1u);
    if (std::string(domain) == "eadr") {
      EXPECT_TRUE(w.lines.empty());
    }
    if (!fl.use_nt(512, false)) continue;
    fl.nt_copy(buf + 512, buf, 300);
    ASSERT_EQ(CountingCpu::log.nt_copies.size(), 1u);
    const std::vector<uintptr_t> nt = expected_lines(buf + 512, 300);
    EXPECT_TRUE(std::equal(nt.begin(), nt.end(), w.lines.end() - nt.size()))
        << "a non-temporal copy reports the lines it wrote";
  }
}

TEST(FlushLayer, ABatchFencesOnceAtItsEnd) {
  ScratchDir dir;
  const ScopedPolicy scoped(policy("adr"));
  CountingPersistBackend b(dir.spec("flush", Mode::kPersist));
  alignas(64) static char buf[512];
  const char src[40] = "regions written back, fenced once";
  CountingCpu::log = {};
  const CostCounters before = tl_costs;
  b.batch([&] {
    b.write(buf, src, sizeof src);
    b.batch([&] { b.write(buf + 250, src, sizeof src); });  // nested: still no fence
    EXPECT_EQ(CountingCpu::log.fences, 0u);
    b.store_word(*reinterpret_cast<uint64_t*>(buf + 320), 7);
  });
  const CostCounters c = since(before);
  EXPECT_EQ(CountingCpu::log.fences, 1u);
  EXPECT_EQ(c.fences, 1u);
  EXPECT_EQ(c.persists, 3u);
  EXPECT_EQ(c.flushed_lines, 1u + 2u + 1u);
  EXPECT_EQ(std::memcmp(buf + 250, src, sizeof src), 0);
}

TEST(FlushLayer, TheChosenInstructionReachesTheFlushPath) {
  for (FlushInsn insn : {FlushInsn::kClwb, FlushInsn::kClflushopt, FlushInsn::kClflush}) {
    if (!CpuFlushSupport::host().has(insn)) continue;
    ScratchDir dir;
    const ScopedPolicy scoped(policy("adr", insn));
    CountingPersistBackend b(dir.spec("hashtable", Mode::kPersist));
    HashTable<CountingPersistBackend> ds(
        b, DsOptions{.capacity = 64, .expected = 32, .codec = KeyCodec{InsertOrder::kHashed}});
    CountingCpu::log = {};
    const std::string v = value_for(1);
    ASSERT_TRUE(ds.insert(5, v.data()));
    ASSERT_TRUE(ds.update(5, v.data()));
    ASSERT_FALSE(CountingCpu::log.lines.empty());
    for (const auto& [used, line] : CountingCpu::log.lines) {
      EXPECT_EQ(used, insn) << flush_insn_name(insn);
    }
  }
}

TEST(FlushLayer, CopiesFromTheThresholdOnAreNonTemporal) {
  ScratchDir dir;
  PersistencePolicy p = policy("adr");
  p.movnt_threshold = 128;
  std::vector<char> src(4096);
  std::iota(src.begin(), src.end(), char{1});
  alignas(64) static char buf[8192];
  {
    const ScopedPolicy scoped(p);
    CountingPersistBackend b(dir.spec("nt", Mode::kPersist));
    CountingCpu::log = {};
    b.write(buf, src.data(), 127);
    EXPECT_TRUE(CountingCpu::log.nt_copies.empty());
    EXPECT_EQ(logged_lines(), expected_lines(buf, 127));
    CountingCpu::log = {};
    const CostCounters before = tl_costs;
    b.write(buf + 8, src.data(), 128);
    ASSERT_EQ(CountingCpu::log.nt_copies.size(), 1u);
    EXPECT_TRUE(CountingCpu::log.lines.empty());
    EXPECT_EQ(since(before).flushed_lines, lines_covered(buf + 8, 128));
    EXPECT_EQ(std::memcmp(buf + 8, src.data(), 128), 0);
    // A move whose destination lies inside its source cannot be copied forward.
    CountingCpu::log = {};
    b.move(buf + 64, buf, 1000);
    EXPECT_TRUE(CountingCpu::log.nt_copies.empty());
    EXPECT_EQ(logged_lines(), expected_lines(buf + 64, 1000));
    b.move(buf, buf + 64, 1000);
    EXPECT_EQ(CountingCpu::log.nt_copies.size(), 1u);
  }
  {
    PersistencePolicy nt = p;
    nt.nt_always = true;
    nt.movnt_threshold = 0;
    const ScopedPolicy scoped(nt);
    CountingPersistBackend b(dir.spec("nt-always", Mode::kPersist));
    CountingCpu::log = {};
    b.write(buf, src.data(), 8);
    EXPECT_EQ(CountingCpu::log.nt_copies.size(), 1u);
  }
  {
    PersistencePolicy e = p;
    e.domain = *choose_domain("eadr", false);
    const ScopedPolicy scoped(e);
    CountingPersistBackend b(dir.spec("nt-eadr", Mode::kPersist));
    CountingCpu::log = {};
    const CostCounters before = tl_costs;
    b.write(buf, src.data(), 4096);
    EXPECT_TRUE(CountingCpu::log.nt_copies.empty()) << "nothing to write back under eADR";
    EXPECT_TRUE(CountingCpu::log.lines.empty());
    EXPECT_EQ(since(before).flushes_elided, 64u);
    EXPECT_EQ(CountingCpu::log.fences, 1u);
  }
}

TEST(FlushLayer, ColdPayloadsAreStillWrittenBackUnderEadrWithFlushCold) {
  ScratchDir dir;
  alignas(64) static char buf[256];
  const std::string v = value_for(3);
  for (bool cold : {false, true}) {
    PersistencePolicy p = policy("eadr");
    p.flush_cold = cold;
    const ScopedPolicy scoped(p);
    CountingPersistBackend b(dir.spec(cold ? "cold" : "hot", Mode::kPersist));
    CountingCpu::log = {};
    b.write(buf, v.data(), 100);  // not a value payload: elided either way
    EXPECT_TRUE(CountingCpu::log.lines.empty());
    b.write_value(buf, v.data(), 100);
    EXPECT_EQ(logged_lines(), cold ? expected_lines(buf, 100) : std::vector<uintptr_t>{});
    EXPECT_EQ(CountingCpu::log.fences, 2u);
  }
}

// flush_cold() is the primitive of designs that make a payload durable
// otherwise (a commit, a fence under eADR): it writes back only where
// --flush-cold asks for it, and fences nothing.
TEST(FlushLayer, FlushColdWritesBackOnlyUnderEadrWithFlushCold) {
  ScratchDir dir;
  alignas(64) static char buf[256];
  for (const char* domain : {"adr", "eadr"}) {
    for (bool cold : {false, true}) {
      PersistencePolicy p = policy(domain);
      p.flush_cold = cold;
      const ScopedPolicy scoped(p);
      CountingPersistBackend b(dir.spec(fmt::format("{}-{}", domain, cold), Mode::kPersist));
      CountingCpu::log = {};
      b.flush_cold(buf + 8, 130);
      const bool writes = std::string(domain) == "eadr" && cold;
      EXPECT_EQ(logged_lines(), writes ? expected_lines(buf + 8, 130) : std::vector<uintptr_t>{})
          << domain << " cold=" << cold;
      EXPECT_EQ(CountingCpu::log.fences, 0u);
    }
  }
}

TEST(FlushLayer, InjectedWriteLatencyIsChargedPerLineAtTheFence) {
  ScratchDir dir;
  alignas(64) static char buf[2048];
  for (const char* domain : {"adr", "eadr"}) {
    PersistencePolicy p = policy(domain);
    p.write_ns = 40;
    const ScopedPolicy scoped(p);
    CountingPersistBackend b(dir.spec(domain, Mode::kPersist));
    b.drain();  // charges what creating the pool wrote back
    const CostCounters before = tl_costs;
    b.batch([&] {
      b.flush(buf, 3 * 64);
      b.flush(buf + 1024, 10);
    });
    const CostCounters c = since(before);
    EXPECT_EQ(c.injected_write_ns, std::string(domain) == "adr" ? 4u * 40u : 0u) << domain;
    b.drain();  // nothing written back since the last fence
    EXPECT_EQ(since(before).injected_write_ns, c.injected_write_ns);
  }
}

TEST(FlushLayer, InjectedReadLatencyIsChargedPerTranslation) {
  ScratchDir dir;
  PersistencePolicy p = policy("adr");
  p.read_ns = 30;
  const ScopedPolicy scoped(p);
  PersistBackend b(dir.spec("hashtable", Mode::kPersist));
  HashTable<PersistBackend> ds(
      b, DsOptions{.capacity = 64, .expected = 32, .codec = KeyCodec{InsertOrder::kHashed}});
  const std::string v = value_for(2);
  ASSERT_TRUE(ds.insert(9, v.data()));
  char out[kValueSize];
  const CostCounters before = tl_costs;
  ASSERT_TRUE(ds.read(9, out));
  const CostCounters c = since(before);
  EXPECT_GT(c.translations, 0u);
  EXPECT_EQ(c.injected_read_ns, c.translations * 30);
}

// ---- every (structure, durable mode): eADR against ADR -------------------------

constexpr uint64_t kIds = 256;

DsOptions options() {
  return DsOptions{.capacity = kIds,
                   .expected = kIds / 2,
                   .value_size = kValueSize,
                   .load_factor = 0.75,
                   .codec = KeyCodec{InsertOrder::kHashed}};
}

struct Issued {
  CostCounters costs;
  CountingCpu::Log log;
};

// The same random operations under `domain`, checked against the oracle.
template <class P>
Issued issued_under(const char* domain, bool flush_cold = false) {
  using B = typename CountingOf<typename P::B>::type;
  using DS = typename P::template With<B>;
  ScratchDir dir;
  PersistencePolicy p = policy(domain);
  p.flush_cold = flush_cold;
  const ScopedPolicy scoped(p);
  B b(dir.spec(DS::kName, B::kMode));
  DS ds(b, options());
  CountingCpu::log = {};
  const CostCounters before = tl_costs;
  Oracle oracle;
  random_ops(ds, oracle, 3, 1500, kIds, options().codec);
  return Issued{since(before), CountingCpu::log};
}

template <class P>
class DomainTest : public ::testing::Test {};
TYPED_TEST_SUITE(DomainTest, DurableKvPairs, PairName);

TYPED_TEST(DomainTest, EadrWritesNothingBackAndKeepsEveryFence) {
  const Issued adr = issued_under<TypeParam>("adr");
  const Issued eadr = issued_under<TypeParam>("eadr");
  uint64_t nt_lines = 0;
  for (const auto& [dst, n] : adr.log.nt_copies) {
    nt_lines += lines_covered(reinterpret_cast<const void*>(dst), n);
  }
  EXPECT_EQ(adr.log.lines.size() + nt_lines, adr.costs.flushed_lines);
  if (TypeParam::B::kMode == Mode::kPersist) {
    EXPECT_GT(adr.costs.flushed_lines, 0u);
  }
  EXPECT_TRUE(eadr.log.lines.empty());
  EXPECT_TRUE(eadr.log.nt_copies.empty());
  EXPECT_EQ(eadr.costs.flushed_lines, 0u);
  EXPECT_EQ(eadr.costs.flushes_elided, adr.costs.flushed_lines);
  EXPECT_EQ(eadr.costs.persists, adr.costs.persists);
  EXPECT_EQ(eadr.log.fences, adr.log.fences);
  EXPECT_EQ(eadr.costs.fences, adr.costs.fences);
  EXPECT_EQ(adr.costs.fences, adr.log.fences);
  // libpmemobj's own (allocation metadata, logs, commits): elided too, its
  // fences kept.
  if (TypeParam::B::kMode == Mode::kTrans) {
    EXPECT_GT(adr.costs.lib_flushed_lines, 0u);
  }
  EXPECT_EQ(eadr.costs.lib_flushed_lines, 0u);
  EXPECT_EQ(eadr.costs.lib_flushes_elided, adr.costs.lib_flushed_lines);
  EXPECT_EQ(eadr.costs.lib_fences, adr.costs.lib_fences);
}

// --flush-cold on under eADR: every structure writes its value payloads back
// (updates and new objects), only those, and fences exactly as without.
TYPED_TEST(DomainTest, FlushColdWritesBackValuePayloadsUnderEadr) {
  const Issued adr = issued_under<TypeParam>("adr");
  const Issued eadr = issued_under<TypeParam>("eadr");
  const Issued cold = issued_under<TypeParam>("eadr", true);
  EXPECT_GT(cold.costs.flushed_lines, 0u);
  EXPECT_FALSE(cold.log.lines.empty() && cold.log.nt_copies.empty());
  EXPECT_EQ(cold.costs.fences, adr.costs.fences);
  EXPECT_EQ(cold.costs.lib_flushed_lines, 0u);
  if (TypeParam::B::kMode == Mode::kPersist) {
    // The same persists as ADR; the hot ones still elided.
    EXPECT_EQ(cold.costs.persists, adr.costs.persists);
    EXPECT_EQ(cold.costs.flushed_lines + cold.costs.flushes_elided, adr.costs.flushed_lines);
    EXPECT_GT(cold.costs.flushes_elided, 0u);
  } else {
    // Only the payloads are written back; libpmemobj's write-backs stay elided.
    EXPECT_EQ(cold.costs.lib_flushes_elided, eadr.costs.lib_flushes_elided);
  }
}

// ---- libpmemobj's calls into libpmem ---------------------------------------------

TEST(LibpmemHooks, LibpmemobjBindsToPmemidsDefinitions) { EXPECT_TRUE(lib_hooks_bound()); }

// libpmem's pmem_persist and copies call pmem_flush / pmem_drain through its
// own PLT, which would reach the interposed functions a second time.
TEST(LibpmemHooks, EachWriteBackAndFenceIsCountedOnceAndElidedUnderEadr) {
  alignas(64) static char buf[512];
  std::string src(100, 's');
  for (const char* domain : {"adr", "eadr"}) {
    const ScopedPolicy scoped(policy(domain));
    const CostCounters before = tl_costs;
    pmem_persist(buf, 128);                                      // 2 lines, 1 fence
    pmem_memcpy(buf + 256, src.data(), 100, 0);                  // 2 lines, 1 fence
    pmem_memset(buf, 0, 64, PMEM_F_MEM_NODRAIN);                 // 1 line
    pmem_memmove(buf + 64, buf + 256, 100, PMEM_F_MEM_NOFLUSH);  // neither
    pmem_flush(buf, 1);                                          // 1 line
    pmem_drain();                                                // 1 fence
    const CostCounters c = since(before);
    const bool adr = std::string(domain) == "adr";
    EXPECT_EQ(c.lib_flushed_lines, adr ? 6u : 0u) << domain;
    EXPECT_EQ(c.lib_flushes_elided, adr ? 0u : 6u) << domain;
    EXPECT_EQ(c.lib_fences, 3u) << domain;
    EXPECT_EQ(std::string(buf + 256, 100), src);
    EXPECT_EQ(std::string(buf + 64, 100), src);
  }
}

// libpmem's flush loop starts at the line holding the address and runs while
// below address + length: an empty range at an address inside a line writes
// that line back (libpmemobj persists one when it sets up a run of a class
// without headers), one on a line's first byte writes back nothing.
TEST(LibpmemHooks, AnEmptyRangeCountsTheLineLibpmemWritesBack) {
  alignas(64) static char buf[128];
  const ScopedPolicy scoped(policy("adr"));
  const CostCounters before = tl_costs;
  pmem_flush(buf + 8, 0);
  pmem_persist(buf + 72, 0);
  pmem_flush(buf, 0);
  pmem_persist(buf + 64, 0);
  EXPECT_EQ(since(before).lib_flushed_lines, 2u);
}

TEST(LibpmemHooks, ATransactionsWriteBacksAndFencesAreCounted) {
  ScratchDir dir;
  const ScopedPolicy scoped(policy("adr"));
  TransBackend b(dir.spec("tx", Mode::kTrans));
  auto* root = b.root<std::array<char, 512>>();
  const CostCounters before = tl_costs;
  b.tx([&] { b.write(root->data(), "committed", 10); });
  const CostCounters c = since(before);
  EXPECT_GT(c.lib_flushed_lines, 0u);
  EXPECT_GT(c.lib_fences, 0u);
  EXPECT_EQ(c.flushed_lines, 0u) << "pmemids itself writes nothing back in a transaction";
  EXPECT_EQ(std::string(root->data()), "committed");
}

}  // namespace
}  // namespace pmemids::test
