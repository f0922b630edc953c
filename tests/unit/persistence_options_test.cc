// Resolving --domain / --flush / --movnt-threshold into a run's policy.
#include "options/persistence_options.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "ds/traits.h"
#include "errors.h"
#include "pmem/domain.h"

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

// Every domain of the table, asked by name on a platform with and without
// persistent caches: its own label (with "-emulated" exactly when it needs
// persistent caches the platform lacks), its table row's flushing, and a
// place in the domains structures may declare; auto picks the platform's.
TEST(PersistenceOptions, EveryDomainOfTheTableRoundTripsThroughItsName) {
  for (const DomainInfo& d : kDomainTable) {
    for (bool platform_eadr : {false, true}) {
      PersistenceOptions o;
      o.domain = std::string(d.name);
      const PersistencePolicy p = resolve_persistence(o, platform_eadr);
      EXPECT_EQ(p.domain.domain, d.domain) << d.name;
      const bool emulated = d.emulatable && !platform_eadr;
      EXPECT_EQ(p.domain.emulated, emulated) << d.name;
      EXPECT_EQ(p.domain.label(), std::string(d.name) + (emulated ? "-emulated" : "")) << d.name;
      EXPECT_EQ(p.domain.flushes(), d.flushes) << d.name;
      EXPECT_EQ(p.to_json()["domain"], p.domain.label()) << d.name;
    }
    EXPECT_EQ(domain_name(d.domain), d.name);
    EXPECT_TRUE(kEveryDomain.has(d.domain)) << d.name;
    const std::vector<std::string> choices = domain_choices();
    EXPECT_EQ(std::count(choices.begin(), choices.end(), d.name), 1) << d.name;
  }
  for (bool platform_eadr : {false, true}) {
    PersistenceOptions o;
    o.domain = "auto";
    const PersistencePolicy p = resolve_persistence(o, platform_eadr);
    EXPECT_EQ(p.domain.domain, platform_domain(platform_eadr));
    EXPECT_EQ(domain_info(p.domain.domain).emulatable, platform_eadr);
    EXPECT_FALSE(p.domain.emulated);
  }
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
