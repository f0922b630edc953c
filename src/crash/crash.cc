#include "crash/crash.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <set>

#include "crash/crash_impl.h"
#include "workload/generators.h"

namespace pmemids {

double CrashReport::recovery_ms_median() const {
  if (recovery_ms.empty()) return 0;
  std::vector<double> v = recovery_ms;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double CrashReport::recovery_ms_max() const {
  return recovery_ms.empty() ? 0 : *std::max_element(recovery_ms.begin(), recovery_ms.end());
}

bool CrashReport::violation(bool every_leak) const {
  return recovered != points || invariant_failures != 0 || lost_acknowledged != 0 ||
         half_applied != 0 || dangling_objects != 0 || leaks_after_repair != 0 ||
         (every_leak && leaked_objects != 0);
}

namespace {

// The message with every number (decimal or 0x-hex) replaced by '#'.
std::string failure_kind(const char* m) {
  std::string out;
  for (const char* p = m; *p != '\0';) {
    if (std::isdigit(static_cast<unsigned char>(*p)) != 0) {
      if (p[0] == '0' && p[1] == 'x') p += 2;
      while (std::isxdigit(static_cast<unsigned char>(*p)) != 0) ++p;
      out += '#';
      continue;
    }
    out += *p++;
  }
  return out;
}

}  // namespace

void CrashReport::add(const PointResult& r) {
  ++points;
  if (r.recovered) ++recovered;
  if (r.opened) {
    recovery_ms.push_back(r.recovery_ms);
    if (!r.invariants_ok) ++invariant_failures;
    if (!r.pmempool_ok) ++pmempool_failures;
  }
  lost_acknowledged += r.lost;
  half_applied += r.half;
  torn_values += r.torn_values;
  leaked_objects += r.leaked;
  leaks_after_repair += r.leaked_after;
  dangling_objects += r.dangling;
  recovery_crashes += r.recovery_crashes;
  const bool failed =
      !r.recovered || !r.invariants_ok || r.lost != 0 || r.half != 0 || r.dangling != 0;
  if (failed) ++failure_kinds[failure_kind(r.message[0] != '\0' ? r.message : "failed")];
  if (failed && failures.size() < 8) {
    failures.push_back(fmt::format("point {} (op {}): {}", r.point, r.op_index,
                                   r.message[0] != '\0' ? r.message : "failed"));
  }
}

namespace {

// The op that loads load key i of `st` (kv, set: insert; queue, stack: push).
Op load_op(OpSet s, const Stream& st, uint64_t i, const char* value) {
  const bool push = s == OpSet::kQueue || s == OpSet::kStack;
  return Op{.key = st.load_keys[i],
            .value = s == OpSet::kSet || s == OpSet::kStack ? nullptr : value,
            .type = push ? OpType::kPush : OpType::kInsert};
}

}  // namespace

CrashWorkload crash_workload(const WorkloadSpec& spec, uint32_t threads) {
  CrashWorkload w;
  w.op_set = spec.op_set();
  const std::vector<StreamShape> shapes = plan_streams(spec, static_cast<int>(threads), true);
  for (size_t t = 0; t < shapes.size(); ++t) {
    w.streams.push_back(generate(spec, spec.seed + t, shapes[t]));
  }
  const Stream& first = w.streams.front();
  std::vector<const Stream*> all;
  for (const Stream& st : w.streams) all.push_back(&st);
  const uint64_t capacity = shared_capacity(w.op_set, all);
  w.ds = DsOptions{.capacity = capacity,
                   .expected = spec.recordcount,
                   .value_size = spec.fieldlength,
                   .codec = first.codec,
                   .seed = spec.seed,
                   .threads = threads,
                   .keyrange = spec.keyrange,
                   .queueslots = spec.queueslots,
                   .slotsize = spec.slotsize,
                   .combining = with_poolnodes({}, spec.poolnodes)};
  // Kv changes each get their own value, as far as the value pool reaches.
  const bool kv = w.op_set == OpSet::kKv || w.op_set == OpSet::kOrderedKv;
  uint64_t v = 0;
  for (uint64_t i = 0; i < first.load_keys.size(); ++i) {
    w.ops.push_back(load_op(w.op_set, first, i, first.values.get(kv ? v++ : i)));
  }
  for (size_t t = 0; t < w.streams.size(); ++t) {
    std::vector<Op>& out = threads == 1 ? w.ops : w.thread_ops.emplace_back();
    for (Op op : w.streams[t].ops) {
      if (kv && op.value != nullptr) op.value = w.streams[t].values.get(v++);
      out.push_back(op);
    }
  }
  return w;
}

namespace crash_detail {

bool read_full(int fd, void* buf, size_t n) {
  auto* p = static_cast<char*>(buf);
  while (n > 0) {
    const ssize_t k = read(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

bool write_full(int fd, const void* buf, size_t n) {
  const auto* p = static_cast<const char*>(buf);
  while (n > 0) {
    const ssize_t k = write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

bool pmempool_consistent(const std::string& path) {
  const pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // a worker killed on its timeout takes this along
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, STDOUT_FILENO);
      dup2(null, STDERR_FILENO);
    }
    execlp("pmempool", "pmempool", "check", path.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::vector<uint64_t> pick_points(uint64_t available, uint32_t points, uint64_t seed) {
  std::vector<uint64_t> out;
  if (available <= points) {
    for (uint64_t i = 0; i < available; ++i) out.push_back(i);
    return out;
  }
  // Floyd's sampling: `points` distinct values, each subset equally likely.
  Rng rng(mix64(seed) ^ 0x63726173685f7074ULL);
  std::set<uint64_t> chosen;
  for (uint64_t j = available - points; j < available; ++j) {
    const uint64_t t = rng.below(j + 1);
    if (!chosen.insert(t).second) chosen.insert(j);
  }
  out.assign(chosen.begin(), chosen.end());
  return out;
}

}  // namespace crash_detail
}  // namespace pmemids
