// What else ran on the host's CPUs during a measurement, from /proc/stat.
#include "platform/cpu_load.hpp"

#include <gtest/gtest.h>

#include "platform/host_load_monitor.hpp"
#include "scenarios.hpp"

namespace ironbench::platform {
namespace {

TEST(CpuLoad, ReadsTheAllCpuLineOfProcStat) {
  test::temp_dir dir;
  dir.write("proc/stat",
            "cpu  4705 150 1120 16250 520 0 30 75 0 0\ncpu0 2352 75 560 8125 260 0 15 37 0 0\nintr 1 2 3\n");
  const auto t = read_cpu_times(sysfs_reader(dir.path()));
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(t->user, 4705);
  EXPECT_DOUBLE_EQ(t->steal, 75);
  EXPECT_DOUBLE_EQ(t->total(), 4705 + 150 + 1120 + 16250 + 520 + 0 + 30 + 75);
  EXPECT_DOUBLE_EQ(t->busy(), 4705 + 150 + 1120 + 30);

  dir.write("proc/stat", "intr 1 2 3\n");
  EXPECT_FALSE(read_cpu_times(sysfs_reader(dir.path())));
  dir.write("proc/stat", "cpu  1 2 x\n");
  EXPECT_FALSE(read_cpu_times(sysfs_reader(dir.path())));
  EXPECT_FALSE(read_cpu_times(sysfs_reader(dir.path() / "none")));
}

TEST(CpuLoad, SharesOfStolenOwnAndOtherCpuTime) {
  cpu_times before, after;
  after.user = 500;    // 5 s of user time at 100 ticks per second
  after.system = 100;  // 1 s
  after.idle = 300;
  after.steal = 100;  // 1,000 ticks in all
  const auto c = competition_between(before, after, 2.0, 100);
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->steal_percent, 10);
  EXPECT_DOUBLE_EQ(c->busy_percent, 60);
  EXPECT_DOUBLE_EQ(c->others_percent, 40) << "60 % busy, of which this process's 2 s = 20 %";
  EXPECT_DOUBLE_EQ(competition_between(before, after, 50.0, 100)->others_percent, 0) << "never negative";
  EXPECT_FALSE(competition_between(after, after, 1.0, 100)) << "no tick passed: nothing known, not zero load";
  EXPECT_FALSE(competition_between(cpu_times{}, cpu_times{}, 1.0, 100)) << "a /proc/stat of zeros (some sandboxes)";
  EXPECT_GT(clock_ticks_per_second(), 0);
  EXPECT_GE(process_cpu_seconds(), 0);
  EXPECT_TRUE(read_cpu_times(sysfs_reader("/"))) << "this machine's /proc/stat";
}

TEST(HostLoadMonitor, ReportsWhatOthersAndTheHypervisorTookDuringTheCase) {
  test::temp_dir dir;
  dir.write("proc/stat", "cpu  0 0 0 1000 0 0 0 0 0 0\n");
  const core::device_info cpu{"cpu", core::device_kind::cpu, 0, "CPU", 1u << 30, json::object()};
  auto monitor = host_load_monitors(std::make_shared<const sysfs_reader>(dir.path()))(cpu);
  ASSERT_NE(monitor, nullptr);
  // Meanwhile another process ran 600 of 1,000 ticks and the hypervisor took 100.
  dir.write("proc/stat", "cpu  600 0 0 1300 0 0 0 100 0 0\n");
  const auto seen = monitor->finish();
  ASSERT_TRUE(seen.load.has_value());
  EXPECT_NEAR(seen.load->others_percent, 60, 1.0) << "less this test's own few milliseconds of CPU";
  EXPECT_DOUBLE_EQ(seen.load->steal_percent, 10);

  dir.write("proc/stat", "garbage\n");
  auto unreadable = host_load_monitors(std::make_shared<const sysfs_reader>(dir.path()))(cpu);
  EXPECT_FALSE(unreadable->finish().load.has_value());
}

}  // namespace
}  // namespace ironbench::platform
