// Sweep files: ranges, expansion order and count, properties joining the
// product, excludes, errors naming file and key, config_id stability, reading
// an interrupted output, whole-group appends, and resuming after a crash.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "errors.h"
#include "sweep/driver.h"
#include "sweep/expand.h"
#include "sweep/records.h"
#include "sweep/resume.h"
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

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

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
       {"test.toml: properties: operation proportions of operationset=kv sum to",
        "configuration 1 of 1"}},
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
  EXPECT_NE(msg.find("sweep file '/no/such/sweep.toml' cannot be read: No such file"),
            std::string::npos)
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

// ------------------------------------------------------------------ resume reading

// `rep` >= 0: one repetition's group of an interleaved sweep.
std::string group(const std::string& id, int m, const std::string& kind = "", int rep = -1) {
  std::string out;
  for (int j = 0; j < m; ++j) {
    nlohmann::json r = {{"schema_version", 1},
                        {"sweep", {{"config_id", id}, {"record", j}, {"records", m}}}};
    if (rep >= 0) r["sweep"].update({{"repetition", rep}, {"repetitions", 2}});
    if (!kind.empty()) r[kind] = true;
    out += r.dump() + "\n";
  }
  return out;
}

TEST(SweepResume, CountsWholeGroupsByKind) {
  const std::string content = group("a", 3) + group("b", 1, "skipped") + group("c", 1, "failed") +
                              "{\"schema_version\":1}\n" + group("d", 2);
  const OutputScan s = scan_output(content);
  EXPECT_EQ(s.ok, (std::set<std::string>{"a", "d"}));
  EXPECT_EQ(s.skipped, (std::set<std::string>{"b"}));
  EXPECT_EQ(s.failed, (std::set<std::string>{"c"}));
  EXPECT_EQ(s.keep_bytes, content.size());
  EXPECT_EQ(s.lines, 8u);
  EXPECT_EQ(s.ignored, 0u);
  EXPECT_TRUE(already_recorded(s, "a", false));
  EXPECT_TRUE(already_recorded(s, "b", false));
  EXPECT_FALSE(already_recorded(s, "b", true));
  EXPECT_FALSE(already_recorded(s, "c", false));  // failed: run again
  EXPECT_FALSE(already_recorded(s, "z", false));
}

TEST(SweepResume, InterleavedGroupsCountPerRepetition) {
  const std::string b1 = group("b", 2, "", 1);
  const std::string content = group("a", 1, "", 0) + group("b", 1, "", 0) + group("a", 1, "", 1) +
                              b1.substr(0, b1.find('\n') + 1);  // b's second, torn
  const OutputScan s = scan_output(content);
  EXPECT_TRUE(s.ok.empty());
  EXPECT_EQ(s.ok_repetitions.at("a").size(), 2u);
  EXPECT_EQ(s.ok_repetitions.at("b").size(), 1u);
  EXPECT_TRUE(already_recorded(s, "a", false, 2));
  EXPECT_FALSE(already_recorded(s, "b", false, 2));
  EXPECT_TRUE(repetition_recorded(s, "b", 0, false));
  EXPECT_FALSE(repetition_recorded(s, "b", 1, false));
  EXPECT_EQ(s.keep_bytes, content.size() - (b1.find('\n') + 1));
  // A group of every repetition (non-interleaved) covers each of them.
  EXPECT_TRUE(repetition_recorded(scan_output(group("c", 3)), "c", 1, false));
}

TEST(SweepResume, TornLastLineIsCutOff) {
  const std::string whole = group("a", 2);
  const std::string torn = group("b", 1).substr(0, 20);
  const OutputScan s = scan_output(whole + torn);
  EXPECT_EQ(s.ok, (std::set<std::string>{"a"}));
  EXPECT_EQ(s.keep_bytes, whole.size());
  EXPECT_EQ(s.size, whole.size() + torn.size());
}

TEST(SweepResume, IncompleteGroupAtTheEndIsCutOff) {
  const std::string whole = group("a", 1);
  const std::string three = group("b", 3);
  const std::string two_lines = three.substr(0, three.find('\n', three.find('\n') + 1) + 1);
  for (const std::string& tail : {two_lines, two_lines + "{\"sch"}) {
    const OutputScan s = scan_output(whole + tail);
    EXPECT_EQ(s.ok, (std::set<std::string>{"a"}));
    EXPECT_EQ(s.keep_bytes, whole.size());
    EXPECT_EQ(s.ignored, 2u);
  }
}

TEST(SweepResume, DamageInTheMiddleIsKeptButNotCounted) {
  const std::string three = group("b", 3);
  const std::string broken = three.substr(0, three.find('\n') + 1);  // 1 of 3, then another group
  const std::string content = group("a", 1) + broken + "not json\n" + group("c", 2);
  const OutputScan s = scan_output(content);
  EXPECT_EQ(s.ok, (std::set<std::string>{"a", "c"}));
  EXPECT_EQ(s.keep_bytes, content.size());
  EXPECT_EQ(s.ignored, 2u);
}

