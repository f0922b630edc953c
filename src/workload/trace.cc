#include "workload/trace.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <unordered_set>

#include "errors.h"
#include "util/escape.h"
#include "util/file_checks.h"
#include "util/stop_signals.h"

namespace pmemids {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool is_number(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

// Lines in, operations out; the form (threaded or plain) is fixed by the first
// operation line.
class Parser {
 public:
  Parser(std::string name, const WorkloadSpec& spec) : spec_(spec) {
    trace_.name = std::move(name);
    max_ops_ = static_cast<uint64_t>(physical_memory_bytes() / 4 / sizeof(TraceOp));
  }

  void line(std::string_view raw, uint64_t lineno) {
    lineno_ = lineno;
    const std::string_view text = trim(raw);
    if (text.empty() || text.front() == '#') return;
    std::vector<std::string_view> f;
    for (size_t start = 0;;) {
      const size_t comma = text.find(',', start);
      f.push_back(
          trim(text.substr(start, comma == std::string_view::npos ? text.npos : comma - start)));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    const bool first = !seen_line_;
    seen_line_ = true;
    const std::string head = lower(f[0]);
    if (first && (head == "thread" || head == "op")) return;  // a header
    const bool threaded = is_number(f[0]);
    if (trace_.ops.empty()) {
      trace_.threaded = threaded;
    } else if (threaded != trace_.threaded) {
      fail(fmt::format("'{}' is a {} line, unlike the lines before", text,
                       threaded ? "thread,op,key" : "op,key"),
           form());
    }
    const size_t base = threaded ? 1 : 0;
    if (f.size() < base + 2 || f.size() > base + 3) {
      fail(fmt::format("'{}' has {} field{}", text, f.size(), f.size() == 1 ? "" : "s"), form());
    }
    TraceOp op{.key = 0, .type = OpType::kRead, .thread = 0, .scan_len = 0};
    if (threaded)
      op.thread = static_cast<uint16_t>(number(f[0], "thread", 0, kMaxTraceThreads - 1));
    op.type = op_type(f[base]);
    op.key = key(f[base + 1]);
    const bool has_len = f.size() == base + 3 && !f[base + 2].empty();
    if (op.type == OpType::kScan) {
      if (!has_len) fail("a scan without a scan_length", form());
      op.scan_len =
          static_cast<uint32_t>(number(f[base + 2], "scan_length", 1, spec_.maxscanlength));
      if (uint64_t{spec_.fieldlength} * op.scan_len > (uint64_t{1} << 30)) {
        fail(fmt::format("a scan of {} values of fieldlength={} bytes exceeds 1 GiB", op.scan_len,
                         spec_.fieldlength),
             "a shorter scan or a smaller fieldlength");
      }
    } else if (has_len) {
      fail(fmt::format("a scan_length on a {}", op_name(op.type)),
           "a scan_length on scans only (an empty fourth field is fine)");
    }
    if (trace_.ops.size() == max_ops_) {
      fail(fmt::format("more than {} operations", max_ops_),
           "a trace whose operations fit in a quarter of this machine's memory");
    }
    trace_.threads = std::max(trace_.threads, op.thread + 1);
    trace_.ops.push_back(op);
  }

  Trace finish() {
    if (trace_.ops.empty()) {
      throw UsageError(fmt::format("{}: no operations; expected lines {}", trace_.name, kForms));
    }
    return std::move(trace_);
  }

  [[noreturn]] void too_long(uint64_t lineno) {
    lineno_ = lineno;
    fail(fmt::format("a line longer than {} bytes", kMaxTraceLine), "one operation a line");
  }

 private:
  // `what` quotes the line: its control bytes (a NUL would cut the message)
  // and invalid UTF-8 are escaped.
  [[noreturn]] void fail(const std::string& what, const std::string& expected) const {
    throw UsageError(fmt::format("{}:{}: {}; expected {}", trace_.name, lineno_,
                                 escape_control(what), expected));
  }

  static constexpr const char* kForms = "'thread,op,key[,scan_length]' or 'op,key[,scan_length]'";

  std::string form() const {
    return trace_.ops.empty()
               ? kForms
               : (trace_.threaded ? "'thread,op,key[,scan_length]' (as the lines before)"
                                  : "'op,key[,scan_length]' (as the lines before)");
  }

  uint64_t number(std::string_view s, const char* what, uint64_t min, uint64_t max) const {
    uint64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v < min || v > max) {
      fail(fmt::format("{} '{}'", what, s), fmt::format("an integer in [{}, {}]", min, max));
    }
    return v;
  }

  uint64_t key(std::string_view s) const {
    if (s.size() > 4 && lower(s.substr(0, 4)) == "user") s.remove_prefix(4);
    uint64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size()) {
      fail(fmt::format("key '{}'", s), "a decimal integer below 2^64 (or user<digits>)");
    }
    return v;
  }

  // An operation of the workload's operation set (operationset=, kv by default).
  OpType op_type(std::string_view s) const {
    const std::string name = lower(s);
    std::string names;
    for (OpType t : op_types_of(spec_.op_set())) {
      if (op_name(t) == name) return t;
      names += fmt::format("{}{}", names.empty() ? "" : ", ", op_name(t));
    }
    fail(fmt::format("operation '{}'", s),
         fmt::format("one of {} (the {} operation set's; operationset= names the set)", names,
                     op_set_name(spec_.op_set())));
  }

  const WorkloadSpec& spec_;
  Trace trace_;
  uint64_t max_ops_ = 0;
  uint64_t lineno_ = 0;
  bool seen_line_ = false;
};

}  // namespace

