// Operation traces: the CSV `pmemids stream` writes and `tracefile=PATH` runs.
//
// Format, one operation a line:
//   thread,op,key[,scan_length]     (what `pmemids stream` writes)
//   op,key[,scan_length]            (plain: every line is thread 0)
// `op` is read, update, insert, scan, readmodifywrite or delete (any case);
// `key` is the 8-byte key the structure sees, a decimal integer (a YCSB key
// name "user<digits>" is read as its digits): with insertorder=hashed record id
// i has key mix64(i), so a trace of record ids wants insertorder=ordered.
// A scan needs its scan_length in [1, maxscanlength]; other operations take
// none (an empty fourth field is allowed). Blank lines and lines starting with
// '#' are skipped; the first other line may be a header naming the columns
// ("thread,op,..." or "op,key,..."). Every line of a file has the same form.
//
// A trace is read from a regular file in bounded pieces: lines of at most
// kMaxTraceLine bytes, and no more operations than fit in half the machine's
// memory. Any violation is a UsageError "<file>:<line>: <what>; expected <what>".
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "workload/properties.h"
#include "workload/stream.h"

namespace pmemids {

inline constexpr size_t kMaxTraceLine = 4096;
inline constexpr int kMaxTraceThreads = 1024;

struct TraceOp {
  uint64_t key;
  OpType type;
  uint16_t thread;
  uint32_t scan_len;  // scans only
};

struct Trace {
  std::string name;          // the file, for messages
  bool threaded = false;     // lines carry a thread column
  int threads = 0;           // 1 + the largest thread index
  std::vector<TraceOp> ops;  // in file order
};

// `spec` bounds scan lengths (maxscanlength, and 1 GiB per scan with fieldlength).
Trace read_trace(const std::string& path, const WorkloadSpec& spec);
Trace parse_trace(std::string_view text, const std::string& name, const WorkloadSpec& spec);

// The stream a run executes from a trace: every line (`thread` < 0), or the
// lines of one thread. Values, their seed and everything derived from keys are
// as generate() makes them, so a trace written from generated streams runs
// exactly those streams. Loads recordcount ids, or with traceload=true each
// distinct key whose first use in these lines is not an insert (in that order).
// records_max: 1 + the largest record id loaded or inserted, unless ids are
// sparse (the largest at least 4 x their count + 1024, as keys recorded
// elsewhere decode to with insertorder=hashed), then their count; the
// arraylist, which addresses ids, then refuses an id beyond it.
Stream stream_from_trace(const WorkloadSpec& spec, const Trace& trace, int thread,
                         uint64_t stream_seed);

// The header `pmemids stream` writes, and one line (thread, op, key, scan length for scans).
void write_trace_header(std::FILE* out);
void write_trace_line(std::FILE* out, int thread, const Op& op);

}  // namespace pmemids
