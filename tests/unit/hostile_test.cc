// Hostile input at the unit level: the checks of a pool before it is trusted
// (backend/pool_check.h, checked pointers), input and output files, escaping,
// the shared option checks, memory estimates and sweep estimates.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>

#include "backend/pool_check.h"
#include "catalog_pairs.h"
#include "options/lists.h"
#include "options/validators.h"
#include "registry/footprint.h"
#include "registry/registry.h"
#include "sweep/estimate.h"
#include "sweep/run_keys.h"
#include "util/escape.h"
#include "util/file_checks.h"
#include "util/stop_signals.h"
#include "workload/properties.h"
#include "workload/stream.h"

namespace pmemids::test {
namespace {

std::string file_hash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return std::to_string(std::hash<std::string>{}(ss.str())) + ":" + std::to_string(ss.str().size());
}

template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// ------------------------------------------------------- checked pointer walks

template <class P>
class CheckedWalk : public ::testing::Test {
 protected:
  using B = typename P::B;
  using DS = typename P::DS;

  DsOptions options() const {
    return DsOptions{.capacity = 600, .expected = 300, .value_size = 100, .seed = 3};
  }
  // A kept pool with inserts and deletes behind it.
  void build() {
    B b(dir_.spec(DS::kName, B::kMode, false, true, 16 << 20));
    DS ds(b, options());
    std::vector<char> v(100, 'v');
    const KeyCodec codec;  // keys of record ids, as the arraylist addresses them
    for (uint64_t id = 0; id < 300; ++id) ds.insert(codec.encode(id), v.data());
    for (uint64_t id = 0; id < 300; id += 3) ds.remove(codec.encode(id));
  }
  PoolSpec reopen() const { return dir_.spec(DS::kName, B::kMode, true, true); }
  // The check a reopening run makes (run/reopen_check.h).
  PoolCheckTime check() const {
    const PoolSpec ps = reopen();
    return check_pool_in_child(ps, 20, [&] {
      B b(ps);
      b.index_objects();
      const DS ds(b, options());
      ds.check();
    });
  }
  // The link that follows every root header: the structure's first pointer.
  void forge_root_link(const std::function<void(PMEMoid& link, PMEMoid root)>& change) const {
    const std::string path = reopen().path();
    PMEMobjpool* pop = pmemobj_open(path.c_str(), reopen().layout().c_str());
    ASSERT_NE(pop, nullptr) << pmemobj_errormsg();
    PMEMoid root = pmemobj_root(pop, pmemobj_root_size(pop));
    auto* link = reinterpret_cast<PMEMoid*>(static_cast<char*>(pmemobj_direct(root)) + kRootPrefix +
                                            sizeof(RootHeader));
    change(*link, root);
    pmemobj_persist(pop, link, sizeof *link);
    pmemobj_close(pop);
  }
  void expect_corrupt(const std::string& phrase) const {
    const std::string before = file_hash(reopen().path());
    const std::string msg = message_of([&] { check(); });
    EXPECT_NE(msg.find("is corrupt"), std::string::npos) << msg;
    EXPECT_NE(msg.find(phrase), std::string::npos) << msg;
    EXPECT_EQ(file_hash(reopen().path()), before) << "a refused pool changed";
  }

  ScratchDir dir_;
};
TYPED_TEST_SUITE(CheckedWalk, DurableKvPairs, PairName);

TYPED_TEST(CheckedWalk, AnIntactPoolPassesAndStaysAsItWas) {
  this->build();
  const std::string before = file_hash(this->reopen().path());
  EXPECT_NO_THROW(this->check());
  EXPECT_EQ(file_hash(this->reopen().path()), before) << "the check wrote into the pool";
}

TYPED_TEST(CheckedWalk, ALinkIntoTheMiddleOfAnObjectIsRefused) {
  this->build();
  this->forge_root_link([](PMEMoid& o, PMEMoid) { o.off += 64; });
  this->expect_corrupt("where no allocated object starts");
}

TYPED_TEST(CheckedWalk, ALinkBeyondThePoolIsRefused) {
  this->build();
  this->forge_root_link([](PMEMoid& o, PMEMoid) { o.off = uint64_t{1} << 40; });
  this->expect_corrupt("lies outside the pool");
}

TYPED_TEST(CheckedWalk, ALinkToAnotherPoolIsRefused) {
  this->build();
  this->forge_root_link([](PMEMoid& o, PMEMoid) { o.pool_uuid_lo ^= 1; });
  this->expect_corrupt("names another pool");
}

TYPED_TEST(CheckedWalk, ALinkToAnObjectOfAnotherTypeIsRefused) {
  this->build();
  // The root's first link names an object of type 1 or a bare one (0); type 77 is no one's.
  this->forge_root_link([](PMEMoid& link, PMEMoid root) {
    PMEMoid other;
    ASSERT_EQ(pmemobj_alloc(pmemobj_pool_by_oid(root), &other, 4096, 77, nullptr, nullptr), 0);
    link.off = other.off;
  });
  this->expect_corrupt("type 77");
}

// --------------------------------------------------------- the checking child

class PoolCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    spec_ = dir_.spec("hashtable", Mode::kPersist, false, true, 8 << 20);
    { PersistBackend b(spec_); }
    spec_.reopen = true;
    before_ = file_hash(spec_.path());
  }
  void TearDown() override {
    EXPECT_EQ(file_hash(spec_.path()), before_) << "the checked pool changed";
  }
  ScratchDir dir_;
  PoolSpec spec_;
  std::string before_;
};