Trace parse_trace(std::string_view text, const std::string& name, const WorkloadSpec& spec) {
  Parser p(name, spec);
  uint64_t lineno = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    if (line.size() > kMaxTraceLine) p.too_long(lineno + 1);
    p.line(line, ++lineno);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  }
  return p.finish();
}

Trace read_trace(const std::string& path, const WorkloadSpec& spec) {
  const InputFile file(path, "tracefile");
  const int fd = file.fd();
  Parser p(path, spec);
  std::vector<char> buf(1 << 20);
  std::string carry;  // the unfinished line, at most kMaxTraceLine bytes
  uint64_t lineno = 0;
  for (;;) {
    const ssize_t n = read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      throw UsageError(
          fmt::format("tracefile '{}' cannot be read: {}", path, std::strerror(errno)));
    }
    if (n == 0) break;
    std::string_view chunk(buf.data(), static_cast<size_t>(n));
    for (size_t nl; (nl = chunk.find('\n')) != std::string_view::npos;) {
      ++lineno;
      if (carry.size() + nl > kMaxTraceLine) p.too_long(lineno);
      if (carry.empty()) {
        p.line(chunk.substr(0, nl), lineno);
      } else {
        carry.append(chunk.substr(0, nl));
        p.line(carry, lineno);
        carry.clear();
      }
      chunk.remove_prefix(nl + 1);
    }
    if (carry.size() + chunk.size() > kMaxTraceLine) p.too_long(lineno + 1);
    carry.append(chunk);
  }
  if (!carry.empty()) p.line(carry, lineno + 1);
  return p.finish();
}

Stream stream_from_trace(const WorkloadSpec& spec, const Trace& trace, int thread,
                         uint64_t stream_seed) {
  if (!spec.traceload &&
      static_cast<double>(spec.recordcount) * sizeof(uint64_t) > physical_memory_bytes() / 4) {
    throw UsageError(fmt::format(
        "recordcount={} load keys do not fit in a quarter of this machine's memory beside the "
        "trace {}",
        spec.recordcount, trace.name));
  }
  Stream st = stream_base(spec, stream_seed, !spec.traceload);
  std::unordered_set<uint64_t> seen;
  uint64_t inserts = 0, max_id = 0;
  for (uint64_t k : st.load_keys) max_id = std::max(max_id, st.codec.decode(k));
  for (const TraceOp& t : trace.ops) {
    if (thread >= 0 && t.thread != thread) continue;
    const uint64_t i = st.ops.size();
    throw_if_stopped_at(i);
    const bool writes = t.type == OpType::kInsert || t.type == OpType::kUpdate ||
                        t.type == OpType::kReadModifyWrite;
    st.ops.push_back(Op{.key = t.key,
                        .value = writes ? st.values.get(i) : nullptr,
                        .type = t.type,
                        .scan_len = t.scan_len});
    st.max_scan_len = std::max(st.max_scan_len, t.scan_len);
    const uint64_t id = st.codec.decode(t.key);
    if (t.type == OpType::kRead && id >= kMissBase) ++st.read_misses;
    if (spec.traceload && seen.insert(t.key).second && t.type != OpType::kInsert) {
      st.load_keys.push_back(t.key);
      max_id = std::max(max_id, id);
    }
    if (t.type == OpType::kInsert) {
      ++inserts;
      max_id = std::max(max_id, id);
    }
  }
  const uint64_t count = st.load_keys.size() + inserts;
  const bool dense = max_id / 4 < count + 256;  // max_id < 4 count + 1024, without overflow
  st.records_max = dense ? std::max(count, max_id + 1) : count;
  return st;
}

void write_trace_header(std::FILE* out) { fmt::print(out, "thread,op,key,scan_length\n"); }

void write_trace_line(std::FILE* out, int thread, const Op& op) {
  if (op.type == OpType::kScan) {
    fmt::print(out, "{},{},{},{}\n", thread, op_name(op.type), op.key, op.scan_len);
  } else {
    fmt::print(out, "{},{},{}\n", thread, op_name(op.type), op.key);
  }
}

}  // namespace pmemids
