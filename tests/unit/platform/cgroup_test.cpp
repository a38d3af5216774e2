#include <gtest/gtest.h>

#include "platform/cgroup.hpp"
#include "scenarios.hpp"

namespace ironbench::platform {
namespace {

cgroup_limits detect(const std::filesystem::path& root) { return detect_cgroup(sysfs_reader(root)); }

TEST(Cgroup, ParsesProcCgroup) {
  const auto entries =
      parse_proc_cgroup("12:cpuset:/a\n4:cpu,cpuacct:/docker/3f\n1:name=systemd:/\n0::/\nbad line\nx:y:z\n");
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[0].hierarchy_id, 12);
  EXPECT_EQ(entries[0].controllers, (std::vector<std::string>{"cpuset"}));
  EXPECT_EQ(entries[1].controllers, (std::vector<std::string>{"cpu", "cpuacct"}));
  EXPECT_EQ(entries[1].path, "/docker/3f");
  EXPECT_EQ(entries[2].controllers, (std::vector<std::string>{"name=systemd"}));
  EXPECT_EQ(entries[3].hierarchy_id, 0);
  EXPECT_TRUE(entries[3].controllers.empty());
  EXPECT_EQ(entries[3].path, "/");
  EXPECT_TRUE(parse_proc_cgroup("").empty());
}

TEST(Cgroup, V2UnlimitedOnBareMetal) {
  const auto cg = detect(test::scenario_root("bare_metal_2socket"));
  EXPECT_EQ(cg.version, 2);
  EXPECT_EQ(cg.path, "/user.slice/user-1000.slice/session-3.scope");
  EXPECT_EQ(cg.cpuset, "0-7");  // from the root: the session has no cpuset file
  EXPECT_EQ(cg.cpuset_cpus, 8);
  EXPECT_FALSE(cg.cpu_quota_cores);
  EXPECT_FALSE(cg.memory_limit_bytes);
}

TEST(Cgroup, V2DockerPinned) {
  const auto cg = detect(test::scenario_root("docker_pinned"));
  EXPECT_EQ(cg.version, 2);
  EXPECT_EQ(cg.path, "/");
  EXPECT_EQ(cg.cpuset, "0-31");
  EXPECT_EQ(cg.cpuset_cpus, 32);
  EXPECT_EQ(cg.cpu_quota_cores, 32.0);
  EXPECT_EQ(cg.memory_limit_bytes, 274877906944u);
  EXPECT_EQ(cg.cpuset_list().size(), 32u);
}

TEST(Cgroup, V1Podman) {
  const auto cg = detect(test::scenario_root("podman_v1"));
  EXPECT_EQ(cg.version, 1);
  EXPECT_EQ(cg.path, "/machine.slice/libpod-8c1d0f.scope");  // not below the mount: root read
  EXPECT_EQ(cg.cpuset, "0-3,8-11");
  EXPECT_EQ(cg.cpuset_cpus, 8);
  EXPECT_EQ(cg.cpu_quota_cores, 4.0);
  EXPECT_EQ(cg.memory_limit_bytes, 8589934592u);
}

TEST(Cgroup, V1UnlimitedInContainerInVm) {
  const auto cg = detect(test::scenario_root("container_in_vm"));
  EXPECT_EQ(cg.version, 1);  // a hybrid host: cgroup.controllers only under unified/
  EXPECT_EQ(cg.cpuset, "0-1");
  EXPECT_EQ(cg.cpuset_cpus, 2);
  EXPECT_FALSE(cg.cpu_quota_cores);     // cfs_quota_us -1
  EXPECT_FALSE(cg.memory_limit_bytes);  // 9223372036854771712
}

TEST(Cgroup, UnknownWithoutCgroupFilesystem) {
  const auto cg = detect(test::scenario_root("aarch64_host"));
  EXPECT_FALSE(cg.version);
  EXPECT_EQ(cg.cpuset, "");
  EXPECT_FALSE(cg.cpuset_cpus);
  EXPECT_FALSE(cg.memory_limit_bytes);
}

TEST(Cgroup, V2SmallestLimitAlongThePathWins) {
  test::temp_dir dir;
  dir.write("proc/self/cgroup", "0::/outer/inner\n");
  dir.write("sys/fs/cgroup/cgroup.controllers", "cpuset cpu memory");
  dir.write("sys/fs/cgroup/cpuset.cpus.effective", "0-15");
  dir.write("sys/fs/cgroup/outer/memory.max", "1073741824");
  dir.write("sys/fs/cgroup/outer/cpu.max", "200000 100000");
  dir.write("sys/fs/cgroup/outer/inner/memory.max", "max");
  dir.write("sys/fs/cgroup/outer/inner/cpu.max", "50000 100000");
  dir.write("sys/fs/cgroup/outer/inner/cpuset.cpus.effective", "2-3\n");
  const auto cg = detect(dir.path());
  EXPECT_EQ(cg.memory_limit_bytes, 1073741824u);
  EXPECT_EQ(cg.cpu_quota_cores, 0.5);
  EXPECT_EQ(cg.cpuset, "2-3");
}

TEST(Cgroup, V1ReadsTheProcessPathWhenMounted) {
  test::temp_dir dir;
  dir.write("proc/self/cgroup", "11:memory:/jobs/42\n4:cpu,cpuacct:/jobs/42\n3:cpuset:/\n");
  dir.write("sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712");
  dir.write("sys/fs/cgroup/memory/jobs/42/memory.limit_in_bytes", "2147483648");
  dir.write("sys/fs/cgroup/cpu/jobs/42/cpu.cfs_quota_us", "150000");
  dir.write("sys/fs/cgroup/cpu/jobs/42/cpu.cfs_period_us", "100000");
  dir.write("sys/fs/cgroup/cpuset/cpuset.cpus", "0-7");
  const auto cg = detect(dir.path());
  EXPECT_EQ(cg.version, 1);
  EXPECT_EQ(cg.memory_limit_bytes, 2147483648u);
  EXPECT_EQ(cg.cpu_quota_cores, 1.5);
  EXPECT_EQ(cg.cpuset_cpus, 8);
}

TEST(Cgroup, MalformedValuesAreIgnored) {
  test::temp_dir dir;
  dir.write("proc/self/cgroup", "0::/\n");
  dir.write("sys/fs/cgroup/cgroup.controllers", "");
  dir.write("sys/fs/cgroup/cpuset.cpus.effective", "zero-three");
  dir.write("sys/fs/cgroup/memory.max", "lots");
  dir.write("sys/fs/cgroup/cpu.max", "100000");
  const auto cg = detect(dir.path());
  EXPECT_EQ(cg.version, 2);
  EXPECT_EQ(cg.cpuset, "");
  EXPECT_FALSE(cg.cpuset_cpus);
  EXPECT_FALSE(cg.memory_limit_bytes);
  EXPECT_FALSE(cg.cpu_quota_cores);
}

}  // namespace
}  // namespace ironbench::platform