TEST_F(PoolCheck, WritesThroughTheCopyOnWriteViewNeverReachTheFile) {
  EXPECT_NO_THROW(check_pool_in_child(spec_, 20, [&] {
    PersistBackend b(spec_);
    auto* r = b.root<uint64_t>();
    b.store_word(*r, 42);
    b.alloc<char>(4096, 9);
  }));
}

TEST_F(PoolCheck, AFaultingWalkMeansCorruptNotACrash) {
  const std::string msg =
      message_of([&] { check_pool_in_child(spec_, 20, [] { raise(SIGSEGV); }); });
  EXPECT_NE(msg.find("is corrupt: checking it crashed the checking process"), std::string::npos)
      << msg;
}

TEST_F(PoolCheck, AWalkThatLoopsIsStoppedByItsCpuBound) {
  const std::string msg = message_of([&] {
    check_pool_in_child(spec_, 1, [] {
      volatile uint64_t spins = 0;
      for (;;) spins = spins + 1;
    });
  });
  EXPECT_NE(msg.find("did not finish within"), std::string::npos) << msg;
}

TEST_F(PoolCheck, AWalkThatBlocksIsStoppedByTheWallClock) {
  const std::string msg = message_of([&] {
    check_pool_in_child(spec_, 0.1, [] {
      for (;;) pause();
    });
  });
  EXPECT_NE(msg.find("did not finish within 11 s"), std::string::npos) << msg;
}

TEST_F(PoolCheck, AnInvariantViolationIsNamed) {
  const std::string msg = message_of([&] {
    check_pool_in_child(spec_, 20, [] { throw InvariantViolation("key 0x5 out of order"); });
  });
  EXPECT_NE(msg.find("is corrupt: key 0x5 out of order"), std::string::npos) << msg;
}

TEST_F(PoolCheck, AMismatchWithTheOptionsStaysAUsageError) {
  EXPECT_THROW(
      check_pool_in_child(spec_, 20, [] { throw UsageError("pool holds 64-byte values"); }),
      UsageError);
}

TEST_F(PoolCheck, HeaderDamageIsFoundByLibpmemobjsCheck) {
  {
    std::fstream f(spec_.path(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('\x5a');
  }
  before_ = file_hash(spec_.path());
  const std::string msg = message_of([&] { check_pool_in_child(spec_, 20, [] {}); });
  EXPECT_NE(msg.find("is corrupt: libpmemobj's check"), std::string::npos) << msg;
}

TEST_F(PoolCheck, ATextFileIsNotAPool) {
  std::ofstream(spec_.path(), std::ios::trunc) << "hello\n";
  before_ = file_hash(spec_.path());
  EXPECT_THROW(check_pool_in_child(spec_, 20, [] {}), UsageError);
}

// ------------------------------------------------------------------- files

class Files : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return dir_.path() + "/" + name; }
  ScratchDir dir_;
};

TEST_F(Files, InputsMustBeRegularFiles) {
  ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);
  const auto refused = [](const std::string& p) {
    return message_of([&] { read_input_file(p, "workload file"); });
  };
  EXPECT_NE(refused(path("fifo")).find("is a FIFO"), std::string::npos);  // and no hang
  EXPECT_NE(refused(dir_.path()).find("is a directory"), std::string::npos);
  EXPECT_NE(refused("/dev/null").find("is a character device"), std::string::npos);
  EXPECT_NE(refused("/proc/self/mem").find("proc file system"), std::string::npos);
  EXPECT_NE(refused(path("none")).find("No such file"), std::string::npos);
}