// ------------------------------------------------------------------ whole appends

TEST(SweepAppend, ConcurrentGroupsStayContiguous) {
  TempDir dir;
  const std::string path = dir.file("out.jsonl");
  constexpr int kWriters = 4, kGroups = 50, kLines = 20;
  std::vector<pid_t> pids;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      for (int g = 0; g < kGroups; ++g) {
        std::string data;
        for (int l = 0; l < kLines; ++l) {
          data += fmt::format("{{\"w\":{},\"g\":{},\"l\":{},\"pad\":\"{}\"}}\n", w, g, l,
                              std::string(200, 'x'));
        }
        append_whole(fd, data, path);
      }
      _exit(0);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const auto lines = lines_of(slurp(path));
  ASSERT_EQ(lines.size(), size_t{kWriters * kGroups * kLines});
  for (size_t i = 0; i < lines.size(); i += kLines) {
    const auto first = nlohmann::json::parse(lines[i]);
    for (int l = 0; l < kLines; ++l) {
      const auto r = nlohmann::json::parse(lines[i + l]);
      EXPECT_EQ(r["w"], first["w"]);
      EXPECT_EQ(r["g"], first["g"]);
      EXPECT_EQ(r["l"], l);
    }
  }
}

TEST(SweepAppend, StampAddsSweepToEveryLine) {
  const SweepInfo info{"f.toml", "default", "0123456789abcdef", 3, 9};
  const std::string out = stamp_run_output("{\"a\":1}\n\n{\"a\":2}\n", info);
  const auto lines = lines_of(out);
  ASSERT_EQ(lines.size(), 2u);
  for (size_t j = 0; j < 2; ++j) {
    const auto r = nlohmann::json::parse(lines[j]);
    EXPECT_EQ(r["a"], j + 1);
    EXPECT_EQ(r["sweep"]["config_id"], "0123456789abcdef");
    EXPECT_EQ(r["sweep"]["index"], 3);
    EXPECT_EQ(r["sweep"]["total"], 9);
    EXPECT_EQ(r["sweep"]["record"], j);
    EXPECT_EQ(r["sweep"]["records"], 2);
    EXPECT_EQ(r["sweep"]["file"], "f.toml");
  }
  EXPECT_THROW(stamp_run_output("", info), std::runtime_error);
  EXPECT_THROW(stamp_run_output("{\"a\":1}\n{\"a\"", info), std::runtime_error);
}

// ------------------------------------------------------------------ the driver

// A stand-in for `pmemids run`: writes `repeat` records, or refuses / fails on
// configurations whose mode says so, and can stop the "process" at a given call.
struct FakeRun {
  std::map<std::string, int> runs;  // config id -> times run
  int crash_at = -1;                // throw at this call (the sweep dies)
  int calls = 0;

  Outcome operator()(const Configuration& c, const std::vector<std::string>& args,
                     const std::string& temp) {
    if (calls++ == crash_at) throw std::runtime_error("simulated crash");
    ++runs[c.id];
    EXPECT_EQ(std::find(args.begin(), args.end(), "--out"), args.end());
    const std::string mode = value_text(*c.option("mode"));
    if (mode == "pmem-volatile") return {Status::kSkipped, "NUMA node 7 does not exist", 2, 0, ""};
    if (mode == "pmem-trans") return {Status::kFailed, "pool full", 1, 0, ""};
    std::ofstream out(temp, std::ios::app);
    const auto r_arg = std::find(args.begin(), args.end(), "--repeat");
    const int repeat = r_arg != args.end() ? std::stoi(*(r_arg + 1)) : 1;
    for (int r = 0; r < repeat; ++r) {
      out << nlohmann::json{{"schema_version", 1},
                            {"context", {{"call", calls}}},
                            {"config", {{"mode", mode}, {"repetition", r}, {"repeat", repeat}}},
                            {"metrics", {{"ops", 1}, {"ops_per_sec", 100.0 * calls}}}}
                 .dump()
          << "\n";
    }
    return {Status::kOk, "", 0, 0, "pmemids: warning: PMEM is EMULATED\n"};
  }
};

struct DriverFixture {
  TempDir dir;
  std::string out = dir.file("results/out.jsonl");
  std::string progress_path = dir.file("progress.txt");
  SweepSpec spec;
  std::vector<Configuration> configs;

  std::string pools = dir.file("pools");

