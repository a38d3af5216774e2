// The doctor's facts read from fake /proc and /sys trees and from a stand-in NVML, each made to
// show a problem and to show none.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "doctor/checks.hpp"
#include "doctor/gather_facts.hpp"
#include "doctor/live_facts.hpp"
#include "temp_dir.hpp"

namespace ironbench::doctor {
namespace {

// A fake root: files written below it.
class fake_root {
 public:
  void write(const std::string& relative, const std::string& text) const {
    const auto path = dir_.path() / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text << '\n';
  }
  [[nodiscard]] platform::sysfs_reader reader() const { return platform::sysfs_reader(dir_.path()); }
  [[nodiscard]] const std::filesystem::path& path() const { return dir_.path(); }

 private:
  testing::temp_dir dir_;
};

// Two CPUs with AVX-512, two NUMA nodes.
void two_cpu_host(const fake_root& root) {
  root.write(
      "proc/cpuinfo",
      "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Test CPU\nflags\t\t: sse2 avx avx2 fma avx512f\n\n"
      "processor\t: 1\nvendor_id\t: GenuineIntel\nmodel name\t: Test CPU\nflags\t\t: sse2 avx avx2 fma avx512f\n");
  root.write("sys/devices/system/cpu/online", "0-1");
  root.write("sys/devices/system/node/node0/cpulist", "0");
  root.write("sys/devices/system/node/node1/cpulist", "1");
  root.write("proc/meminfo", "MemTotal:       16384000 kB\nMemAvailable:    8192000 kB\n");
}

// Each (file, faulty text, healthy text): a tree with the fault, or without it.
using settings = std::vector<std::tuple<std::string, std::string, std::string>>;
void write_settings(const fake_root& root, const settings& files, bool faulty) {
  for (const auto& [file, bad, good] : files) root.write(file, faulty ? bad : good);
}

std::vector<std::string> found_checks(const doctor_facts& facts) {
  std::vector<std::string> ids;
  for (const auto& f : diagnose(facts)) ids.push_back(f.check);
  return ids;
}

TEST(DoctorGather, HostSettingsFromProcAndSys) {
  const settings host{
      {"sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "powersave", "performance"},
      {"sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "powersave", "performance"},
      {"sys/devices/system/cpu/cpufreq/boost", "0", "1"},
      {"sys/devices/system/cpu/smt/control", "on", "notsupported"},
      {"sys/devices/system/cpu/smt/active", "1", "0"},
      {"proc/sys/kernel/numa_balancing", "1", "0"},
      {"sys/kernel/mm/transparent_hugepage/enabled", "always madvise [never]", "always [madvise] never"}};
  fake_root root;
  two_cpu_host(root);
  write_settings(root, host, true);
  auto facts = gather_facts(root.reader(), {{"NCCL_SHM_DISABLE", "1"}, {"HOME", "/root"}}, {});
  EXPECT_EQ(facts.cpu.isa, vector_isa::avx512);
  EXPECT_EQ(facts.cpu.numa_nodes, 2);
  EXPECT_EQ(facts.cpu.memory_available_bytes, 8192000ull * 1024);
  EXPECT_EQ(facts.environment.count("HOME"), 0U);  // only the variables checks read
  EXPECT_EQ(found_checks(facts), (std::vector<std::string>{"cpu_governor", "cpu_boost", "numa_balancing",
                                                           "transparent_hugepages", "collective_environment", "smt"}));

  fake_root tuned;
  two_cpu_host(tuned);
  write_settings(tuned, host, false);
  tuned.write("sys/devices/system/cpu/intel_pstate/no_turbo", "0");  // boost from intel_pstate too
  EXPECT_TRUE(found_checks(gather_facts(tuned.reader(), {}, {})).empty());
  fake_root no_turbo;
  two_cpu_host(no_turbo);
  no_turbo.write("sys/devices/system/cpu/intel_pstate/no_turbo", "1");
  EXPECT_EQ(found_checks(gather_facts(no_turbo.reader(), {}, {})), std::vector<std::string>{"cpu_boost"});
}

TEST(DoctorGather, CgroupCpusetQuotaAndThrottlingOverAWindow) {
  fake_root root;
  two_cpu_host(root);
  root.write("proc/self/cgroup", "0::/job");
  root.write("sys/fs/cgroup/cgroup.controllers", "cpuset cpu memory");
  root.write("sys/fs/cgroup/job/cpuset.cpus.effective", "0");
  root.write("sys/fs/cgroup/job/cpu.max", "50000 100000");
  root.write("proc/stat", "cpu  1000 0 500 8000 0 0 0 100 0 0\n");
  root.write("sys/fs/cgroup/job/cpu.stat", "usage_usec 10\nnr_periods 100\nnr_throttled 5\nthrottled_usec 1000\n");
  const auto before = read_host_counters(root.reader(), 10.0);
  root.write("proc/stat", "cpu  1800 0 600 8800 0 0 0 400 0 0\n");  // 2000 ticks, 300 stolen
  root.write("sys/fs/cgroup/job/cpu.stat", "usage_usec 20\nnr_periods 200\nnr_throttled 65\nthrottled_usec 2501000\n");
  auto facts = gather_facts(root.reader(), {}, {});
  facts.window = window_between(before, read_host_counters(root.reader(), 12.0));
  EXPECT_DOUBLE_EQ(*facts.window->steal_share, 0.15);
  EXPECT_EQ(*facts.window->throttled_periods, 60);
  EXPECT_NEAR(*facts.window->throttled_s, 2.5, 1e-9);
  EXPECT_EQ(found_checks(facts),
            (std::vector<std::string>{"steal", "cgroup_throttling", "cpu_allowance", "cpu_allowance"}));

  fake_root calm;
  two_cpu_host(calm);
  calm.write("proc/stat", "cpu  1000 0 500 8000 0 0 0 100 0 0\n");
  const auto quiet_before = read_host_counters(calm.reader(), 0);
  calm.write("proc/stat", "cpu  1900 0 600 9000 0 0 0 100 0 0\n");
  auto quiet = gather_facts(calm.reader(), {}, {});
  quiet.window = window_between(quiet_before, read_host_counters(calm.reader(), 2));
  EXPECT_TRUE(found_checks(quiet).empty());
}

TEST(DoctorGather, GpuLinkNumaNicsAndIommuFromSys) {
  const std::string gpu = "sys/bus/pci/devices/0000:1b:00.0/";
  const settings sys{{gpu + "current_link_speed", "16.0 GT/s PCIe", "32.0 GT/s PCIe"},
                     {gpu + "max_link_speed", "32.0 GT/s PCIe", "32.0 GT/s PCIe"},
                     {gpu + "current_link_width", "8", "16"},
                     {gpu + "max_link_width", "16", "16"},
                     {gpu + "numa_node", "1", "1"},
                     {gpu + "iommu_group/type", "DMA-FQ", "identity"},
                     {gpu + "current_compute_partition", "CPX", "SPX"},
                     {gpu + "current_memory_partition", "NPS4", "NPS1"},
                     {"sys/class/infiniband/mlx5_0/device/numa_node", "0", "1"},
                     {gpu + "hwmon/hwmon3/power1_cap", "550000000", "750000000"},  // µW: 550 W of a 750 W default
                     {gpu + "hwmon/hwmon3/power1_cap_default", "750000000", "750000000"},
                     {gpu + "ras/umc_err_count", "ue: 1\nce: 12", "ue: 0\nce: 3"}};
  const std::vector<gpu_to_check> gpus{{"hip:0", "amd", "0000:1B:00.0", json::object()}};
  fake_root root;
  two_cpu_host(root);
  write_settings(root, sys, true);
  auto facts = gather_facts(root.reader(), {}, gpus);
  ASSERT_EQ(facts.gpus.size(), 1U);
  EXPECT_EQ(facts.gpus[0].management.value("power_limit_w", 0.0), 550.0);
  EXPECT_EQ(facts.gpus[0].management.value("ecc_uncorrected_volatile", 0), 1);
  EXPECT_EQ(facts.gpus[0].link_speed_gts, 16.0);
  EXPECT_EQ(facts.gpus[0].max_link_width, 16);
  EXPECT_EQ(facts.iommu, "translated");
  EXPECT_EQ(found_checks(facts), (std::vector<std::string>{"power_limit", "memory_errors", "pcie_link", "gpu_nic_numa",
                                                           "iommu", "pcie_link", "partitions"}));

  fake_root good;
  two_cpu_host(good);
  write_settings(good, sys, false);
  EXPECT_TRUE(found_checks(gather_facts(good.reader(), {}, gpus)).empty());
}

// The stand-in NVML (tests/fakes/fake_nvml.c) answers the health queries; FAKE_NVML_* make faults.
TEST(DoctorGather, GpuHealthThroughTheManagementLibrary) {
  setenv("IRONBENCH_NVML_LIBRARY", IRONBENCH_FAKE_NVML, 1);
  core::device_info gpu;
  gpu.id = "cuda:0";
  gpu.kind = core::device_kind::cuda;
  gpu.properties = {{"pci_bus_id", "0000:1B:00.0"}};
  const auto management = [&] {
    const auto gpus = gpus_to_check({gpu});
    return gpus.at(0).management;
  };
  const auto healthy = management();
  EXPECT_EQ(healthy.value("persistence_mode", ""), "enabled");
  EXPECT_EQ(healthy.value("default_power_limit_w", 0.0), 700.0);
  EXPECT_EQ(healthy.value("ecc_uncorrected_volatile", -1), 0);
  doctor_facts facts;
  facts.gpus.push_back({gpu.id, "nvidia", "0000:1B:00.0", {}, {}, {}, {}, {}, healthy});
  facts.gpus[0].management["mig_mode"] = "disabled";  // the stand-in reports MIG on
  EXPECT_TRUE(found_checks(facts).empty());

  setenv("FAKE_NVML_DEFAULT_POWER_LIMIT_MW", "800000", 1);
  setenv("FAKE_NVML_PERSISTENCE", "0", 1);
  setenv("FAKE_NVML_ECC_UNCORRECTED", "2", 1);
  setenv("FAKE_NVML_ROWS_PENDING", "1", 1);
  facts.gpus[0].management = management();
  for (const char* name : {"FAKE_NVML_DEFAULT_POWER_LIMIT_MW", "FAKE_NVML_PERSISTENCE", "FAKE_NVML_ECC_UNCORRECTED",
                           "FAKE_NVML_ROWS_PENDING"}) {
    unsetenv(name);
  }
  EXPECT_EQ(found_checks(facts),
            (std::vector<std::string>{"power_limit", "memory_errors", "memory_errors", "persistence", "partitions"}));
}

}  // namespace
}  // namespace ironbench::doctor
