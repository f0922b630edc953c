// The flush primitives: names, CPU support, and non-temporal copies that copy
// exactly what they are given at every alignment.
#include "pmem/flush.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

namespace pmemids {
namespace {

TEST(Flush, NamesRoundTrip) {
  for (FlushInsn i : {FlushInsn::kClwb, FlushInsn::kClflushopt, FlushInsn::kClflush}) {
    EXPECT_EQ(parse_flush_insn(flush_insn_name(i)), i);
  }
  EXPECT_FALSE(parse_flush_insn("nt"));
  EXPECT_FALSE(parse_flush_insn(""));
}

TEST(Flush, LibpmemChoiceIsSupportedAndNamed) {
  const FlushInsn i = libpmem_flush_insn();
  EXPECT_TRUE(CpuFlushSupport::host().has(i));
  EXPECT_NE(CpuFlushSupport::host().names().find(flush_insn_name(i)), std::string::npos);
}

TEST(Flush, EverySupportedInstructionFlushesARangeAndLeavesItIntact) {
  std::vector<char> buf(1024);
  std::iota(buf.begin(), buf.end(), char{0});
  const std::vector<char> before = buf;
  for (FlushInsn i : {FlushInsn::kClwb, FlushInsn::kClflushopt, FlushInsn::kClflush}) {
    if (!CpuFlushSupport::host().has(i)) continue;
    flush_range(i, buf.data() + 3, 900);
    store_fence();
  }
  EXPECT_EQ(buf, before);
}

TEST(Flush, NtCopyCopiesExactlyAtEveryAlignmentAndSize) {
  std::vector<char> src(600), dst(700);
  std::iota(src.begin(), src.end(), char{1});
  for (size_t off = 0; off < 17; ++off) {
    for (size_t n : {0u, 1u, 7u, 15u, 16u, 17u, 63u, 64u, 255u, 256u, 513u}) {
      std::fill(dst.begin(), dst.end(), char{0});
      nt_copy(dst.data() + off, src.data(), n, libpmem_flush_insn());
      store_fence();
      EXPECT_TRUE(std::equal(src.begin(), src.begin() + static_cast<long>(n),
                             dst.begin() + static_cast<long>(off)))
          << "off " << off << " n " << n;
      EXPECT_TRUE(std::all_of(dst.begin(), dst.begin() + static_cast<long>(off),
                              [](char c) { return c == 0; }));
      EXPECT_TRUE(std::all_of(dst.begin() + static_cast<long>(off + n), dst.end(),
                              [](char c) { return c == 0; }));
    }
  }
}

}  // namespace
}  // namespace pmemids