  explicit DriverFixture(const std::string& text) {
    spec = parse(text);
    configs = expand(spec);
    validate(spec, configs, keys());
    fs::create_directories(pools);
  }
  DriverOptions options(std::FILE* progress) const {
    DriverOptions o;
    o.out = out;
    o.pool_dir = pools;
    o.progress = progress;
    o.interleave = false;
    return o;
  }
  // Repetitions run together unless `interleave` (the sweep's default).
  int run(FakeRun& fake, bool retry_skipped = false, bool interleave = false) {
    std::FILE* progress = std::fopen(progress_path.c_str(), "a");
    DriverOptions o = options(progress);
    o.retry_skipped = retry_skipped;
    o.interleave = interleave;
    int code = -1;
    try {
      code = run_sweep(spec, configs, std::ref(fake), o);
    } catch (...) {
      std::fclose(progress);
      throw;
    }
    std::fclose(progress);
    return code;
  }
  std::vector<nlohmann::json> records() const {
    std::vector<nlohmann::json> out_records;
    for (const auto& l : lines_of(slurp(out))) out_records.push_back(nlohmann::json::parse(l));
    return out_records;
  }
};

constexpr const char* kFourDram = R"(
ds = "btree"
mode = "dram"
repeat = 2
[properties]
recordcount = [100, 200, 300, 400]
)";

TEST(SweepDriver, RecordsEveryConfigurationWholeWithSweepIds) {
  DriverFixture f(kFourDram);
  FakeRun fake;
  EXPECT_EQ(f.run(fake), 0);
  const auto recs = f.records();
  ASSERT_EQ(recs.size(), 8u);
  for (size_t i = 0; i < recs.size(); ++i) {
    EXPECT_EQ(recs[i]["sweep"]["config_id"], f.configs[i / 2].id);
    EXPECT_EQ(recs[i]["sweep"]["index"], i / 2);
    EXPECT_EQ(recs[i]["sweep"]["total"], 4);
    EXPECT_EQ(recs[i]["sweep"]["record"], i % 2);
    EXPECT_EQ(recs[i]["sweep"]["scale"], "default");
  }
  const std::string progress = slurp(f.progress_path);
  EXPECT_NE(progress.find("[1/4] recordcount=100 ok"), std::string::npos) << progress;
  EXPECT_NE(progress.find("[4/4] recordcount=400 ok"), std::string::npos) << progress;
  EXPECT_NE(progress.find("ETA"), std::string::npos);
  // Warnings of the runs are passed on once.
  EXPECT_EQ(progress.find("EMULATED"), progress.rfind("EMULATED")) << progress;
  // No temporary file left behind.
  for (const auto& e : fs::directory_iterator(fs::path(f.out).parent_path())) {
    EXPECT_EQ(e.path().filename(), "out.jsonl");
  }
  // Running again runs nothing.
  FakeRun again;
  EXPECT_EQ(f.run(again), 0);
  EXPECT_TRUE(again.runs.empty());
  EXPECT_EQ(f.records().size(), 8u);
}

// The ETA sums, over the configurations left, the mean duration measured for
// their thread count (the mean of all for a count not run yet); each line shows
// the configuration's throughput. Durations come from a fake clock the fake
// run advances: 2 s per 1-thread configuration, 16 s per 8-thread one.
TEST(SweepDriver, ProgressShowsThroughputAndAnEtaFromMeasuredDurations) {
  DriverFixture f(R"(
ds = "btree"
mode = "dram"
thread-mode = "parallel"
[matrix]
threads = [1, 8]
[properties]
recordcount = [100, 200, 300]
)");
  double clock = 1000;
  auto runner = [&](const Configuration& c, const std::vector<std::string>&,
                    const std::string& temp) {
    const bool eight = value_text(*c.option("threads")) == "8";
    clock += eight ? 16 : 2;
    std::ofstream out(temp);
    for (double ops : {1000.0, 2000.0}) {
      out << nlohmann::json{{"schema_version", 1},
                            {"metrics", {{"ops_per_sec", ops * (eight ? 8 : 1)}}}}
                 .dump()
          << "\n";
    }
    out << nlohmann::json{{"schema_version", 1},
                          {"warmup", true},
                          {"metrics", {{"ops_per_sec", 1}}}}
               .dump()
        << "\n";
    return Outcome{Status::kOk, "", 0, 0, ""};
  };
  std::FILE* progress = std::fopen(f.progress_path.c_str(), "a");
  DriverOptions o = f.options(progress);
  o.now = [&] { return clock; };
  EXPECT_EQ(run_sweep(f.spec, f.configs, runner, o), 0);
  std::fclose(progress);
  std::vector<std::string> lines;
  for (const auto& l : lines_of(slurp(f.progress_path))) {
    if (l.starts_with("[")) lines.push_back(l);
  }
  ASSERT_EQ(lines.size(), 6u) << slurp(f.progress_path);
  // 1 thread: 2 s each. Left after the first: two more (2 s each) and three
  // 8-thread ones, not run yet: the mean of all, 2 s each.
  EXPECT_TRUE(lines[0].ends_with(" ok 2.0s 1.5 Kops/s elapsed 2.0s ETA 10s")) << lines[0];
  EXPECT_TRUE(lines[1].ends_with(" ok 2.0s 1.5 Kops/s elapsed 4.0s ETA 8.0s")) << lines[1];
  EXPECT_TRUE(lines[2].ends_with(" ok 2.0s 1.5 Kops/s elapsed 6.0s ETA 6.0s")) << lines[2];
  // The first 8-thread one took 16 s: the two left are estimated at 16 s each.
  EXPECT_TRUE(lines[3].ends_with(" ok 16s 12.0 Kops/s elapsed 22s ETA 32s")) << lines[3];
  EXPECT_TRUE(lines[4].ends_with(" ok 16s 12.0 Kops/s elapsed 38s ETA 16s")) << lines[4];
  EXPECT_TRUE(lines[5].ends_with(" ok 16s 12.0 Kops/s elapsed 54s ETA 0.0s")) << lines[5];
  EXPECT_NE(slurp(f.progress_path).find("sweep done in 54s"), std::string::npos);
}

