// The power model of the checking backends (backend/shadow.h), driven by hand
// over a buffer standing for the pool: what an image keeps under ADR (written
// back and fenced, whether or not the shadow was told of the store; only the
// objects' bytes are restored; survival per line or per 8-byte word) and under
// eADR (every store; with store-buffer loss, a prefix of the stores since the
// last fence).
#include "backend/shadow.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "catalog_pairs.h"
#include "counting_cpu.h"
#include "oracle_driver.h"

namespace pmemids::test {
namespace {

PersistencePolicy in_domain(const char* d) {
  PersistencePolicy p = PersistencePolicy::host_default();
  p.domain = *choose_domain(d, false);
  return p;
}

// A 256-byte "pool", attached to the shadow (all of it durable), and the file
// its crash images are written into.
class Pool {
 public:
  explicit Pool(Shadow& sh) : path_(dir_.path() + "/image") {
    mem_.fill('a');
    sh.attach(mem_.data(), mem_.size());
  }
  char* at(size_t off) { return mem_.data() + off; }
  // A store the shadow is told of, as the backends report theirs.
  void store(Shadow& sh, size_t off, const std::string& s) {
    sh.stored(at(off), s.size());
    raw(off, s);
  }
  // A store the shadow is not told of (a memcpy or a field assigned directly).
  void raw(size_t off, const std::string& s) { std::memcpy(at(off), s.data(), s.size()); }
  // The image a crash now would leave; `objects` (offset, bytes) default to the
  // whole pool.
  std::string image(const Shadow& sh, uint64_t seed = 1, double survive = 0.0, uint32_t grain = 64,
                    std::vector<std::pair<size_t, size_t>> objects = {}) {
    if (objects.empty()) objects.emplace_back(0, mem_.size());
    std::vector<ByteRange> ranges;
    for (const auto& [off, n] : objects) ranges.push_back({at(off), n});
    const int fd = open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    EXPECT_EQ(write(fd, mem_.data(), mem_.size()), static_cast<ssize_t>(mem_.size()));
    sh.build_image(fd, ranges, survive, grain, seed);
    std::string out(mem_.size(), '\0');
    EXPECT_EQ(pread(fd, out.data(), out.size(), 0), static_cast<ssize_t>(out.size()));
    close(fd);
    return out;
  }
  std::string now() const { return std::string(mem_.data(), mem_.size()); }

