// The power model of the checking backends (backend/shadow.h), driven by hand
// over a buffer standing for the pool: what an image keeps under ADR (written
// back and fenced) and under eADR (every store; with store-buffer loss, a
// prefix of the stores since the last fence).
#include "backend/shadow.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <vector>

#include "test_support.h"

namespace pmemids::test {
namespace {

PersistencePolicy in_domain(const char* d) {
  PersistencePolicy p = PersistencePolicy::host_default();
  p.domain = *choose_domain(d, false);
  return p;
}

// A 256-byte "pool" and the file its crash images are written into.
class Pool {
 public:
  Pool() : path_(dir_.path() + "/image") { mem_.fill('a'); }
  char* at(size_t off) { return mem_.data() + off; }
  void store(Shadow& sh, size_t off, const std::string& s) {
    sh.stored(at(off), s.size());
    std::memcpy(at(off), s.data(), s.size());
  }
  // The image a crash now would leave.
  std::string image(const Shadow& sh, uint64_t seed = 1) {
    const int fd = open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    EXPECT_EQ(write(fd, mem_.data(), mem_.size()), static_cast<ssize_t>(mem_.size()));
    sh.build_image(fd, mem_.data(), mem_.size(), 0.0, seed);
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
  Pool pool;
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
  Pool pool;
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
  Pool pool;
  const std::string before = pool.now();
  pool.store(sh, 0, "BBBB");
  sh.flushed(pool.at(0), 4);
  pool.store(sh, 30, "EE");
  sh.flushed(pool.at(30), 2);
  EXPECT_EQ(pool.image(sh), before);
}

TEST(ShadowEadr, EveryStoreSurvives) {
  const ScopedPolicy scoped(in_domain("eadr"));
  Shadow sh;
  sh.arm([](uint64_t) {});
  Pool pool;
  pool.store(sh, 0, "BBBB");
  pool.store(sh, 100, "CCCC");
  EXPECT_EQ(pool.image(sh), pool.now());
}

TEST(ShadowEadr, StoreBufferLossDropsASuffixOfTheUnfencedStores) {
  const ScopedPolicy scoped(in_domain("eadr"));
  Shadow sh;
  sh.arm([](uint64_t) {}, PlantedFault::kNone, 0, /*store_buffer_loss=*/true);
  Pool pool;
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

}  // namespace
}  // namespace pmemids::test