// Interleaved repetitions: the ETA counts runs (one repetition each) and
// estimates each from the runs of its thread count; a line shows its run's
// own throughput, not the aggregate the last repetition completes.
TEST(SweepDriver, InterleavedProgressEstimatesRunsByThreadCount) {
  DriverFixture f(R"(
ds = "btree"
mode = "dram"
thread-mode = "parallel"
repeat = 2
[matrix]
threads = [1, 8]
)");
  double clock = 1000;
  int run = 0;
  auto runner = [&](const Configuration& c, const std::vector<std::string>&,
                    const std::string& temp) {
    const bool eight = value_text(*c.option("threads")) == "8";
    clock += eight ? 16 : 2;
    const double ops = (eight ? 8000.0 : 1000.0) * (run++ < 2 ? 1 : 3);  // round 2: 3x
    std::ofstream out(temp);
    out << nlohmann::json{{"schema_version", 1},
                          {"context", nlohmann::json::object()},
                          {"config", {{"repetition", 0}, {"repeat", 1}}},
                          {"metrics", {{"ops_per_sec", ops}}}}
               .dump()
        << "\n";
    return Outcome{Status::kOk, "", 0, 0, ""};
  };
  std::FILE* progress = std::fopen(f.progress_path.c_str(), "a");
  DriverOptions o = f.options(progress);
  o.interleave = true;
  o.now = [&] { return clock; };
  EXPECT_EQ(run_sweep(f.spec, f.configs, runner, o), 0);
  std::fclose(progress);
  std::vector<std::string> lines;
  for (const auto& l : lines_of(slurp(f.progress_path))) {
    if (l.starts_with("[")) lines.push_back(l);
  }
  ASSERT_EQ(lines.size(), 4u) << slurp(f.progress_path);
  // Rounds: 1 thread rep 1, 8 threads rep 1, 1 thread rep 2, 8 threads rep 2.
  EXPECT_TRUE(lines[0].starts_with("[1/4] threads=1 rep 1/2 ")) << lines[0];
  EXPECT_TRUE(lines[1].starts_with("[2/4] threads=8 rep 1/2 ")) << lines[1];
  // Left after the first: three runs, the 8-thread ones not run yet (the mean of all: 2 s).
  EXPECT_TRUE(lines[0].ends_with(" ok 2.0s 1.0 Kops/s elapsed 2.0s ETA 6.0s")) << lines[0];
  EXPECT_TRUE(lines[1].ends_with(" ok 16s 8.0 Kops/s elapsed 18s ETA 18s")) << lines[1];
  EXPECT_TRUE(lines[2].ends_with(" ok 2.0s 3.0 Kops/s elapsed 20s ETA 16s")) << lines[2];
  EXPECT_TRUE(lines[3].ends_with(" ok 16s 24.0 Kops/s elapsed 36s ETA 0.0s")) << lines[3];
  size_t aggregates = 0;
  for (const auto& r : f.records()) aggregates += r.contains("aggregate") ? 1 : 0;
  EXPECT_EQ(aggregates, 2u);
}

TEST(SweepDriver, RateOfARunPrefersItsAggregate) {
  EXPECT_EQ(run_ops_per_sec(""), std::nullopt);
  EXPECT_EQ(run_ops_per_sec("{\"metrics\":{\"ops\":1}}\n"), std::nullopt);
  EXPECT_EQ(
      run_ops_per_sec("{\"metrics\":{\"ops_per_sec\":3}}\n{\"metrics\":{\"ops_per_sec\":5}}\n"),
      4.0);
  EXPECT_EQ(run_ops_per_sec("{\"metrics\":{\"ops_per_sec\":3}}\n{\"aggregate\":true,"
                            "\"metrics\":{\"ops_per_sec_mean\":7}}\n"),
            7.0);
  EXPECT_EQ(format_rate(850), "850 ops/s");
  EXPECT_EQ(format_rate(12345), "12.3 Kops/s");
  EXPECT_EQ(format_rate(4.561e6), "4.56 Mops/s");
}

