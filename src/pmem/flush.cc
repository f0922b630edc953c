#include "pmem/flush.h"

#include <cpuid.h>
#include <emmintrin.h>
#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace pmemids {
namespace {

constexpr unsigned kClflushBit = 1u << 19;  // cpuid leaf 1, edx: CLFSH
constexpr unsigned kXmmYmmState = 0x6;      // XCR0: SSE and AVX state saved by the OS

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
    if ((c & bit_AVX) != 0 && (c & bit_OSXSAVE) != 0) {
      unsigned lo = 0, hi = 0;
      asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
      s.avx = (lo & kXmmYmmState) == kXmmYmmState;
    }
  }
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) != 0) {
    s.clflushopt = (b & bit_CLFLUSHOPT) != 0;
    s.clwb = (b & bit_CLWB) != 0;
  }
  return s;
}

// Regular stores of the pattern over [d, d+n), then written back.
void fill_regular(char* d, uint64_t word, size_t n, FlushInsn tail) {
  if (n == 0) return;
  const auto a = reinterpret_cast<uintptr_t>(d);
  for (size_t i = 0; i < n; ++i) d[i] = static_cast<char>(word >> (8 * ((a + i) & 7)));
  flush_range(tail, d, n);
}

void nt_fill_16(char* d, uint64_t word, size_t n) {
  const __m128i v = _mm_set1_epi64x(static_cast<long long>(word));
  for (size_t i = 0; i < n; i += 16) _mm_stream_si128(reinterpret_cast<__m128i*>(d + i), v);
}

__attribute__((target("avx"))) void nt_fill_32(char* d, uint64_t word, size_t n) {
  const __m256i v = _mm256_set1_epi64x(static_cast<long long>(word));
  for (size_t i = 0; i < n; i += 32) _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i), v);
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

size_t nt_fill_width() { return CpuFlushSupport::host().avx ? 32 : 16; }

void nt_fill(void* dst, uint64_t word, size_t n, FlushInsn tail) {
  auto* d = static_cast<char*>(dst);
  const size_t w = nt_fill_width();
  const auto a = reinterpret_cast<uintptr_t>(d);
  const size_t head = std::min(n, static_cast<size_t>((w - (a & (w - 1))) & (w - 1)));
  const size_t body = (n - head) & ~(w - 1);
  fill_regular(d, word, head, tail);
  if (w == 32) {
    nt_fill_32(d + head, word, body);
  } else {
    nt_fill_16(d + head, word, body);
  }
  fill_regular(d + head + body, word, n - head - body, tail);
}

}  // namespace pmemids
