// run's YCSB conventions: one-dash long flags as YCSB users type them, and how
// run's options and the workload's client settings (threadcount, target,
// status.interval) combine.
#include "options/run_options.h"

#include <gtest/gtest.h>

namespace pmemids {
namespace {

std::vector<std::string> rewrite(std::vector<const char*> argv) {
  return ycsb_long_flags(static_cast<int>(argv.size()), argv.data());
}

TEST(YcsbFlags, OneDashLongFlagsGetTwo) {
  EXPECT_EQ(
      rewrite({"pmemids", "run", "-threads", "4", "-target", "100", "-P", "w", "-p", "a=1", "-s"}),
      (std::vector<std::string>{"pmemids", "run", "--threads", "4", "--target", "100", "-P", "w",
                                "-p", "a=1", "-s"}));
  EXPECT_EQ(rewrite({"pmemids", "run", "-threads=2", "--threads", "3", "-thread", "-targets"}),
            (std::vector<std::string>{"pmemids", "run", "--threads=2", "--threads", "3", "-thread",
                                      "-targets"}));
  EXPECT_EQ(rewrite({"-threads"}), (std::vector<std::string>{"-threads"}));  // argv[0] is a name
}

WorkloadSpec client_spec(std::optional<int> threadcount, std::optional<double> target,
                         std::optional<double> status) {
  WorkloadSpec s;
  s.threadcount = threadcount;
  s.target = target;
  s.status_interval = status;
  return s;
}

TEST(ClientSettings, OptionsWinOverTheWorkloadsYcsbSettings) {
  RunOptions o;
  ClientSettings c = resolve_client(o, client_spec({}, {}, {}));
  EXPECT_EQ(c.threads, 1);
  EXPECT_EQ(c.thread_mode, "single");
  EXPECT_FALSE(c.default_concurrent);
  EXPECT_EQ(c.target, 0);
  EXPECT_EQ(c.status_interval, 0);

  c = resolve_client(o, client_spec(4, 1000, 2));
  EXPECT_EQ(c.threads, 4);
  EXPECT_EQ(c.threads_from, "threadcount=4");
  EXPECT_EQ(c.thread_mode, "concurrent");  // more than one thread, no --thread-mode: as YCSB
  EXPECT_TRUE(c.default_concurrent);
  EXPECT_EQ(c.target, 1000);
  EXPECT_EQ(c.status_interval, 2);

  o.threads = 2;
  o.thread_mode = "parallel";
  o.target = 0;  // --target 0: unthrottled, whatever the workload says
  o.status_interval = 0.5;
  c = resolve_client(o, client_spec(4, 1000, 2));
  EXPECT_EQ(c.threads, 2);
  EXPECT_EQ(c.threads_from, "--threads 2");
  EXPECT_EQ(c.thread_mode, "parallel");
  EXPECT_FALSE(c.default_concurrent);
  EXPECT_EQ(c.target, 0);
  EXPECT_EQ(c.status_interval, 0.5);
}

TEST(ClientSettings, DashSTurnsStatusOnAtStatusIntervalElseTenSeconds) {
  RunOptions o;
  o.status = true;
  EXPECT_EQ(resolve_client(o, client_spec({}, {}, {})).status_interval, kDefaultStatusInterval);
  EXPECT_EQ(resolve_client(o, client_spec({}, {}, 3)).status_interval, 3);
}

}  // namespace
}  // namespace pmemids