 private:
  ScratchDir dir_;
  std::string path_;
  alignas(64) std::array<char, 256> mem_;
};

TEST(ShadowAdr, OnlyWrittenBackAndFencedStoresSurvive) {
  const ScopedPolicy scoped(in_domain("adr"));
  Shadow sh;
  Pool pool(sh);
  const std::string before = pool.now();
  pool.store(sh, 0, "BBBBBBBB");
  EXPECT_EQ(pool.image(sh), before) << "stored, not written back";
  sh.flushed(pool.at(0), 8);
  EXPECT_EQ(pool.image(sh), before) << "written back, not fenced";
  sh.fenced();
  const std::string durable = pool.now();
  EXPECT_EQ(pool.image(sh), durable);
  pool.store(sh, 70, "CC");  // another line
  sh.fenced();               // a fence alone writes nothing back
  EXPECT_EQ(pool.image(sh), durable);
}

TEST(ShadowAdr, AStoreAfterAWriteBackIsNotMadeDurableByTheFence) {
  const ScopedPolicy scoped(in_domain("adr"));
  Shadow sh;
  Pool pool(sh);
  pool.store(sh, 0, "BBBBBBBB");
  sh.flushed(pool.at(0), 8);
  const std::string at_writeback = pool.now();
  pool.store(sh, 8, "CCCCCCCC");  // same line, after its write-back
  pool.store(sh, 2, "dd");        // overwrites bytes the write-back carried
  sh.fenced();
  EXPECT_EQ(pool.image(sh), at_writeback);
  sh.flushed(pool.at(0), 16);  // written back again: now all of it
  sh.fenced();
  EXPECT_EQ(pool.image(sh), pool.now());
}

TEST(ShadowAdr, ASecondWriteBackBeforeTheFenceStillLosesEverythingOnACrash) {
  const ScopedPolicy scoped(in_domain("adr"));
  Shadow sh;
  Pool pool(sh);
  const std::string before = pool.now();
  pool.store(sh, 0, "BBBB");
  sh.flushed(pool.at(0), 4);
  pool.store(sh, 30, "EE");
  sh.flushed(pool.at(30), 2);
  EXPECT_EQ(pool.image(sh), before);
}

TEST(ShadowAdr, AStoreTheShadowIsNotToldOfIsLostUntilWrittenBackAndFenced) {
  const ScopedPolicy scoped(in_domain("adr"));
  Shadow sh;
  Pool pool(sh);
  const std::string before = pool.now();
  pool.raw(8, "RAWSTORE");
  pool.raw(130, "XY");
  EXPECT_EQ(pool.image(sh), before) << "raw stores, never written back";
  sh.flushed(pool.at(8), 8);
  sh.fenced();
  const std::string img = pool.image(sh);
  EXPECT_EQ(img.substr(0, 128), pool.now().substr(0, 128)) << "written back and fenced";
  EXPECT_EQ(img.substr(128), before.substr(128)) << "the other line was never written back";
}

// libpmemobj's metadata is trusted: only the objects' bytes return to their
// durable state, whatever else differs.
TEST(ShadowAdr, OnlyTheObjectsBytesAreRestored) {
  const ScopedPolicy scoped(in_domain("adr"));
  Shadow sh;
  Pool pool(sh);
  const std::string before = pool.now();
  pool.raw(0, "HEADER");     // outside every object
  pool.raw(80, "OBJECT");    // inside the object [72, 200)
  pool.raw(200, "TRAILER");  // after it, in the same line
  const std::string img = pool.image(sh, 1, 0.0, 64, {{72, 128}});
  EXPECT_EQ(img.substr(0, 6), "HEADER");
  EXPECT_EQ(img.substr(80, 6), before.substr(80, 6));
  EXPECT_EQ(img.substr(200, 7), "TRAILER");
}

// --survive random: a pending line survives whole (grain 64) or each 8-byte
// word on its own (grain 8: a line written in several stores can be cut).
TEST(ShadowAdr, SurvivalIsDrawnPerLineOrPerWord) {
  const ScopedPolicy scoped(in_domain("adr"));
  Shadow sh;
  Pool pool(sh);
  pool.raw(64, std::string(64, 'B'));
  for (uint32_t grain : {64u, 8u}) {
    bool mixed = false, kept = false, lost = false;
    for (uint64_t seed = 1; seed < 64; ++seed) {
      const std::string line = pool.image(sh, seed, 0.5, grain).substr(64, 64);
      std::set<char> words;
      for (size_t w = 0; w < 64; w += 8) {
        const std::string word = line.substr(w, 8);
        EXPECT_TRUE(word == std::string(8, 'a') || word == std::string(8, 'B')) << word;
        words.insert(word[0]);
      }
      mixed = mixed || words.size() == 2;
      kept = kept || line == std::string(64, 'B');
      lost = lost || line == std::string(64, 'a');
    }
    if (grain == 64) {
      EXPECT_TRUE(kept && lost) << "both outcomes are drawn";
    }
    EXPECT_EQ(mixed, grain == 8) << "grain " << grain;
  }
}

// Grain 8 cuts a line between its stores, in their order: x86 writes a line
// back whole, at any moment, so a line holds its durable bytes, or its bytes
// after some prefix of the stores made to it, the last of them possibly in
// part (a copy's words are stored in no promised order). A flag stored after
// the data of its own line is never durable without that data.
TEST(ShadowAdr, GrainEightCutsALineBetweenItsStoresInOrder) {
  const ScopedPolicy scoped(in_domain("adr"));
  Shadow sh;
  Pool pool(sh);
  sh.track_line_states(true);
  pool.store(sh, 72, std::string(16, 'D'));  // data, words 1-2 of line 1
  pool.store(sh, 64, std::string(8, 'V'));   // then its valid flag, word 0
  sh.crash_point();
  std::set<std::string> seen;
  for (uint64_t seed = 1; seed < 200; ++seed) {
    const std::string line = pool.image(sh, seed, 0.5, 8).substr(64, 24);
    const bool flag = line.substr(0, 8) == std::string(8, 'V');
    const bool data = line.substr(8, 16) == std::string(16, 'D');
    EXPECT_TRUE(!flag || data) << "the flag survived without the data stored before it: " << line;
    seen.insert(line);
  }
  EXPECT_TRUE(seen.count(std::string(24, 'a')) == 1) << "the line's durable bytes";
  EXPECT_TRUE(seen.count("aaaaaaaa" + std::string(16, 'D')) == 1) << "cut between the stores";
  EXPECT_TRUE(seen.count("aaaaaaaaDDDDDDDDaaaaaaaa") == 1) << "cut inside the first store";
  EXPECT_TRUE(seen.count("VVVVVVVV" + std::string(16, 'D')) == 1) << "both stores";
}

// The power model is the domain table's, for every domain in it: a store
// fenced but never written back survives a crash exactly when the domain's
// crash model keeps unflushed lines; written back and fenced, it survives in
// every domain.
TEST(ShadowDomains, UnflushedStoresFollowTheTablesCrashModel) {
  for (const DomainInfo& d : kDomainTable) {
    PersistencePolicy p = PersistencePolicy::host_default();
    p.domain = *choose_domain(d.name, false);
    const ScopedPolicy scoped(p);
    Shadow sh;
    sh.arm([](uint64_t) {});
    Pool pool(sh);
    const std::string before = pool.now();
    pool.store(sh, 0, "BBBBBBBB");
    sh.fenced();
    EXPECT_EQ(pool.image(sh), d.crash_model.unflushed_lines_lost ? before : pool.now()) << d.name;
    pool.store(sh, 64, "CCCCCCCC");
    sh.flushed(pool.at(0), 72);
    sh.fenced();
    EXPECT_EQ(pool.image(sh), pool.now()) << d.name;
  }
}

TEST(ShadowEadr, EveryStoreSurvives) {
  const ScopedPolicy scoped(in_domain("eadr"));
  Shadow sh;
  sh.arm([](uint64_t) {});
  Pool pool(sh);
  pool.store(sh, 0, "BBBB");
  pool.store(sh, 100, "CCCC");
  EXPECT_EQ(pool.image(sh), pool.now());
}

TEST(ShadowEadr, StoreBufferLossDropsASuffixOfTheUnfencedStores) {
  const ScopedPolicy scoped(in_domain("eadr"));
  Shadow sh;
  sh.arm([](uint64_t) {}, PlantedFault::kNone, 0, /*store_buffer_loss=*/true);
  Pool pool(sh);
  pool.store(sh, 0, "F");
  sh.fenced();
  std::vector<std::string> states = {pool.now()};  // after 0, 1, 2, 3 unfenced stores
  for (const char* s : {"x", "y", "z"}) {
    pool.store(sh, 64 + states.size(), s);
    states.push_back(pool.now());
  }
  std::set<std::string> seen;
  for (uint64_t seed = 1; seed < 40; ++seed) {
    const std::string img = pool.image(sh, seed);
    const auto it = std::find(states.begin(), states.end() - 1, img);
    EXPECT_NE(it, states.end() - 1) << "not a proper prefix of the stores since the fence";
    EXPECT_EQ(img[0], 'F') << "a fenced store was lost";
    seen.insert(img);
  }
  EXPECT_EQ(seen.size(), 3u) << "every suffix length is drawn";
}

// ---- the checked path is the benchmarked path ---------------------------------------

// The checking backends are the benchmarked backends' templates with the Shadow
// hook: the same code, whose hook calls compile away in the benchmarked ones.
static_assert(std::is_same_v<ShadowPersistBackend, PersistBackendT<Shadow>>);
static_assert(std::is_same_v<ShadowTransBackend, TransBackendT<Shadow>>);
static_assert(std::is_same_v<PlainOf<ShadowPersistBackend>::type, PersistBackendT<NoShadow>>);
static_assert(std::is_same_v<PlainOf<ShadowTransBackend>::type, TransBackendT<NoShadow>>);

// What a backend issued for a stream of operations: its own write-backs
// (instruction, line offset in the pool), fences and non-temporal copies, and
// libpmemobj's write-backs and fences (through libpmem).
struct Issued {
  std::vector<std::pair<FlushInsn, uint64_t>> lines;
  uint64_t fences = 0;
  std::vector<std::pair<uint64_t, size_t>> nt_copies;
  uint64_t lib_lines = 0, lib_fences = 0;
  bool operator==(const Issued&) const = default;
};

template <template <class> class DS, class B>
Issued issue(const ScratchDir& dir) {
  B b(dir.spec(DS<B>::kName, B::kMode, false, false, 8 << 20));
  const DsOptions o{.capacity = 256,
                    .expected = 64,
                    .value_size = kValueSize,
                    .codec = KeyCodec{InsertOrder::kHashed}};
  DS<B> ds(b, o);
  const auto base = reinterpret_cast<uintptr_t>(b.pop());
  CountingCpu::log = {};
  const CostCounters before = tl_costs;
  for (uint64_t id = 0; id < 60; ++id) ds.insert(o.codec.encode(id), value_for(id).data());
  for (uint64_t id = 0; id < 60; id += 3) ds.update(o.codec.encode(id), value_for(id + 1).data());
  for (uint64_t id = 1; id < 60; id += 4) ds.remove(o.codec.encode(id));
  Issued out;
  for (const auto& [insn, line] : CountingCpu::log.lines) out.lines.emplace_back(insn, line - base);
  out.fences = CountingCpu::log.fences;
  for (const auto& [d, n] : CountingCpu::log.nt_copies) out.nt_copies.emplace_back(d - base, n);
  out.lib_lines = tl_costs.lib_flushed_lines - before.lib_flushed_lines;
  out.lib_fences = tl_costs.lib_fences - before.lib_fences;
  return out;
}

template <class P>
class CheckedPath : public ::testing::Test {
 protected:
  ScratchDir dir_;
};
TYPED_TEST_SUITE(CheckedPath, DurableKvPairs, PairName);

// Over a recording CPU, the checking backend issues exactly what the
// benchmarked one does for the same operations: a write-back dropped or added
// on either side shows here, and the crash checker therefore exercises the
// benchmarked calls.
TYPED_TEST(CheckedPath, TheCheckingBackendIssuesTheBenchmarkedCalls) {
  using B = typename TypeParam::B;
  using Counting =
      std::conditional_t<B::kMode == Mode::kPersist, PersistBackendT<NoShadow, CountingCpu>,
                         TransBackendT<NoShadow, CountingCpu>>;
  using Checking =
      std::conditional_t<B::kMode == Mode::kPersist, PersistBackendT<Shadow, CountingCpu>,
                         TransBackendT<Shadow, CountingCpu>>;
  const Issued bench = issue<TypeParam::template With, Counting>(this->dir_);
  const Issued checked = issue<TypeParam::template With, Checking>(this->dir_);
  EXPECT_GT(bench.lines.size() + bench.lib_lines, 0u);
  EXPECT_GT(bench.fences + bench.lib_fences, 0u);
  EXPECT_EQ(bench.lines, checked.lines);
  EXPECT_EQ(bench.fences, checked.fences);
  EXPECT_EQ(bench.nt_copies, checked.nt_copies);
  EXPECT_EQ(bench.lib_lines, checked.lib_lines);
  EXPECT_EQ(bench.lib_fences, checked.lib_fences);
}

}  // namespace
}  // namespace pmemids::test