TEST(SweepDriver, ResumesAfterACrashWithoutLossOrRepeats) {
  DriverFixture f(kFourDram);
  FakeRun first;
  first.crash_at = 2;  // the sweep dies while running the third configuration
  EXPECT_THROW(f.run(first), std::runtime_error);
  EXPECT_EQ(f.records().size(), 4u);
  // A kill in the middle of a write leaves a torn group at the end, and a stale temp file.
  const std::string torn =
      stamp_run_output("{\"x\":1}\n{\"x\":2}\n", {"test.toml", "default", f.configs[2].id, 2, 4});
  std::ofstream(f.out, std::ios::app) << torn.substr(0, torn.size() - 30);
  std::ofstream(temp_path(f.out, f.configs[2].id)) << "{\"partial\":";

  FakeRun second;
  EXPECT_EQ(f.run(second), 0);
  EXPECT_EQ(second.runs.size(), 2u);
  EXPECT_EQ(second.runs.count(f.configs[0].id), 0u);
  EXPECT_EQ(second.runs.count(f.configs[1].id), 0u);
  const std::string text = slurp(f.out);
  EXPECT_EQ(text.back(), '\n');
  const auto recs = f.records();  // every line parses
  ASSERT_EQ(recs.size(), 8u);
  std::map<std::string, int> per_id;
  for (const auto& r : recs) per_id[r["sweep"]["config_id"]]++;
  for (const auto& c : f.configs) EXPECT_EQ(per_id[c.id], 2) << c.index;
  EXPECT_NE(slurp(f.progress_path).find("cut "), std::string::npos);
  EXPECT_FALSE(fs::exists(temp_path(f.out, f.configs[2].id)));
}

TEST(SweepDriver, SkippedAndFailedAreRecordedAndTheSweepGoesOn) {
  DriverFixture f(R"(
ds = "btree"
thread_mode = "single"
[matrix]
mode = ["pmem-volatile", "pmem-trans", "dram"]
)");
  FakeRun fake;
  EXPECT_EQ(f.run(fake), 1);  // one failed
  const auto recs = f.records();
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[0]["skipped"], true);
  EXPECT_EQ(recs[0]["reason"], "NUMA node 7 does not exist");
  EXPECT_EQ(recs[0]["schema_version"], 1);
  EXPECT_EQ(recs[0]["config"]["mode"], "pmem-volatile");
  EXPECT_EQ(recs[0]["config"]["thread_mode"], "single");
  EXPECT_EQ(recs[0]["sweep"]["config_id"], f.configs[0].id);
  EXPECT_EQ(recs[1]["failed"], true);
  EXPECT_EQ(recs[1]["exit_code"], 1);
  EXPECT_EQ(recs[1]["reason"], "pool full");
  EXPECT_EQ(recs[2]["config"]["mode"], "dram");
  const std::string progress = slurp(f.progress_path);
  EXPECT_NE(progress.find("mode=pmem-volatile skipped (NUMA node 7 does not exist)"),
            std::string::npos)
      << progress;
  EXPECT_NE(progress.find("mode=pmem-trans FAILED (pool full)"), std::string::npos);

  // Resume: failed ones run again, skipped ones only when asked.
  FakeRun again;
  EXPECT_EQ(f.run(again), 1);
  EXPECT_EQ(again.runs, (std::map<std::string, int>{{f.configs[1].id, 1}}));
  FakeRun retry;
  EXPECT_EQ(f.run(retry, true), 1);
  EXPECT_EQ(retry.runs.size(), 2u);
}

TEST(SweepDriver, SecondSweepOnTheSameOutputIsRefused) {
  DriverFixture f(kFourDram);
  FakeRun fake;
  bool inner_refused = false;
  auto nested = [&](const Configuration& c, const std::vector<std::string>& a,
                    const std::string& t) {
    if (fake.calls == 0) {
      FakeRun other;
      const DriverOptions o = f.options(stderr);
      const std::string msg =
          usage_error([&] { run_sweep(f.spec, f.configs, std::ref(other), o); });
      inner_refused = msg.find("another sweep is writing to it") != std::string::npos;
    }
    return fake(c, a, t);
  };
  std::FILE* progress = std::fopen(f.progress_path.c_str(), "a");
  EXPECT_EQ(run_sweep(f.spec, f.configs, nested, f.options(progress)), 0);
  std::fclose(progress);
  EXPECT_TRUE(inner_refused);
}

TEST(SweepDriver, InterruptedRunIsNotRecorded) {
  DriverFixture f(kFourDram);
  FakeRun fake;
  int calls = 0;
  auto runner = [&](const Configuration& c, const std::vector<std::string>& a,
                    const std::string& t) {
    if (++calls == 2) return Outcome{Status::kInterrupted, "", 0, 2, ""};
    return fake(c, a, t);
  };
  std::FILE* progress = std::fopen(f.progress_path.c_str(), "a");
  EXPECT_EQ(run_sweep(f.spec, f.configs, runner, f.options(progress)), 130);
  std::fclose(progress);
  EXPECT_EQ(f.records().size(), 2u);
}

