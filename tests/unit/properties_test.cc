// YCSB property parsing: every key, defaults, override order, each kind of bad
// value, ignored YCSB keys, unknown keys.
#include "workload/properties.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "errors.h"

namespace pmemids {
namespace {

class TempFile {
 public:
  explicit TempFile(const std::string& text) {
    char tmpl[] = "/tmp/pmemids-props-XXXXXX";
    const int fd = mkstemp(tmpl);
    close(fd);
    path_ = tmpl;
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

WorkloadSpec build(std::initializer_list<std::string> overrides) {
  PropertySet p;
  for (const auto& kv : overrides) p.set_override(kv);
  return p.build();
}

std::string usage_error(std::initializer_list<std::string> overrides) {
  try {
    build(overrides);
  } catch (const UsageError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no UsageError";
  return "";
}

TEST(PropertiesTest, DefaultsAreYcsbs) {
  const WorkloadSpec s = build({});
  EXPECT_EQ(s.recordcount, 1000u);
  EXPECT_EQ(s.operationcount, 1000u);
  EXPECT_DOUBLE_EQ(s.readproportion, 0.95);
  EXPECT_DOUBLE_EQ(s.updateproportion, 0.05);
  EXPECT_EQ(s.requestdistribution, Distribution::kUniform);
  EXPECT_DOUBLE_EQ(s.zipfianconstant, 0.99);
  EXPECT_EQ(s.insertorder, InsertOrder::kHashed);
  EXPECT_EQ(s.fieldlength, 100u);
  EXPECT_EQ(s.maxscanlength, 1000u);
  EXPECT_DOUBLE_EQ(s.readmissrate, 0.0);
}

TEST(PropertiesTest, EveryKeyIsApplied) {
  const WorkloadSpec s =
      build({"recordcount=7", "operationcount=9", "readproportion=0.1", "updateproportion=0.2",
             "insertproportion=0.1", "scanproportion=0.2", "readmodifywriteproportion=0.3",
             "deleteproportion=0.1", "requestdistribution=hotspot", "zipfianconstant=0.5",
             "insertorder=ordered", "fieldlength=64", "maxscanlength=10", "hotspotdatafraction=0.3",
             "hotspotopnfraction=0.7", "readmissrate=0.25", "seed=12345"});
  EXPECT_EQ(s.recordcount, 7u);
  EXPECT_EQ(s.operationcount, 9u);
  EXPECT_DOUBLE_EQ(s.scanproportion, 0.2);
  EXPECT_DOUBLE_EQ(s.readmodifywriteproportion, 0.3);
  EXPECT_DOUBLE_EQ(s.deleteproportion, 0.1);
  EXPECT_EQ(s.requestdistribution, Distribution::kHotspot);
  EXPECT_DOUBLE_EQ(s.zipfianconstant, 0.5);
  EXPECT_EQ(s.insertorder, InsertOrder::kOrdered);
  EXPECT_EQ(s.fieldlength, 64u);
  EXPECT_EQ(s.maxscanlength, 10u);
  EXPECT_DOUBLE_EQ(s.hotspotdatafraction, 0.3);
  EXPECT_DOUBLE_EQ(s.hotspotopnfraction, 0.7);
  EXPECT_DOUBLE_EQ(s.readmissrate, 0.25);
  EXPECT_EQ(s.seed, 12345u);
  // Every applied key of the workload's operation set round-trips into the
  // result config, and no other set's key is there (docs/design.md,
  // Changelog); YCSB's client settings (listed last) are the run's, recorded
  // as threads, target and status_interval by run.
  const auto j = s.to_json();
  for (const auto& k : PropertySet::known_keys()) {
    if (k == "threadcount" || k == "target" || k == "status.interval") continue;
    EXPECT_EQ(j.contains(k), property_applies(k, s.op_set())) << k;
  }
}

TEST(PropertiesTest, FilesParseAndOverridesWinInOrder) {
  TempFile a(
      "# comment\n! also comment\n\nrecordcount = 50\noperationcount: "
      "60\nworkload=site.ycsb.workloads.CoreWorkload\n");
  TempFile b("recordcount=70\n");
  PropertySet p;
  p.load_file(a.path());
  p.load_file(b.path());
  p.set_override("operationcount=80");
  const WorkloadSpec s = p.build();
  EXPECT_EQ(s.recordcount, 70u);
  EXPECT_EQ(s.operationcount, 80u);
  EXPECT_EQ(s.files.size(), 2u);
  EXPECT_EQ(s.ignored.at("workload"), "site.ycsb.workloads.CoreWorkload");
}

TEST(PropertiesTest, YcsbKeysThatDoNotApplyAreListedAsIgnored) {
  const WorkloadSpec s = build({"table=usertable", "fieldcount=10", "readallfields=true",
                                "measurementtype=histogram", "fieldlengthdistribution=constant"});
  EXPECT_EQ(s.ignored.size(), 5u);
  EXPECT_EQ(s.ignored.at("fieldcount"), "10");
}

TEST(PropertiesTest, UnknownKeyIsNamed) {
  EXPECT_NE(usage_error({"bogus=1"}).find("'bogus'"), std::string::npos);
}

TEST(PropertiesTest, BadValuesAreNamedWithWhatIsAccepted) {
  EXPECT_NE(usage_error({"recordcount=abc"}).find("recordcount"), std::string::npos);
  EXPECT_NE(
      usage_error({"recordcount=0"}).find("recordcount=0: a kv workload needs at least one record"),
      std::string::npos);
  EXPECT_NE(usage_error({"recordcount=12x"}).find("recordcount"), std::string::npos);
  EXPECT_NE(usage_error({"readproportion=1.5"}).find("[0, 1]"), std::string::npos);
  EXPECT_NE(usage_error({"readproportion=nan"}).find("readproportion"), std::string::npos);
  EXPECT_NE(usage_error({"requestdistribution=pareto"}).find("zipfian"), std::string::npos);
  EXPECT_NE(usage_error({"insertorder=random"}).find("hashed"), std::string::npos);
  EXPECT_NE(usage_error({"zipfianconstant=1"}).find("zipfianconstant"), std::string::npos);
  EXPECT_NE(usage_error({"zipfianconstant=0"}).find("zipfianconstant"), std::string::npos);
  EXPECT_NE(usage_error({"fieldlengthdistribution=zipfian"}).find("constant"), std::string::npos);
  EXPECT_NE(usage_error({"seed=-1"}).find("seed"), std::string::npos);
}

TEST(PropertiesTest, DistributionsAndTracesAreParsedAndRecorded) {
  const std::pair<const char*, Distribution> names[] = {
      {"uniform", Distribution::kUniform},
      {"uniform-inserted", Distribution::kUniformInserted},
      {"zipfian", Distribution::kZipfian},
      {"zipfian-ycsbc", Distribution::kZipfianYcsbc},
      {"latest", Distribution::kLatest},
      {"hotspot", Distribution::kHotspot},
      {"sequential", Distribution::kSequential}};
  for (const auto& [name, d] : names) {
    const WorkloadSpec s = build({std::string("requestdistribution=") + name});
    EXPECT_EQ(s.requestdistribution, d) << name;
    EXPECT_EQ(s.to_json()["requestdistribution"], name);
  }
  const WorkloadSpec t = build({"tracefile=/tmp/t.csv", "traceload=true"});
  EXPECT_EQ(t.tracefile, "/tmp/t.csv");
  EXPECT_TRUE(t.traceload);
  EXPECT_EQ(t.to_json()["tracefile"], "/tmp/t.csv");
  EXPECT_TRUE(build({}).to_json()["tracefile"].is_null());
  EXPECT_EQ(build({}).to_json()["traceload"], false);
  EXPECT_NE(usage_error({"traceload=yes"}).find("one of true false"), std::string::npos);
  EXPECT_NE(usage_error({"tracefile="}).find("the path of a trace file"), std::string::npos);
  EXPECT_NE(usage_error({"traceload=true"}).find("needs tracefile=PATH"), std::string::npos);
  EXPECT_NE(usage_error({"requestdistribution=zipf"}).find("zipfian-ycsbc"), std::string::npos);
}

TEST(PropertiesTest, ScanBufferBeyondOneGiBIsRefusedNamingBothKeys) {
  const std::string msg =
      usage_error({"readproportion=0.5", "updateproportion=0", "scanproportion=0.5",
                   "fieldlength=1048576", "maxscanlength=2048"});
  EXPECT_NE(msg.find("maxscanlength=2048"), std::string::npos) << msg;
  EXPECT_NE(msg.find("fieldlength=1048576"), std::string::npos) << msg;
  // Without scans the product does not matter.
  EXPECT_NO_THROW(build({"fieldlength=1048576", "maxscanlength=2048"}));
}

TEST(PropertiesTest, ProportionsMustSumToOne) {
  EXPECT_NE(usage_error({"readproportion=0.5", "updateproportion=0.2"}).find("sum"),
            std::string::npos);
  EXPECT_NO_THROW(build({"readproportion=0.7", "updateproportion=0.2", "insertproportion=0.1"}));
}

TEST(PropertiesTest, MalformedInputsAreUsageErrors) {
  PropertySet p;
  EXPECT_THROW(p.set_override("novalue"), UsageError);
  EXPECT_THROW(p.set_override("=3"), UsageError);
  EXPECT_THROW(p.load_file("/nonexistent/workload"), UsageError);
  TempFile bad("recordcount=5\njust words\n");
  try {
    p.load_file(bad.path());
    FAIL() << "no UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(bad.path() + ":2"), std::string::npos) << e.what();
  }
}

TEST(PropertiesTest, UnknownKeyInFileNamesFileAndLine) {
  TempFile f("recordcount=5\nrecrodcount=6\n");
  PropertySet p;
  p.load_file(f.path());
  try {
    p.build();
    FAIL() << "no UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(f.path() + ":2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("recrodcount"), std::string::npos);
  }
}

// --seed and -p seed= are one setting: the option is parsed as the property is,
// wins over files, and refuses a -p that says otherwise.
TEST(PropertiesTest, OptionSpellingOfAPropertyIsTheSameSetting) {
  TempFile file("seed=3\n");
  PropertySet p;
  p.load_file(file.path());
  p.set_from_option("seed", "7", "--seed");
  EXPECT_EQ(p.build().seed, 7u);

  PropertySet agree;
  agree.set_override("seed=7");
  agree.set_from_option("seed", "7", "--seed");
  EXPECT_EQ(agree.build().seed, 7u);

  PropertySet disagree;
  disagree.set_override("seed=8");
  try {
    disagree.set_from_option("seed", "7", "--seed");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--seed 7 and -p seed=8"), std::string::npos) << e.what();
  }

  PropertySet bad;
  bad.set_from_option("seed", "x", "--seed");
  try {
    bad.build();
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--seed: property 'seed' = 'x'"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace pmemids
