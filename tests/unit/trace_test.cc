// Traces: what `pmemids stream` writes parses back into the very streams a run
// executes (generate() against parse(write())), recorded traces become streams,
// and bad input is refused naming the file and line.
#include "workload/trace.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "errors.h"
#include "workload/properties.h"
#include "workload/sources.h"

namespace pmemids {
namespace {

WorkloadSpec spec(std::initializer_list<std::string> overrides) {
  PropertySet p;
  for (const auto& kv : overrides) p.set_override(kv);
  return p.build();
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = "/tmp/pmemids-trace-test-XXXXXX";
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = path_ + "/" + name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// What `pmemids stream` writes for (thread, operations) pairs.
std::string written(const std::vector<std::pair<int, std::span<const Op>>>& workers) {
  char* buf = nullptr;
  size_t size = 0;
  std::FILE* f = open_memstream(&buf, &size);
  write_trace_header(f);
  for (const auto& [t, ops] : workers) {
    for (const Op& op : ops) write_trace_line(f, t, op);
  }
  std::fclose(f);
  std::string out(buf, size);
  free(buf);
  return out;
}

void expect_same(const Stream& a, const Stream& b, uint32_t fieldlength) {
  EXPECT_EQ(a.load_keys, b.load_keys);
  EXPECT_EQ(a.records_max, b.records_max);
  EXPECT_EQ(a.read_misses, b.read_misses);
  EXPECT_EQ(a.max_scan_len, b.max_scan_len);
  EXPECT_EQ(a.codec.order, b.codec.order);
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (size_t i = 0; i < a.ops.size(); ++i) {
    const Op &x = a.ops[i], &y = b.ops[i];
    ASSERT_EQ(x.key, y.key) << i;
    ASSERT_EQ(x.type, y.type) << i;
    ASSERT_EQ(x.scan_len, y.scan_len) << i;
    ASSERT_EQ(x.value == nullptr, y.value == nullptr) << i;
    if (x.value != nullptr) {
      ASSERT_EQ(std::memcmp(x.value, y.value, fieldlength), 0) << i;
    }
  }
}

const std::initializer_list<std::string> kMixed = {"recordcount=2000",
                                                   "operationcount=20000",
                                                   "readproportion=0.3",
                                                   "updateproportion=0.1",
                                                   "insertproportion=0.2",
                                                   "scanproportion=0.1",
                                                   "readmodifywriteproportion=0.2",
                                                   "deleteproportion=0.1",
                                                   "readmissrate=0.2",
                                                   "maxscanlength=40",
                                                   "requestdistribution=zipfian"};
const std::initializer_list<std::string> kWrite = {
    "recordcount=5000",     "operationcount=20000", "readproportion=0",
    "updateproportion=0.9", "insertproportion=0.1", "requestdistribution=zipfian-ycsbc",
    "insertorder=ordered"};

// `pmemids stream` with the same arguments as `run` writes the streams run
// executes: parsing them back (and running them as a tracefile) gives the same
// operations, keys, values, load phase and sizes.
TEST(TraceTest, WrittenStreamsParseBackIntoTheSameStreams) {
  TempDir dir;
  for (const auto& overrides : {kMixed, kWrite}) {
    const WorkloadSpec s = spec(overrides);
    for (int count : {1, 3}) {
      const RunStreams built = build_streams(s, count);
      std::vector<std::pair<int, std::span<const Op>>> workers;
      for (int t = 0; t < count; ++t) workers.push_back({t, built.streams[t].ops});
      const std::string text = written(workers);
      const Trace trace = parse_trace(text, "mem", s);
      EXPECT_EQ(trace.threaded, true);
      EXPECT_EQ(trace.threads, count);
      for (int t = 0; t < count; ++t) {
        SCOPED_TRACE(count);
        expect_same(stream_from_trace(s, trace, count > 1 ? t : -1, built.seeds[t]),
                    built.streams[t], s.fieldlength);
      }
      PropertySet p;
      for (const auto& kv : overrides) p.set_override(kv);
      p.set_override("tracefile=" + dir.write("t.csv", text));
      const RunStreams replayed = build_streams(p.build(), count);
      ASSERT_EQ(replayed.seeds, built.seeds);
      for (int t = 0; t < count; ++t)
        expect_same(replayed.streams[t], built.streams[t], s.fieldlength);
    }
  }
}

// Concurrent workers' slices are written as threads 0..n-1 in stream order:
// one stream reads them back whole, and the runner's slicing gives each worker
// its lines again.
TEST(TraceTest, ConcurrentSlicesReadBackAsOneStream) {
  const WorkloadSpec s = spec(kMixed);
  const RunStreams built = build_streams(s, 1);
  const Stream& st = built.streams[0];
  std::vector<std::pair<int, std::span<const Op>>> workers;
  for (int t = 0; t < 3; ++t) {
    const auto [lo, hi] = worker_slice(st.ops.size(), t, 3);
    workers.push_back({t, std::span<const Op>(st.ops.data() + lo, hi - lo)});
  }
  const Trace trace = parse_trace(written(workers), "mem", s);
  EXPECT_EQ(trace.threads, 3);
  expect_same(stream_from_trace(s, trace, -1, built.seeds[0]), st, s.fieldlength);
  for (int t = 0; t < 3; ++t) {
    const auto [lo, hi] = worker_slice(st.ops.size(), t, 3);
    for (size_t i = lo; i < hi; ++i) ASSERT_EQ(trace.ops[i].thread, t);
  }
}

// Concurrent runs and `pmemids stream --thread-mode concurrent` take their
// slices from one place: generated, slice t of n from seed + t; written as a
// trace and read back, the same slices (only slice 0 loads).
TEST(TraceTest, ConcurrentSlicesAreGeneratedSlicesAndTheirTraceCutsBackIntoThem) {
  TempDir dir;
  const WorkloadSpec s = spec(kMixed);
  const RunStreams built = build_streams(s, 3, StreamShare::kSlices);
  ASSERT_EQ(built.streams.size(), 3u);
  std::vector<std::pair<int, std::span<const Op>>> workers;
  for (uint32_t t = 0; t < 3; ++t) {
    EXPECT_EQ(built.seeds[t], s.seed + t);
    const Stream own = generate(s, s.seed + t, {t, 3});
    EXPECT_EQ(built.streams[t].slice.index, t);
    expect_same(built.streams[t], own, s.fieldlength);
    workers.push_back({static_cast<int>(t), built.streams[t].ops});
  }
  PropertySet p;
  for (const auto& kv : kMixed) p.set_override(kv);
  p.set_override("tracefile=" + dir.write("c.csv", written(workers)));
  const RunStreams cut = build_streams(p.build(), 3, StreamShare::kSlices);
  ASSERT_EQ(cut.streams.size(), 3u);
  for (size_t t = 0; t < 3; ++t) {
    SCOPED_TRACE(t);
    EXPECT_EQ(cut.streams[t].load_keys.size(), t == 0 ? s.recordcount : 0u);
    ASSERT_EQ(cut.streams[t].ops.size(), built.streams[t].ops.size());
    for (size_t i = 0; i < cut.streams[t].ops.size(); ++i) {
      const Op &x = cut.streams[t].ops[i], &y = built.streams[t].ops[i];
      ASSERT_EQ(x.key, y.key) << i;
      ASSERT_EQ(x.type, y.type) << i;
      ASSERT_EQ(x.value == nullptr, y.value == nullptr) << i;
      if (x.value != nullptr) {  // a value of this slice's own pool
        ASSERT_GE(x.value, cut.streams[t].values.get(0)) << i;
        ASSERT_LT(x.value, cut.streams[t].values.get(1023) + s.fieldlength) << i;
      }
    }
  }
}

TEST(TraceTest, PlainLinesHeaderCommentsAndYcsbKeyNames) {
  const WorkloadSpec s = spec({"recordcount=10", "insertorder=ordered"});
  const Trace trace = parse_trace(
      "# recorded elsewhere\nop,key\nread,5\r\nINSERT,user17\n\n  scan , 5 , 10 \nupdate,9,\n"
      "readmodifywrite,3\ndelete,4",
      "plain.csv", s);
  EXPECT_FALSE(trace.threaded);
  EXPECT_EQ(trace.threads, 1);
  const Stream st = stream_from_trace(s, trace, -1, 1);
  ASSERT_EQ(st.ops.size(), 6u);
  const OpType types[] = {OpType::kRead,   OpType::kInsert,          OpType::kScan,
                          OpType::kUpdate, OpType::kReadModifyWrite, OpType::kDelete};
  const uint64_t keys[] = {5, 17, 5, 9, 3, 4};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(st.ops[i].type, types[i]);
    EXPECT_EQ(st.ops[i].key, keys[i]);
    const bool writes = i == 1 || i == 3 || i == 4;
    EXPECT_EQ(st.ops[i].value != nullptr, writes) << i;
  }
  EXPECT_EQ(st.ops[2].scan_len, 10u);
  EXPECT_EQ(st.max_scan_len, 10u);
  EXPECT_EQ(st.load_keys.size(), 10u);  // recordcount, as a generated run loads
  EXPECT_EQ(st.records_max, 18u);       // ids 0..9 loaded, 17 inserted: dense
}

TEST(TraceTest, TraceloadLoadsTheKeysFirstUsedByOtherThanInserts) {
  const WorkloadSpec s =
      spec({"recordcount=1000", "insertorder=ordered", "traceload=true", "tracefile=unused"});
  const Stream st = stream_from_trace(
      s, parse_trace("insert,100\nread,100\nread,5\ndelete,6\nupdate,5\nread,7\n", "t", s), -1, 1);
  EXPECT_EQ(st.load_keys, (std::vector<uint64_t>{5, 6, 7}));
  EXPECT_EQ(st.records_max, 101u);  // ids up to 100 for 4 keys: dense enough to address
  const Stream sparse =
      stream_from_trace(s, parse_trace("read,5\ninsert,1040\nread,2000000\n", "t", s), -1, 1);
  EXPECT_EQ(sparse.records_max, 3u);  // ids up to 2*10^6 for 3 keys: their count
  const Stream dense = stream_from_trace(
      s, parse_trace("read,0\nread,1\nread,2\nread,3\ninsert,4\n", "t", s), -1, 1);
  EXPECT_EQ(dense.load_keys, (std::vector<uint64_t>{0, 1, 2, 3}));
  EXPECT_EQ(dense.records_max, 5u);
}

TEST(TraceTest, BadLinesAreRefusedByFileAndLine) {
  const WorkloadSpec s = spec({});
  struct Case {
    std::string text;
    std::string where;
    std::string needle;
  };
  const Case cases[] = {
      {"read,5\nfoo,6\n", "t.csv:2:", "operation 'foo'; expected one of read, update, insert"},
      {"read,x\n", "t.csv:1:", "key 'x'; expected a decimal integer"},
      {"read,18446744073709551616\n", "t.csv:1:", "key '18446744073709551616'"},
      {"scan,5\n", "t.csv:1:", "a scan without a scan_length"},
      {"scan,5,0\n", "t.csv:1:", "scan_length '0'; expected an integer in [1, 1000]"},
      {"scan,5,1001\n", "t.csv:1:", "scan_length '1001'"},
      {"read,5,3\n", "t.csv:1:", "a scan_length on a read"},
      {"0,read,5\nread,6\n", "t.csv:2:", "as the lines before"},
      {"read,5\n0,read,6\n", "t.csv:2:", "as the lines before"},
      {"0,read,5,,9\n", "t.csv:1:", "has 5 fields"},
      {"read\n", "t.csv:1:", "has 1 field;"},
      {"1024,read,5\n", "t.csv:1:", "thread '1024'; expected an integer in [0, 1023]"},
      {"", "t.csv:", "no operations"},
      {"# nothing\nthread,op,key\n", "t.csv:", "no operations"},
      {"read," + std::string(5000, '1') + "\n", "t.csv:1:", "longer than 4096 bytes"},
  };
  for (const Case& c : cases) {
    try {
      parse_trace(c.text, "t.csv", s);
      ADD_FAILURE() << "accepted: " << c.text;
    } catch (const UsageError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.rfind(c.where, 0), 0u) << msg;
      EXPECT_NE(msg.find(c.needle), std::string::npos) << msg;
    }
  }
}

TEST(TraceTest, FilesAreRegularAndReadInBoundedPieces) {
  TempDir dir;
  const WorkloadSpec s = spec({});
  const auto refused = [&](const std::string& path, const std::string& needle) {
    try {
      read_trace(path, s);
      ADD_FAILURE() << "accepted " << path;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  refused(dir.path(), "is a directory; accepted: a regular file");
  refused(dir.path() + "/missing.csv", "cannot be read");
  // Lines that straddle the reader's 1 MiB pieces, one long line later.
  std::string text;
  for (int i = 0; i < 200000; ++i) text += "read," + std::to_string(i) + "\n";
  const Trace t = read_trace(dir.write("big.csv", text + "read,7"), s);
  ASSERT_EQ(t.ops.size(), 200001u);
  for (int i = 0; i < 200000; ++i) ASSERT_EQ(t.ops[i].key, static_cast<uint64_t>(i));
  EXPECT_EQ(t.ops.back().key, 7u);
  refused(dir.write("long.csv", text + "read," + std::string(3 << 20, '1') + "\n"),
          "long.csv:200001: a line longer than 4096 bytes");
}

TEST(TraceTest, ParallelWorkersRunOneThreadEachOrTheWholePlainTrace) {
  TempDir dir;
  const auto with = [&](const std::string& text) {
    return spec({"recordcount=10", "tracefile=" + dir.write("t.csv", text)});
  };
  const auto refused = [&](const WorkloadSpec& s, int count, const std::string& needle) {
    try {
      build_streams(s, count);
      ADD_FAILURE() << "accepted " << count;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  const WorkloadSpec three = with("0,read,1\n1,read,2\n2,read,3\n2,update,4\n");
  refused(three, 2,
          "threads 0..2; parallel workers run one thread's operations each: use --threads 3");
  EXPECT_EQ(build_streams(three, 3).streams[2].ops.size(), 2u);
  EXPECT_EQ(build_streams(three, 1).streams[0].ops.size(), 4u);  // one stream: every line
  refused(with("0,read,1\n2,read,3\n"), 3, "no operations for thread 1");
  const RunStreams plain = build_streams(with("read,1\nupdate,2\n"), 2);
  EXPECT_EQ(plain.streams[0].ops.size(), 2u);
  EXPECT_EQ(plain.streams[1].ops.size(), 2u);
}

}  // namespace
}  // namespace pmemids
