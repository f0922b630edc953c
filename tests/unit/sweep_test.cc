// Sweep files: ranges, expansion order and count, properties joining the
// product, excludes, errors naming file and key, config_id stability.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "errors.h"
#include "sweep/expand.h"
#include "sweep/run_keys.h"
#include "sweep/sweep_file.h"
#include "sweep/validate.h"

namespace pmemids::sweep {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = "/tmp/pmemids-sweep-test-XXXXXX";
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return (fs::path(path_) / name).string(); }

 private:
  std::string path_;
};

const RunKeys& keys() {
  static const RunKeys k;
  return k;
}

SweepSpec parse(const std::string& text, const std::string& scale = "default") {
  return parse_sweep_text(text, "test.toml", scale, keys());
}

std::vector<Configuration> expand_valid(const std::string& text,
                                        const std::string& scale = "default") {
  const SweepSpec spec = parse(text, scale);
  auto configs = expand(spec);
  validate(spec, configs, keys());
  return configs;
}

// The UsageError message of `f`, or "" when it does not throw.
template <class F>
std::string usage_error(F f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

std::string error_of(const std::string& text, const std::string& scale = "default") {
  return usage_error([&] { expand_valid(text, scale); });
}

std::string text(const Configuration& c, const std::string& key) {
  const Value* v = c.option(key) != nullptr ? c.option(key) : c.property(key);
  return v == nullptr ? "-" : value_text(*v);
}

// ------------------------------------------------------------------ ranges

TEST(SweepRange, ThreeForms) {
  EXPECT_EQ(parse_range("1:4"), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(parse_range("5:5"), (std::vector<int64_t>{5}));
  EXPECT_EQ(parse_range("0:5:20"), (std::vector<int64_t>{0, 5, 10, 15, 20}));
  EXPECT_EQ(parse_range("1:3:8"), (std::vector<int64_t>{1, 4, 7}));  // 8 is not reached
  EXPECT_EQ(parse_range("1:*2:16"), (std::vector<int64_t>{1, 2, 4, 8, 16}));
  EXPECT_EQ(parse_range("3:*3:100"), (std::vector<int64_t>{3, 9, 27, 81}));
  EXPECT_EQ(parse_range("-2:0"), (std::vector<int64_t>{-2, -1, 0}));
}

TEST(SweepRange, MultiplicationStopsBeforeOverflow) {
  const auto v = parse_range("1:*1000000:9223372036854775807");
  EXPECT_EQ(v.back(), 1000000000000000000);
}

TEST(SweepRange, BadRangesNameTheTextAndTheAcceptedForms) {
  for (const char* bad : {"a:3", "1:b", "1:0:5", "1:-1:5", "1:*1:8", "1:*0:8", "0:*2:8", "5:1",
                          "1:2:3:4", "1:", ":4", "1:*x:4", "1.5:4"}) {
    const std::string msg = usage_error([&] { parse_range(bad); });
    EXPECT_NE(msg.find(std::string("'") + bad + "'"), std::string::npos) << bad << ": " << msg;
    EXPECT_NE(msg.find("accepted: \"a:b\""), std::string::npos) << msg;
    EXPECT_NE(msg.find("\"a:*f:b\""), std::string::npos) << msg;
  }
}

// ------------------------------------------------------------------ expansion

constexpr const char* kExample = R"(
mode = "dram"
[matrix]
ds = ["btree", "rbtree"]
mode = ["dram", "pmem-persist", "pmem-trans"]
threads = "1:*2:4"
)";

TEST(SweepExpand, CartesianProductFirstKeySlowest) {
  // mode is both top level and matrix in kExample: refused; drop the top-level one.
  std::string t = kExample;
  t.replace(t.find("mode = \"dram\"\n"), 14, "repeat = 2\n");
  const auto configs = expand_valid(t);
  ASSERT_EQ(configs.size(), 2u * 3u * 3u);
  std::vector<std::string> seen;
  for (const auto& c : configs) {
    seen.push_back(text(c, "ds") + "/" + text(c, "mode") + "/" + text(c, "threads"));
  }
  EXPECT_EQ(seen[0], "btree/dram/1");
  EXPECT_EQ(seen[1], "btree/dram/2");
  EXPECT_EQ(seen[2], "btree/dram/4");
  EXPECT_EQ(seen[3], "btree/pmem-persist/1");
  EXPECT_EQ(seen[9], "rbtree/dram/1");
  EXPECT_EQ(seen[17], "rbtree/pmem-trans/4");
  for (size_t i = 0; i < configs.size(); ++i) {
    EXPECT_EQ(configs[i].index, i);
    EXPECT_EQ(text(configs[i], "repeat"), "2");
  }
  EXPECT_EQ(configs[0].swept, (std::vector<std::string>{"ds", "mode", "threads"}));
  EXPECT_EQ(short_text(configs[4]), "ds=btree mode=pmem-persist threads=2");
}

TEST(SweepExpand, KeyGivenAtTopLevelAndInMatrixIsRefused) {
  const std::string msg = error_of(kExample);
  EXPECT_NE(msg.find("test.toml: matrix.mode: given twice"), std::string::npos) << msg;
}

TEST(SweepExpand, ScalarInMatrixIsOneValue) {
  const auto configs =
      expand_valid("[matrix]\nds = \"btree\"\nmode = [\"dram\", \"pmem-trans\"]\n");
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs[0].swept, (std::vector<std::string>{"mode"}));
}

