#include "pmem/flush.h"

#include <cpuid.h>
#include <emmintrin.h>

#include <cstdlib>
#include <cstring>

namespace pmemids {
namespace {

constexpr unsigned kClflushBit = 1u << 19;  // cpuid leaf 1, edx: CLFSH

bool env_is_1(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && std::strcmp(v, "1") == 0;
}

CpuFlushSupport probe() {
  CpuFlushSupport s;
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) != 0) {
    s.clflush = (d & kClflushBit) != 0;
    s.sse2 = (d & bit_SSE2) != 0;
  }
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) != 0) {
    s.clflushopt = (b & bit_CLFLUSHOPT) != 0;
    s.clwb = (b & bit_CLWB) != 0;
  }
  return s;
}

}  // namespace

const CpuFlushSupport& CpuFlushSupport::host() {
  static const CpuFlushSupport s = probe();
  return s;
}

bool CpuFlushSupport::has(FlushInsn i) const {
  switch (i) {
    case FlushInsn::kClwb:
      return clwb;
    case FlushInsn::kClflushopt:
      return clflushopt;
    case FlushInsn::kClflush:
      return clflush;
  }
  return false;
}

std::string CpuFlushSupport::names() const {
  std::string out;
  for (FlushInsn i : {FlushInsn::kClwb, FlushInsn::kClflushopt, FlushInsn::kClflush}) {
    if (!has(i)) continue;
    if (!out.empty()) out += ", ";
    out += flush_insn_name(i);
  }
  return out.empty() ? "none" : out;
}

std::string_view flush_insn_name(FlushInsn i) {
  switch (i) {
    case FlushInsn::kClwb:
      return "clwb";
    case FlushInsn::kClflushopt:
      return "clflushopt";
    case FlushInsn::kClflush:
      return "clflush";
  }
  return "?";
}

std::optional<FlushInsn> parse_flush_insn(std::string_view s) {
  for (FlushInsn i : {FlushInsn::kClwb, FlushInsn::kClflushopt, FlushInsn::kClflush}) {
    if (flush_insn_name(i) == s) return i;
  }
  return std::nullopt;
}

FlushInsn libpmem_flush_insn() {
  const CpuFlushSupport& h = CpuFlushSupport::host();
  if (h.clwb && !env_is_1("PMEM_NO_CLWB")) return FlushInsn::kClwb;
  if (h.clflushopt && !env_is_1("PMEM_NO_CLFLUSHOPT")) return FlushInsn::kClflushopt;
  return FlushInsn::kClflush;
}

void nt_copy(void* dst, const void* src, size_t n, FlushInsn tail) {
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  const auto a = reinterpret_cast<uintptr_t>(d);
  const size_t head = std::min(n, static_cast<size_t>((16 - (a & 15)) & 15));
  if (head != 0) {
    std::memmove(d, s, head);
    flush_range(tail, d, head);
  }
  size_t i = head;
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i), v);
  }
  if (i < n) {
    std::memmove(d + i, s + i, n - i);
    flush_range(tail, d + i, n - i);
  }
}

}  // namespace pmemids
