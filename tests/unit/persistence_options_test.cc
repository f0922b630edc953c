// Resolving --domain / --flush / --movnt-threshold into a run's policy.
#include "options/persistence_options.h"

#include <gtest/gtest.h>

#include "errors.h"

namespace pmemids {
namespace {

TEST(PersistenceOptions, DefaultsAreThePlatformsDomainAndLibpmemsInstruction) {
  const PersistencePolicy p = resolve_persistence(PersistenceOptions{}, false);
  EXPECT_EQ(p.domain.label(), "adr");
  EXPECT_EQ(p.insn, libpmem_flush_insn());
  EXPECT_TRUE(p.insn_auto);
  EXPECT_FALSE(p.nt_always);
  EXPECT_EQ(p.to_json()["pmem_write_ns"], nullptr);
}

TEST(PersistenceOptions, EadrOnAPlatformWithoutPersistentCachesIsEmulatedAndFlushesNothing) {
  PersistenceOptions o;
  o.domain = "eadr";
  const PersistencePolicy p = resolve_persistence(o, false);
  EXPECT_EQ(p.to_json()["domain"], "eadr-emulated");
  EXPECT_EQ(p.flush_label(), "none");
}

TEST(PersistenceOptions, NtCopiesEverySize) {
  PersistenceOptions o;
  o.flush = "nt";
  o.movnt_threshold = 4096;
  const PersistencePolicy p = resolve_persistence(o, false);
  EXPECT_TRUE(p.nt_always);
  EXPECT_EQ(p.movnt_threshold, 0u);
  EXPECT_EQ(p.flush_label(), "nt");
}

TEST(PersistenceOptions, AnExplicitInstructionIsKept) {
  PersistenceOptions o;
  o.flush = "clflush";
  const PersistencePolicy p = resolve_persistence(o, false);
  EXPECT_EQ(p.insn, FlushInsn::kClflush);
  EXPECT_FALSE(p.insn_auto);
}

TEST(PersistenceOptions, UnknownValuesAreUsageErrorsNamingWhatIsAccepted) {
  PersistenceOptions o;
  o.flush = "movdir64b";
  try {
    resolve_persistence(o, false);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("clflushopt"), std::string::npos);
  }
  o = PersistenceOptions{};
  o.domain = "adr-ish";
  EXPECT_THROW(resolve_persistence(o, false), UsageError);
  o = PersistenceOptions{};
  o.pmem_write_ns = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(resolve_persistence(o, false), UsageError);
}

}  // namespace
}  // namespace pmemids