TEST_F(Files, InputsAreReadUpToALimit) {
  std::ofstream(path("big")) << std::string(5000, 'x');
  EXPECT_EQ(read_input_file(path("big"), "f", 5000).size(), 5000u);
  const std::string msg = message_of([&] { read_input_file(path("big"), "f", 4999); });
  EXPECT_NE(msg.find("too large (5000 bytes)"), std::string::npos) << msg;
}

TEST_F(Files, OutputsAreCheckedWithoutCreatingAnything) {
  ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);
  std::ofstream(path("file")) << "x";
  const auto refused = [](const std::string& p) {
    return message_of([&] { check_output_path(p, "--out"); });
  };
  EXPECT_NE(refused("/dev/full").find("character device"), std::string::npos);
  EXPECT_NE(refused(path("fifo")).find("FIFO"), std::string::npos);
  EXPECT_NE(refused(dir_.path()).find("directory"), std::string::npos);
  EXPECT_NE(refused(path("file/r.jsonl")).find("not a directory"), std::string::npos);
  EXPECT_EQ(refused(path("a/b/c.jsonl")), "");
  EXPECT_FALSE(std::filesystem::exists(path("a"))) << "the check created a directory";
  EXPECT_EQ(refused(path("file")), "");
}

TEST_F(Files, AParentThatCannotBeCreatedIsNamed) {
  std::ofstream(path("file")) << "x";
  const std::string msg = message_of([&] { create_parent_dirs(path("file/x/r.jsonl"), "--out"); });
  EXPECT_NE(msg.find("cannot create directory"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Not a directory"), std::string::npos) << msg;
}

TEST(Escape, ControlBytesAndBrokenUtf8AreEscapedValidUtf8IsNot) {
  EXPECT_EQ(escape_control("a\x1b[2Jb"), "a\\x1b[2Jb");
  EXPECT_EQ(escape_control(std::string("n\0l", 3)), "n\\x00l");
  EXPECT_EQ(escape_control("line\nnext\t\r"), "line\\nnext\\t\\r");
  EXPECT_EQ(escape_control("caf\xc3\xa9 \xe2\x82\xac"), "caf\xc3\xa9 \xe2\x82\xac");
  EXPECT_EQ(escape_control("\xff\xc3"), "\\xff\\xc3");
  EXPECT_EQ(escape_control("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(escape_control("\x7f"), "\\x7f");
}

// ------------------------------------------------------------ option checks

std::string validate(CLI::Validator v, std::string value) { return v(value); }

TEST(Validators, FiniteRangeRefusesNanInfinityEmptyAndGarbage) {
  const CLI::Validator r = finite_range(0.01, 100);
  for (const char* bad :
       {"nan", "NaN", "-nan", "inf", "-inf", "infinity", "1e400", "", "1x", " 1", "0.001", "101"}) {
    EXPECT_NE(validate(r, bad), "") << bad;
  }
  for (const char* good : {"0.01", "1", "100", "1e1", "0x1p-2"}) EXPECT_EQ(validate(r, good), "");
}

TEST(Validators, OneSeedRule) {
  for (const char* bad : {"-1", "18446744073709551616", "", "1.0", "+1", "0x10"}) {
    EXPECT_NE(validate(seed_value(), bad).find(kSeedAccepted), std::string::npos) << bad;
    PropertySet p;
    p.set_override(std::string("seed=") + bad);
    const std::string msg = message_of([&] { p.build(); });
    EXPECT_NE(msg.find(kSeedAccepted), std::string::npos) << bad << ": " << msg;
  }
  EXPECT_EQ(validate(seed_value(), "18446744073709551615"), "");
  EXPECT_EQ(parse_seed("18446744073709551615", "seed"), UINT64_MAX);
}

TEST(Validators, EmptyValuesAndNodeWords) {
  EXPECT_NE(validate(non_empty(), ""), "");
  EXPECT_EQ(validate(non_empty(), "x"), "");
  EXPECT_NE(validate(node_number(), "abc").find("a node number (0.."), std::string::npos);
  EXPECT_NE(validate(node_number(), "-1"), "");
  EXPECT_EQ(validate(node_number(), "3"), "");  // whether it exists is the run's check
}

TEST(Validators, NamesListedTwiceAreRefused) {
  EXPECT_NO_THROW(split_distinct("btree,rbtree", "--ds"));
  const std::string msg = message_of([] { split_distinct("btree,rbtree,btree", "--ds"); });
  EXPECT_NE(msg.find("'btree' is listed twice"), std::string::npos) << msg;
}

TEST(Properties, ByteOrderMarkAndCrlfAreAccepted) {
  PropertySet p;
  p.load_text("\xEF\xBB\xBFrecordcount=12\r\noperationcount=34\r\n", "w");
  const WorkloadSpec s = p.build();
  EXPECT_EQ(s.recordcount, 12u);
  EXPECT_EQ(s.operationcount, 34u);
}

TEST(Properties, NanAndInfinityAreRefusedForEveryFraction) {
  for (const char* key :
       {"readproportion", "updateproportion", "insertproportion", "scanproportion",
        "readmodifywriteproportion", "deleteproportion", "zipfianconstant", "hotspotdatafraction",
        "hotspotopnfraction", "readmissrate"}) {
    for (const char* v : {"nan", "inf", "-inf", "1e999"}) {
      PropertySet p;
      p.set_override(fmt::format("{}={}", key, v));
      EXPECT_THROW(p.build(), UsageError) << key << "=" << v;
    }
  }
}

// ---------------------------------------------------------------- estimates

TEST(Footprint, ARunThatCannotFitIsRefusedNamingItsInputs) {
  ScratchDir dir;
  WorkloadSpec spec;
  spec.recordcount = 100000;
  spec.fieldlength = 1 << 20;
  const Footprint f = run_footprint(find_ds("hashtable"), Mode::kDram, spec, RunShape{});
  EXPECT_GT(f.memory, uint64_t{100000} << 20);
  const std::string msg = message_of([&] { check_footprint(f, dir.path()); });
  EXPECT_NE(msg.find("recordcount=100000"), std::string::npos) << msg;
  EXPECT_NE(msg.find("fieldlength=1048576"), std::string::npos) << msg;
  EXPECT_NE(msg.find("available"), std::string::npos) << msg;
}

TEST(Footprint, PoolFilesCountAgainstTheirFileSystem) {
  ScratchDir dir;
  WorkloadSpec spec;
  spec.recordcount = 1000;
  const Footprint f =
      run_footprint(find_ds("btree"), Mode::kTrans, spec, RunShape{.pool_size = uint64_t{1} << 62});
  EXPECT_EQ(f.pool_files, uint64_t{1} << 62);
  EXPECT_THROW(check_footprint(f, dir.path()), UsageError);
  const Footprint small = run_footprint(find_ds("btree"), Mode::kTrans, spec, RunShape{});
  EXPECT_NO_THROW(check_footprint(small, dir.path()));
}

TEST(Footprint, AbsurdInputsSaturateInsteadOfWrapping) {
  WorkloadSpec spec;
  spec.recordcount = uint64_t{1} << 40;
  spec.operationcount = uint64_t{1} << 40;
  spec.insertproportion = 1;
  spec.readproportion = 0;
  spec.updateproportion = 0;
  spec.fieldlength = 1 << 20;
  const Footprint f = run_footprint(find_ds("btree-embedded"), Mode::kDram, spec,
                                    RunShape{.instances = 1024, .streams = 1024});
  EXPECT_EQ(f.memory, UINT64_MAX);
}

TEST(SweepEstimate, AMillionConfigurationsNeedForce) {
  const sweep::RunKeys keys;
  const auto spec = sweep::parse_sweep_text(
      "ds = \"blackhole\"\nmode = \"dram\"\n[properties]\nrecordcount = \"1:1000\"\n"
      "operationcount = \"1:1000\"\n",
      "big.toml", "default", keys);
  const sweep::SweepEstimate e = sweep::estimate(spec);
  EXPECT_EQ(e.configurations, 1000000u);
  const std::string msg = message_of([&] { sweep::check_estimate(spec, e, false); });
  EXPECT_NE(msg.find("1000000 configurations would take at least"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--force"), std::string::npos) << msg;
  EXPECT_NO_THROW(sweep::check_estimate(spec, e, true));
}

TEST(SweepEstimate, DurationsAndRepetitionsCount) {
  const sweep::RunKeys keys;
  const auto spec = sweep::parse_sweep_text(
      "ds = \"blackhole\"\nmode = \"dram\"\nrepeat = 3\nwarmup = 1\nduration = 2.5\n", "d.toml",
      "default", keys);
  const sweep::SweepEstimate e = sweep::estimate(spec);
  EXPECT_EQ(e.configurations, 1u);
  EXPECT_NEAR(e.min_seconds, sweep::kRunSeconds + 4 * (sweep::kRepetitionSeconds + 2.5), 1e-9);
}

TEST(Interrupted, ExitCodesFollowTheSignal) {
  EXPECT_EQ(Interrupted(SIGINT).exit_code(), 130);
  EXPECT_EQ(Interrupted(SIGTERM).exit_code(), 143);
  EXPECT_NE(std::string(Interrupted(SIGTERM).what()).find("SIGTERM"), std::string::npos);
}

}  // namespace
}  // namespace pmemids::test