TEST(SweepExpand, PropertyListsJoinTheProduct) {
  const auto configs = expand_valid(R"(
ds = "hashtable"
mode = "dram"
[properties]
recordcount = [100, 200]
operationcount = 500
fieldlength = "64:*2:128"
)");
  ASSERT_EQ(configs.size(), 4u);
  EXPECT_EQ(text(configs[0], "recordcount") + "/" + text(configs[0], "fieldlength"), "100/64");
  EXPECT_EQ(text(configs[1], "recordcount") + "/" + text(configs[1], "fieldlength"), "100/128");
  EXPECT_EQ(text(configs[3], "recordcount") + "/" + text(configs[3], "fieldlength"), "200/128");
  EXPECT_EQ(text(configs[2], "operationcount"), "500");
  // Properties come after the options, sorted by key, as -p key=value.
  EXPECT_EQ(configs[0].args,
            (std::vector<std::string>{"--ds", "hashtable", "--mode", "dram", "-p", "fieldlength=64",
                                      "-p", "operationcount=500", "-p", "recordcount=100"}));
}

TEST(SweepExpand, ExcludesWithScalarsListsAndConjunctions) {
  const auto configs = expand_valid(R"(
ds = "rbtree"
[matrix]
mode = ["dram", "pmem-volatile", "pmem-persist", "pmem-trans"]
lock = ["pthread-dram", "pthread-pmem", "pmemobj"]
threads = [1, 2]
[[exclude]]
mode = ["dram", "pmem-volatile"]
lock = "pmemobj"
[[exclude]]
mode = "pmem-trans"
[[exclude]]
lock = "pthread-pmem"
threads = 2
)");
  // 4*3*2 = 24; minus dram/volatile with pmemobj (4), pmem-trans (6), pthread-pmem at 2
  // threads not already dropped (3: dram, volatile, persist).
  EXPECT_EQ(configs.size(), 24u - 4u - 6u - 3u);
  for (const auto& c : configs) {
    const std::string m = text(c, "mode"), l = text(c, "lock");
    EXPECT_FALSE((m == "dram" || m == "pmem-volatile") && l == "pmemobj");
    EXPECT_NE(m, "pmem-trans");
    EXPECT_FALSE(l == "pthread-pmem" && text(c, "threads") == "2");
  }
}

TEST(SweepExpand, ExcludeOnAKeyAConfigurationLacksDoesNotMatch) {
  const auto configs = expand_valid(R"(
[matrix]
ds = ["btree", "rbtree"]
mode = "dram"
[[exclude]]
ds = "btree"
lock = "pmemobj"
)");
  EXPECT_EQ(configs.size(), 2u);
}

TEST(SweepExpand, ExcludeOnAProperty) {
  const auto configs = expand_valid(R"(
ds = "btree"
mode = "dram"
[properties]
recordcount = [100, 1000]
operationcount = [10, 20]
[[exclude]]
recordcount = 1000
operationcount = 10
)");
  EXPECT_EQ(configs.size(), 3u);
}