TEST(SweepDriver, EachConfigurationRunsInAPoolDirectoryOfItsOwn) {
  DriverFixture f(R"(
ds = "btree"
mode = "dram"
[matrix]
keep-pool = [false, true]
)");
  // A killed earlier attempt left a pool behind.
  const std::string first = f.pools + "/sweep-" + f.configs[0].id;
  EXPECT_EQ(private_pool_dir(f.configs[0], f.pools), first);
  fs::create_directories(first);
  std::ofstream(first + "/btree.dram.pool") << "stale";
  FakeRun fake;
  std::vector<std::string> seen;
  auto runner = [&](const Configuration& c, const std::vector<std::string>& a,
                    const std::string& t) {
    const auto it = std::find(a.begin(), a.end(), "--pool-dir");
    EXPECT_NE(it, a.end());
    seen.push_back(*(it + 1));
    EXPECT_TRUE(fs::is_directory(*(it + 1)));
    EXPECT_TRUE(fs::is_empty(*(it + 1)));
    std::ofstream(*(it + 1) + "/btree.dram.pool") << "pool";
    return fake(c, a, t);
  };
  std::FILE* progress = std::fopen(f.progress_path.c_str(), "a");
  EXPECT_EQ(run_sweep(f.spec, f.configs, runner, f.options(progress)), 0);
  std::fclose(progress);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], first);
  EXPECT_FALSE(fs::exists(seen[0]));                      // removed after the run
  EXPECT_TRUE(fs::exists(seen[1] + "/btree.dram.pool"));  // keep-pool keeps it
  // The configuration's own pool-dir is the base; it must exist.
  DriverFixture g("ds = \"btree\"\nmode = \"dram\"\npool-dir = \"/no/such/dir\"\n");
  const std::string msg = usage_error([&] {
    FakeRun unused;
    g.run(unused);
  });
  EXPECT_NE(msg.find("test.toml: pool-dir: '/no/such/dir' is not an existing directory"),
            std::string::npos)
      << msg;
}

// Interleaved: repetition 0 of every configuration, then repetition 1; one
// group per repetition; the last repetition's group adds the aggregate.
TEST(SweepDriver, InterleavedRepetitionsRunInRoundsAndEndInAnAggregate) {
  DriverFixture f(kFourDram);
  std::vector<std::pair<std::string, std::vector<std::string>>> calls;
  FakeRun fake;
  auto runner = [&](const Configuration& c, const std::vector<std::string>& a,
                    const std::string& t) {
    calls.emplace_back(c.id, a);
    return fake(c, a, t);
  };
  std::FILE* progress = std::fopen(f.progress_path.c_str(), "a");
  DriverOptions o = f.options(progress);
  o.interleave = true;
  EXPECT_EQ(run_sweep(f.spec, f.configs, runner, o), 0);
  std::fclose(progress);
  ASSERT_EQ(calls.size(), 8u);
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(calls[i].first, f.configs[i % 4].id) << i;  // rounds over the configurations
    const auto& a = calls[i].second;
    EXPECT_EQ(*(std::find(a.begin(), a.end(), "--repeat") + 1), "1");
  }
  const auto recs = f.records();
  ASSERT_EQ(recs.size(), 4u + 4 * 2);
  for (size_t i = 0; i < 4; ++i) {  // round 0: one record each
    EXPECT_EQ(recs[i]["sweep"]["config_id"], f.configs[i].id);
    EXPECT_EQ(recs[i]["sweep"]["repetition"], 0);
    EXPECT_EQ(recs[i]["sweep"]["repetitions"], 2);
    EXPECT_EQ(recs[i]["sweep"]["records"], 1);
    EXPECT_EQ(recs[i]["config"]["repetition"], 0);
    EXPECT_EQ(recs[i]["config"]["repeat"], 2);
  }
  for (size_t i = 0; i < 4; ++i) {  // round 1: the record and the aggregate of both
    const auto& rec = recs[4 + 2 * i];
    const auto& agg = recs[5 + 2 * i];
    EXPECT_EQ(rec["config"]["repetition"], 1);
    EXPECT_EQ(rec["sweep"]["records"], 2);
    EXPECT_EQ(agg["aggregate"], true);
    EXPECT_EQ(agg["sweep"]["record"], 1);
    EXPECT_EQ(agg["metrics"]["repetitions"], 2);
    const double a = recs[i]["metrics"]["ops_per_sec"], b = rec["metrics"]["ops_per_sec"];
    EXPECT_DOUBLE_EQ(agg["metrics"]["ops_per_sec_mean"].get<double>(), (a + b) / 2);
    EXPECT_FALSE(agg["config"].contains("repetition"));
  }
  const std::string log = slurp(f.progress_path);
  EXPECT_NE(log.find("(8 runs)"), std::string::npos) << log;
  EXPECT_NE(log.find("[1/8] recordcount=100 rep 1/2 ok"), std::string::npos) << log;
  EXPECT_NE(log.find("[8/8] recordcount=400 rep 2/2 ok"), std::string::npos) << log;
  FakeRun again;
  EXPECT_EQ(f.run(again, false, true), 0);
  EXPECT_TRUE(again.runs.empty());
}

