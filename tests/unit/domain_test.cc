// Choosing the persistence domain a run measures.
#include "pmem/domain.h"

#include <gtest/gtest.h>

namespace pmemids {
namespace {

TEST(Domain, AdrIsNeverEmulated) {
  for (bool platform : {false, true}) {
    const auto c = choose_domain("adr", platform);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->label(), "adr");
    EXPECT_TRUE(c->flushes());
  }
}

TEST(Domain, EadrIsEmulatedOnlyWithoutPersistentCaches) {
  EXPECT_EQ(choose_domain("eadr", false)->label(), "eadr-emulated");
  EXPECT_EQ(choose_domain("eadr", true)->label(), "eadr");
  EXPECT_FALSE(choose_domain("eadr", false)->flushes());
}

TEST(Domain, AutoFollowsThePlatform) {
  EXPECT_EQ(choose_domain("auto", false)->label(), "adr");
  EXPECT_EQ(choose_domain("auto", true)->label(), "eadr");
}

TEST(Domain, AnythingElseIsRefused) {
  EXPECT_FALSE(choose_domain("", false));
  EXPECT_FALSE(choose_domain("EADR", false));
  EXPECT_FALSE(choose_domain("eadr-emulated", false));
}

}  // namespace
}  // namespace pmemids