TEST(SweepExpand, UnderscoreAndDashSpellingsAreOneKey) {
  const auto a = expand_valid("ds = \"btree\"\nmode = \"dram\"\nthread_mode = \"single\"\n");
  const auto b = expand_valid("ds = \"btree\"\nmode = \"dram\"\nthread-mode = \"single\"\n");
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].args, b[0].args);
  EXPECT_EQ(a[0].args[4], "--thread-mode");
  const std::string msg = error_of(
      "ds = \"btree\"\nmode = \"dram\"\nthread_mode = \"single\"\nthread-mode = \"single\"\n");
  EXPECT_NE(msg.find("given twice"), std::string::npos) << msg;
}

TEST(SweepExpand, FlagsAndWorkloadLists) {
  TempDir dir;
  std::ofstream(dir.file("w1")) << "recordcount=100\n";
  std::ofstream(dir.file("w2")) << "operationcount=100\n";
  const std::string t = fmt::format(R"(
ds = "btree"
mode = "dram"
keep-pool = true
workload = ["{0}", "{1}"]
)",
                                    dir.file("w1"), dir.file("w2"));
  const auto configs = expand_valid(t);
  ASSERT_EQ(configs.size(), 1u);
  EXPECT_EQ(configs[0].args,
            (std::vector<std::string>{"--ds", "btree", "--keep-pool", "--mode", "dram",
                                      "--workload", dir.file("w1"), "--workload", dir.file("w2")}));
  // In [matrix], a list of files sweeps over them; a list of lists over file sets.
  const auto swept = expand_valid(fmt::format(R"(
ds = "btree"
mode = "dram"
[matrix]
workload = ["{0}", ["{0}", "{1}"]]
)",
                                              dir.file("w1"), dir.file("w2")));
  ASSERT_EQ(swept.size(), 2u);
  EXPECT_EQ(short_text(swept[0]), "workload=w1");
  EXPECT_EQ(short_text(swept[1]), "workload=w1+w2");
}

TEST(SweepExpand, RelativeWorkloadsAreFoundFromTheSweepFilesDirectory) {
  TempDir dir;
  fs::create_directories(dir.file("sweeps"));
  fs::create_directories(dir.file("workloads"));
  std::ofstream(dir.file("workloads/tiny")) << "recordcount=100\n";
  std::ofstream(dir.file("sweeps/s.toml"))
      << "ds = \"btree\"\nmode = \"dram\"\nworkload = \"workloads/tiny\"\n";
  const SweepSpec spec = parse_sweep_file(dir.file("sweeps/s.toml"), "default", keys());
  const auto configs = expand(spec);
  validate(spec, configs, keys());
  // The id keeps the path as written; the run gets the path found.
  EXPECT_EQ(configs[0].args.back(), "workloads/tiny");
  EXPECT_EQ(run_args(configs[0], spec, "/pools").back(), "/pools");
  const auto args = run_args(configs[0], spec, "");
  EXPECT_EQ(args.back(), fs::path(dir.file("workloads/tiny")).lexically_normal().string());
}