TEST(SweepDriver, InterleavedSweepResumesPerRepetitionAndAggregatesAcrossInvocations) {
  DriverFixture f(kFourDram);
  FakeRun first;
  first.crash_at = 5;  // dies in round 1, after the first configuration's second repetition
  EXPECT_THROW(f.run(first, false, true), std::runtime_error);
  ASSERT_EQ(f.records().size(), 4u + 2);
  FakeRun second;
  EXPECT_EQ(f.run(second, false, true), 0);
  EXPECT_EQ(second.runs.size(), 3u);  // only the missing second repetitions
  for (size_t i = 1; i < 4; ++i) EXPECT_EQ(second.runs[f.configs[i].id], 1);
  int aggregates = 0;
  for (const auto& r : f.records()) aggregates += r.contains("aggregate") ? 1 : 0;
  EXPECT_EQ(aggregates, 4);
}

TEST(SweepDriver, InterleavedSkipCoversEveryRepetition) {
  DriverFixture f(R"(
ds = "btree"
repeat = 3
[matrix]
mode = ["pmem-volatile", "dram"]
)");
  FakeRun fake;
  EXPECT_EQ(f.run(fake, false, true), 0);
  EXPECT_EQ(fake.runs[f.configs[0].id], 1);  // skipped once, not three times
  EXPECT_EQ(fake.runs[f.configs[1].id], 3);
  FakeRun retry;
  EXPECT_EQ(f.run(retry, true, true), 0);
  EXPECT_EQ(retry.runs, (std::map<std::string, int>{{f.configs[0].id, 1}}));
}

// ------------------------------------------------------------------ random rounds (--interleave)

// Randomized rounds over kFourDram: `rounds` rounds in the order of `seed`,
// the calibration returning the next of `calibrations` (then the last again).
struct RandomRounds {
  DriverFixture& f;
  std::vector<std::string> calls;  // config ids in the order they ran
  std::vector<double> calibrations = {0.02};
  size_t calibrated = 0;

  int run(FakeRun& fake, std::optional<uint64_t> seed, int rounds = 0,
          const std::string& before_round = "") {
    std::FILE* progress = std::fopen(f.progress_path.c_str(), "a");
    DriverOptions o = f.options(progress);
    o.interleave = true;
    o.rounds.random = true;
    o.rounds.seed = seed;
    o.rounds.rounds = rounds;
    o.rounds.before_round = before_round;
    o.rounds.calibrate = [this] {
      return calibrations[std::min(calibrated++, calibrations.size() - 1)];
    };
    auto runner = [&](const Configuration& c, const std::vector<std::string>& a,
                      const std::string& t) {
      calls.push_back(c.id);
      return fake(c, a, t);
    };
    int code = -1;
    try {
      code = run_sweep(f.spec, f.configs, runner, o);
    } catch (...) {
      std::fclose(progress);
      throw;
    }
    std::fclose(progress);
    return code;
  }
  // The ids of round k in the order of `seed`.
  std::vector<std::string> order(uint64_t seed, int k) const {
    std::vector<std::string> ids;
    for (const auto& c : f.configs) ids.push_back(c.id);
    std::sort(ids.begin(), ids.end(), [&](const auto& a, const auto& b) {
      return order_key(seed, k, a) < order_key(seed, k, b);
    });
    return ids;
  }
};

TEST(SweepRounds, EachRoundRunsEveryConfigurationOnceInTheOrderOfTheSeed) {
  DriverFixture f(kFourDram);
  RandomRounds r{f};
  FakeRun fake;
  EXPECT_EQ(r.run(fake, 7, 5), 0);
  ASSERT_EQ(r.calls.size(), 20u);  // 5 rounds (--rounds) of 4, whatever repeat = 2 says
  std::set<std::vector<std::string>> orders;
  for (int k = 0; k < 5; ++k) {
    const std::vector<std::string> round(r.calls.begin() + 4 * k, r.calls.begin() + 4 * k + 4);
    EXPECT_EQ(round, r.order(7, k)) << k;
    orders.insert(round);
  }
  EXPECT_GT(orders.size(), 1u);  // a fresh order per round, not one order repeated
  std::map<std::pair<int, std::string>, int> cells;
  std::set<std::string> sessions;
  for (const auto& rec : f.records()) {
    if (rec.contains("aggregate")) continue;
    const auto& s = rec["sweep"];
    const int k = s["round"];
    ++cells[{k, s["config_id"]}];
    EXPECT_EQ(s["repetition"], k);
    EXPECT_EQ(rec["config"]["repetition"], k);
    EXPECT_EQ(rec["config"]["repeat"], 5);
    EXPECT_EQ(r.order(7, k)[s["position"].get<size_t>()], s["config_id"]);
    EXPECT_EQ(s["order"], "random");
    EXPECT_EQ(s["order_seed"], 7);
    EXPECT_DOUBLE_EQ(s["round_calibration_s"].get<double>(), 0.02);
    EXPECT_TRUE(s["loadavg_before"].is_array() && s["loadavg_after"].is_array());
    sessions.insert(s["session"]);
  }
  EXPECT_EQ(cells.size(), 20u);
  for (const auto& [cell, n] : cells) EXPECT_EQ(n, 1);
  EXPECT_EQ(sessions.size(), 1u);
  EXPECT_EQ(r.calibrated, 5u);  // once per round
}

TEST(SweepRounds, ResumedRoundKeepsTheRecordedSeedAndRunsOnlyMissingCells) {
  DriverFixture f(kFourDram);
  RandomRounds r{f};
  FakeRun first;
  first.crash_at = 6;  // dies in round 1, after two of its cells
  EXPECT_THROW(r.run(first, std::nullopt, 3), std::runtime_error);
  const uint64_t seed = f.records().front()["sweep"]["order_seed"];
  FakeRun second;
  EXPECT_EQ(r.run(second, std::nullopt, 3), 0);  // no seed given: the recorded one
  std::vector<std::string> planned;
  for (int k = 0; k < 3; ++k) {
    const auto ids = r.order(seed, k);
    planned.insert(planned.end(), ids.begin(), ids.end());
  }
  // The crashed call ran nothing; the resumed sweep goes on in the planned order.
  std::vector<std::string> ran(r.calls.begin(), r.calls.begin() + 6);
  ran.insert(ran.end(), r.calls.begin() + 7, r.calls.end());
  EXPECT_EQ(ran, planned);
  std::map<std::pair<int, std::string>, int> cells;
  for (const auto& rec : f.records()) {
    if (!rec.contains("aggregate")) ++cells[{rec["sweep"]["round"], rec["sweep"]["config_id"]}];
  }
  EXPECT_EQ(cells.size(), 12u);
  for (const auto& [cell, n] : cells) EXPECT_EQ(n, 1);
  // Another seed would reorder the rounds already started: refused.
  FakeRun third;
  EXPECT_NE(usage_error([&] { r.run(third, seed + 1, 4); }).find("already holds rounds"),
            std::string::npos);
  EXPECT_TRUE(third.runs.empty());
}

TEST(SweepRounds, MoreRoundsRunOnlyTheNewOnesUnderTheSameIds) {
  DriverFixture f(kFourDram);
  RandomRounds r{f};
  FakeRun first;
  EXPECT_EQ(r.run(first, 3, 2), 0);
  FakeRun second;
  EXPECT_EQ(r.run(second, std::nullopt, 4), 0);
  for (const auto& c : f.configs) EXPECT_EQ(second.runs[c.id], 2);
  std::map<std::string, std::set<int>> rounds;
  std::set<std::string> sessions;
  for (const auto& rec : f.records()) {
    if (rec.contains("aggregate")) continue;
    rounds[rec["sweep"]["config_id"]].insert(rec["sweep"]["round"].get<int>());
    sessions.insert(rec["sweep"]["session"]);
  }
  for (const auto& c : f.configs) EXPECT_EQ(rounds[c.id], (std::set<int>{0, 1, 2, 3}));
  EXPECT_EQ(sessions.size(), 2u);  // the rounds of each invocation are told apart
}

TEST(SweepRounds, NoisyRoundsAreNamedAgainstTheBestCalibration) {
  DriverFixture f(kFourDram);
  RandomRounds r{f};
  r.calibrations = {0.010, 0.012, 0.035};
  FakeRun fake;
  EXPECT_EQ(r.run(fake, 1, 3), 0);
  const std::string log = slurp(f.progress_path);
  EXPECT_NE(log.find("round 3 of 3 (random order, seed 1): calibration 35.0 ms (3.50x the best: "
                     "noisy)"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("noisy rounds (calibration over 3x the best 10.0 ms): 3 (35.0 ms)"),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find("round 2 of 3 (random order, seed 1): calibration 12.0 ms (1.20x the best)\n"),
            log.find("round 2 of 3"))
      << log;
}

TEST(SweepRounds, BeforeRoundRunsOncePerRoundAndItsFailureStopsTheSweep) {
  DriverFixture f(kFourDram);
  RandomRounds r{f};
  const std::string marks = f.dir.file("marks");
  FakeRun fake;
  EXPECT_EQ(r.run(fake, 1, 2, "echo $PMEMIDS_SWEEP_ROUND >> " + marks), 0);
  EXPECT_EQ(slurp(marks), "0\n1\n");
  FakeRun more;
  EXPECT_THROW(r.run(more, std::nullopt, 3, "exit 3"), RuntimeError);
  EXPECT_TRUE(more.runs.empty());  // nothing of round 3 ran
}

TEST(SweepDriver, DurationFormat) {
  EXPECT_EQ(format_duration(0.42), "0.4s");
  EXPECT_EQ(format_duration(45), "45s");
  EXPECT_EQ(format_duration(62), "1m02s");
  EXPECT_EQ(format_duration(3723), "1h02m03s");
}

}  // namespace
}  // namespace pmemids::sweep