TEST(SweepExpand, ScaleOverridesKeysWhereverTheyAre) {
  const std::string t = R"(
ds = "btree"
repeat = 3
[matrix]
mode = ["dram", "pmem-trans"]
threads = "1:2"
[properties]
recordcount = 1000
[scale.paper]
repeat = 10
threads = 4
[scale.paper.matrix]
ds = ["btree", "rbtree"]
[scale.paper.properties]
recordcount = 1000000
operationcount = 1000000
[[scale.paper.exclude]]
ds = "rbtree"
mode = "dram"
)";
  const auto base = expand_valid(t);
  ASSERT_EQ(base.size(), 4u);
  EXPECT_EQ(text(base[0], "recordcount"), "1000");
  const auto paper = expand_valid(t, "paper");
  ASSERT_EQ(paper.size(), 3u);  // 2 ds x 2 modes, minus rbtree/dram; threads fixed at 4
  for (const auto& c : paper) {
    EXPECT_EQ(text(c, "repeat"), "10");
    EXPECT_EQ(text(c, "threads"), "4");
    EXPECT_EQ(text(c, "recordcount"), "1000000");
    EXPECT_EQ(text(c, "operationcount"), "1000000");
  }
  // ds keeps its place (first): it varies slowest.
  EXPECT_EQ(text(paper[0], "ds") + text(paper[1], "ds") + text(paper[2], "ds"), "btreebtreerbtree");
  const std::string msg = error_of(t, "huge");
  EXPECT_NE(msg.find("test.toml: scale: no [scale.huge]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("accepted: default, paper"), std::string::npos) << msg;
}

// ------------------------------------------------------------------ errors

struct BadFile {
  const char* text;
  std::vector<const char*> needles;
};

TEST(SweepErrors, NameTheFileTheKeyAndWhatIsAccepted) {
  const std::vector<BadFile> cases = {
      {"ds = \"btree\"\nmode = \"dram\"\ncolour = 3\n",
       {"test.toml: colour: unknown key", "accepted:", "thread-mode"}},
      {"ds = \"btree\"\n[matrix]\nmoed = [\"dram\"]\n",
       {"test.toml: matrix.moed: unknown option", "accepted:", "mode"}},
      {"ds = \"btree\"\nmode = \"dram\"\n[[exclude]]\nmoed = \"dram\"\n",
       {"test.toml: exclude[1].moed: unknown key", "accepted:"}},
      {"ds = \"btree\"\nmode = \"dram\"\n[matrx]\nthreads = [1]\n",
       {"test.toml: matrx: unknown key", "matrix"}},
      {"ds = \"btree\"\nmode = \"dram\"\n[matrix]\nthreads = \"1:0:4\"\n",
       {"test.toml: matrix.threads: '1:0:4': step 0 is not positive", "accepted: \"a:b\""}},
      {"ds = \"btree\"\nmode = \"dram\"\n[properties]\nrecordcount = \"9:1\"\n",
       {"test.toml: properties.recordcount: '9:1'", "accepted: \"a:b\""}},
      {"ds = \"btree\"\nmode = \"dram\"\nkeep-pool = 3\n",
       {"test.toml: keep-pool: an integer", "accepted: true or false"}},
      {"ds = true\nmode = \"dram\"\n", {"test.toml: ds: a boolean", "accepted:"}},
      {"ds = \"btree\"\nmode = \"dram\"\nthreads = [1, 2]\n",
       {"test.toml: threads: a list at the top level", "[matrix]"}},
      {"ds = \"btree\"\nmode = \"dram\"\n[matrix]\nthreads = [1, 1]\n",
       {"test.toml: matrix.threads: '1' is listed twice"}},
      {"ds = \"btree\"\nmode = \"dram\"\n[matrix]\nthreads = []\n",
       {"test.toml: matrix.threads: an empty list"}},
      {"ds = \"btree\"\nmode = \"dram\"\nthreads = \"four\"\n",
       {"test.toml: threads: ", "four", "accepted: INT"}},
      {"ds = \"btree\"\nmode = \"dram\"\nthreads = 2.0\n",
       {"test.toml: threads: ", "2.0", "accepted: INT"}},
      {"ds = \"btree\"\nmode = \"dram\"\n[matrix]\nthreads = [1, 0]\n",
       {"test.toml: threads: ", "0", "accepted: INT in [1 - 1024]"}},
      {"ds = \"btree\"\nmode = \"dram\"\nthread-mode = \"sequential\"\n",
       {"test.toml: thread-mode: ", "sequential", "single,parallel,concurrent"}},
      {"ds = \"btre\"\nmode = \"dram\"\n",
       {"test.toml: ds: unknown data structure 'btre'", "rbtree"}},
      {"ds = \"btree\"\nmode = \"dram,nvm\"\n",
       {"test.toml: mode: unknown mode 'nvm'", "pmem-trans"}},
      {"mode = \"dram\"\n", {"test.toml: ds: missing", "accepted:"}},
      {"ds = \"btree\"\nmode = \"dram\"\nout = \"x.jsonl\"\n",
       {"test.toml: out: not allowed", "--out"}},
      {"ds = \"btree\"\nmode = \"dram\"\n[matrix]\nreopen = [true]\n",
       {"test.toml: matrix.reopen: not supported in a sweep"}},
      {"ds = \"btree\"\nmode = \"dram\"\n[properties]\nrecordcont = 5\n",
       {"test.toml: properties: unknown workload property 'recordcont'"}},
      {"ds = \"btree\"\nmode = \"dram\"\n[properties]\nreadproportion = 0.5\n",
       {"test.toml: properties: operation proportions sum to", "configuration 1 of 1"}},
      {"ds = \"btree\"\nmode = \"dram\"\nworkload = \"no/such/file\"\n",
       {"test.toml: workload: workload file 'no/such/file' cannot be read"}},
      {"ds = \"btree\"\nmode = \"dram\"\n[scale.default]\nrepeat = 2\n",
       {"test.toml: scale.default: reserved"}},
      {"ds = \"btree\"\nmode = \"dram\"\n[scale.paper.matrix]\nthreds = 3\n",
       {"test.toml: scale.paper.matrix.threds: unknown option"}},
      {"ds = \"btree\"\nmode = \"dram\"\n[[exclude]]\n", {"test.toml: exclude[1]: an empty table"}},
      {"ds = \"btree\"\nmode = \"dram\"\nstart = 1979-05-27\n", {"test.toml: start: unknown key"}},
      {"ds = \"btree\"\nmode = \"dram\"\nrepeat = 1979-05-27\n",
       {"test.toml: repeat: a date or time"}},
  };
  for (const auto& c : cases) {
    const std::string msg = error_of(c.text);
    ASSERT_FALSE(msg.empty()) << "accepted:\n" << c.text;
    for (const char* n : c.needles)
      EXPECT_NE(msg.find(n), std::string::npos) << n << " not in: " << msg;
  }
}

TEST(SweepErrors, TomlSyntaxNamesLineAndColumn) {
  const std::string msg = error_of("ds = \"btree\"\nmode = = \"dram\"\n");
  EXPECT_EQ(msg.rfind("test.toml:2:", 0), 0u) << msg;
  EXPECT_NE(msg.find("TOML syntax"), std::string::npos) << msg;
}

TEST(SweepErrors, MissingFile) {
  const std::string msg =
      usage_error([] { parse_sweep_file("/no/such/sweep.toml", "default", keys()); });
  EXPECT_NE(msg.find("/no/such/sweep.toml: cannot be read: no such file"), std::string::npos)
      << msg;
}

TEST(SweepErrors, TooManyConfigurations) {
  const std::string msg = usage_error([] {
    expand(
        parse("ds = \"btree\"\nmode = \"dram\"\n[properties]\nrecordcount = \"1:2000\"\n"
              "operationcount = \"1:2000\"\n"));
  });
  EXPECT_NE(msg.find("test.toml: matrix: more than 1000000 configurations"), std::string::npos)
      << msg;
}

// ------------------------------------------------------------------ config_id

TEST(SweepConfigId, StableAcrossKeyOrderSpellingAndScaleButNotValues) {
  const auto a = expand_valid(
      "ds = \"btree\"\nmode = \"dram\"\nthread_mode = \"single\"\n"
      "[properties]\nrecordcount = 100\n");
  const auto b = expand_valid(
      "[properties]\nrecordcount = 100\n[matrix]\nthread-mode = "
      "\"single\"\nmode = [\"dram\"]\nds = \"btree\"\n");
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(a[0].id, b[0].id);
  EXPECT_EQ(a[0].id.size(), 16u);
  // The documented hash of the documented canonical arguments: changing either breaks resume.
  EXPECT_EQ(a[0].id, config_id({"--ds", "btree", "--mode", "dram", "--thread-mode", "single", "-p",
                                "recordcount=100"}));
  EXPECT_EQ(config_id({}), "cbf29ce484222325");
  EXPECT_EQ(config_id({"a"}), "af63dc4c8601ec8c");
  EXPECT_NE(config_id({"ab"}), config_id({"a", "b"}));
  const auto c = expand_valid(
      "ds = \"btree\"\nmode = \"dram\"\nthread_mode = \"single\"\n"
      "[properties]\nrecordcount = 101\n");
  EXPECT_NE(a[0].id, c[0].id);
}

TEST(SweepConfigId, FloatsKeepTheirType) {
  EXPECT_EQ(value_text(Value{2.0}), "2.0");
  EXPECT_EQ(value_text(Value{0.75}), "0.75");
  EXPECT_EQ(value_text(Value{int64_t{2}}), "2");
  EXPECT_EQ(value_text(Value{true}), "true");
}

}  // namespace
}  // namespace pmemids::sweep
