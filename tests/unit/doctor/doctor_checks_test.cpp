// Each check of `ironbench doctor` on facts made to show its problem, and on facts where it
// must stay silent.
#include <gtest/gtest.h>

#include <algorithm>

#include "doctor/checks.hpp"
#include "doctor/collective_checks.hpp"
#include "doctor/cpu_checks.hpp"
#include "doctor/gpu_checks.hpp"
#include "doctor/hardware_error_checks.hpp"

namespace ironbench::doctor {
namespace {

doctor_facts avx512_host() {
  doctor_facts f;
  f.cpu.model = "Intel(R) Xeon(R) Processor";
  f.cpu.isa = vector_isa::avx512;
  f.cpu.online_cpus = 8;
  return f;
}

std::vector<std::string> checks_of(const std::vector<finding>& findings) {
  std::vector<std::string> ids;
  for (const auto& f : findings) ids.push_back(f.check);
  return ids;
}

TEST(DoctorChecks, OpenBlasFallingBackToOlderKernelsIsNamed) {
  auto f = avx512_host();
  f.blas = blas_facts{"openblas", "Prescott", "OpenBLAS 0.3.21 DYNAMIC_ARCH"};
  f.environment["OPENBLAS_CORETYPE"] = "Prescott";
  auto found = check_blas_kernels(f);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].level, severity::critical);  // SSE kernels on AVX-512: three levels down
  EXPECT_NE(found[0].evidence.find("openblas_get_corename() = Prescott (SSE kernels)"), std::string::npos);
  EXPECT_NE(found[0].evidence.find("OPENBLAS_CORETYPE=Prescott is set"), std::string::npos);
  EXPECT_NE(found[0].fix.find("OPENBLAS_CORETYPE=SkylakeX"), std::string::npos);
  EXPECT_EQ(found[0].affects, std::vector<std::string>{"gemm"});

  f.blas->core_name = "Haswell";  // AVX2 on AVX-512: one level down
  found = check_blas_kernels(f);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].level, severity::warning);

  for (const char* right : {"SkylakeX", "CooperLake", "SAPPHIRERAPIDS", "ARMV8", ""}) {
    f.blas->core_name = right;
    EXPECT_TRUE(check_blas_kernels(f).empty()) << right;
  }
  f.cpu.isa = vector_isa::avx2;
  f.blas->core_name = "Zen";
  EXPECT_TRUE(check_blas_kernels(f).empty());
}

TEST(DoctorChecks, GovernorBoostSmtNumaBalancingAndHugePages) {
  auto f = avx512_host();
  EXPECT_TRUE(diagnose(f).empty());  // nothing known, nothing said

  f.cpu.governors = {"powersave"};
  f.cpu.boost = false;
  f.cpu.boost_source = "/sys/devices/system/cpu/intel_pstate/no_turbo";
  f.cpu.smt_active = true;
  f.cpu.smt_control = "on";
  f.cpu.numa_balancing = 1;
  f.cpu.numa_nodes = 2;
  f.cpu.transparent_hugepages = "never";
  const auto found = diagnose(f);
  EXPECT_EQ(checks_of(found), (std::vector<std::string>{"cpu_governor", "cpu_boost", "numa_balancing",
                                                        "transparent_hugepages", "smt"}));  // warnings before info
  EXPECT_NE(found[1].fix.find("intel_pstate/no_turbo"), std::string::npos);

  f.cpu.governors = {"performance"};
  f.cpu.boost = true;
  f.cpu.smt_active = false;
  f.cpu.numa_balancing = 1;
  f.cpu.numa_nodes = 1;  // balancing has nothing to move between
  f.cpu.transparent_hugepages = "madvise";
  EXPECT_TRUE(diagnose(f).empty());
  f.cpu.governors = {"performance", "schedutil"};
  ASSERT_EQ(check_cpu_governor(f).size(), 1U);
  EXPECT_EQ(check_cpu_governor(f)[0].level, severity::info);
}

TEST(DoctorChecks, CpusetQuotaAndMemory) {
  auto f = avx512_host();
  f.cpu.cpuset_cpus = 4;
  f.cpu.cpu_quota_cores = 2.0;
  auto found = check_cpu_allowance(f);
  ASSERT_EQ(found.size(), 2U);
  EXPECT_NE(found[0].summary.find("4 of the machine's 8 CPUs"), std::string::npos);
  EXPECT_NE(found[1].summary.find("quota of 2.00 CPUs on 4 usable CPUs"), std::string::npos);
  f.cpu.cpuset_cpus = 8;
  f.cpu.cpu_quota_cores = 8.0;
  EXPECT_TRUE(check_cpu_allowance(f).empty());

  f.cpu.memory_available_bytes = 16ull << 30;
  f.memory_needed_bytes = 20ull << 30;
  found = check_memory(f);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].level, severity::critical);
  f.cpu.cgroup_memory_limit_bytes = 8ull << 30;  // the smaller limit counts
  f.memory_needed_bytes = 7ull << 30;
  found = check_memory(f);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].level, severity::warning);
  EXPECT_NE(found[0].summary.find("the cgroup memory limit"), std::string::npos);
  f.memory_needed_bytes = 1ull << 30;
  EXPECT_TRUE(check_memory(f).empty());
}

TEST(DoctorChecks, StealOfAFewTicksIsNoFinding) {
  auto f = avx512_host();
  // A 0.2 s run on two vCPUs: 40 ticks, one of them stolen (2.5 %): rounding, not a finding.
  f.window = run_window_facts{0.2, 0.025, 0, 20, 0, 1};
  EXPECT_TRUE(check_steal(f).empty());
  f.window = run_window_facts{0.2, 0.225, 0, 20, 0, 9};  // 9 of 40 ticks: still under 10 ticks
  EXPECT_TRUE(check_steal(f).empty());
  // The same share over a longer window is a finding: 10 of 400 ticks.
  f.window = run_window_facts{2, 0.025, 0, 20, 0, 10};
  const auto found = check_steal(f);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].level, severity::warning);
  EXPECT_NE(found[0].summary.find("2.5 %"), std::string::npos) << found[0].summary;
}

TEST(DoctorChecks, StealAndThrottlingDuringTheRun) {
  auto f = avx512_host();
  f.window = run_window_facts{30, 0.05, 120, 300, 4.5, 300};
  auto found = diagnose(f);
  EXPECT_EQ(checks_of(found), (std::vector<std::string>{"cgroup_throttling", "steal"}));  // 40 % throttled: critical
  EXPECT_EQ(found[0].level, severity::critical);
  EXPECT_EQ(found[1].level, severity::warning);
  EXPECT_NE(found[1].summary.find("5.0 %"), std::string::npos);
  f.window = run_window_facts{30, 0.001, 0, 300, 0, 6};
  EXPECT_TRUE(diagnose(f).empty());
}

TEST(DoctorChecks, GpuClocksHeldBackDuringACaseAreNamedWithTheReasons) {
  doctor_facts f;
  f.gpus.push_back({"cuda:0", "nvidia", "0000:1B:00.0", {}, {}, {}, {}, {}, json{{"sm_clock_max_mhz", 1980}}});
  const auto telemetry = [](double mean, std::vector<std::string> reasons) {
    return json{{"sm_clock_mhz", {{"mean", mean}, {"max", mean}}}, {"throttle_reasons", reasons}};
  };
  f.cases = json::array(
      {{{"benchmark", "gemm"}, {"device", "cuda:0"}, {"telemetry", telemetry(1400, {"sw_power_cap"})}},
       {{"benchmark", "gemm"}, {"device", "cuda:0"}, {"telemetry", telemetry(1500, {"sw_power_cap"})}},
       {{"benchmark", "stream"}, {"device", "cuda:0"}, {"telemetry", telemetry(1200, {"hw_slowdown"})}},
       {{"benchmark", "collectives"}, {"device", "cuda:0"}, {"telemetry", telemetry(900, {"gpu_idle"})}},
       {{"benchmark", "tp_infer"}, {"device", "cuda:0"}, {"telemetry", telemetry(1900, {"sw_power_cap"})}}});
  const auto found = check_gpu_clocks(f);
  ASSERT_EQ(found.size(), 2U);  // idle and 96 % are not findings
  EXPECT_EQ(found[0].affects, std::vector<std::string>{"gemm"});
  EXPECT_EQ(found[0].level, severity::warning);
  EXPECT_NE(found[0].summary.find("71 % of its maximum SM clock during 2 case(s) of gemm, held back by sw_power_cap"),
            std::string::npos)
      << found[0].summary;
  EXPECT_EQ(found[1].level, severity::critical);  // a hardware slowdown
  EXPECT_TRUE(affects_case(found[1], "stream", "cuda:0"));
  EXPECT_FALSE(affects_case(found[1], "stream", "cuda:1"));
}

TEST(DoctorChecks, GpuHealthAndSettingsFromTheManagementLibrary) {
  doctor_facts f;
  gpu_facts g;
  g.id = "cuda:0";
  g.vendor = "nvidia";
  g.management = {{"power_limit_w", 500.0},        {"default_power_limit_w", 700.0}, {"ecc_uncorrected_volatile", 3},
                  {"remapped_rows_pending", true}, {"remapping_failed", false},      {"persistence_mode", "disabled"},
                  {"mig_mode", "enabled"}};
  f.gpus.push_back(g);
  EXPECT_EQ(checks_of(diagnose(f)),
            (std::vector<std::string>{"power_limit", "memory_errors", "memory_errors", "persistence", "partitions"}));
  f.gpus[0].management = {{"power_limit_w", 700.0},        {"default_power_limit_w", 700.0},
                          {"ecc_uncorrected_volatile", 0}, {"remapped_rows_pending", false},
                          {"persistence_mode", "enabled"}, {"mig_mode", "disabled"},
                          {"compute_partition", "SPX"},    {"memory_partition", "NPS1"}};
  EXPECT_TRUE(diagnose(f).empty());
  f.gpus[0].management["compute_partition"] = "CPX";
  ASSERT_EQ(check_partitions(f).size(), 1U);
  EXPECT_NE(check_partitions(f)[0].summary.find("CPX compute, NPS1 memory"), std::string::npos);
}

TEST(DoctorChecks, PcieLinkNumaAndIommu) {
  doctor_facts f;
  gpu_facts g;
  g.id = "cuda:0";
  g.pci_bus_id = "0000:1b:00.0";
  g.link_width = 8;
  g.max_link_width = 16;
  g.link_speed_gts = 2.5;
  g.max_link_speed_gts = 32;
  g.numa_node = 1;
  f.gpus.push_back(g);
  f.nics.push_back({"mlx5_0", 0, true});
  f.nics.push_back({"eth0", 1, false});  // not RDMA: not a GPUDirect path
  f.iommu = "translated";
  f.iommu_evidence = "cuda:0's IOMMU group type is DMA-FQ";
  const auto found = diagnose(f);
  EXPECT_EQ(checks_of(found), (std::vector<std::string>{"pcie_link", "gpu_nic_numa", "iommu", "pcie_link"}));
  EXPECT_EQ(found[3].level, severity::info);  // a lower speed may be an idle GPU's

  f.gpus[0].link_width = 16;
  f.gpus[0].link_speed_gts = 32;
  f.nics.push_back({"mlx5_1", 1, true});
  f.iommu = "passthrough";
  EXPECT_TRUE(diagnose(f).empty());
  f.gpus.clear();  // no GPU: the IOMMU does not matter here
  f.iommu = "translated";
  EXPECT_TRUE(diagnose(f).empty());
}

TEST(DoctorChecks, CollectiveEnvironmentAndRanksPerNode) {
  doctor_facts f;
  f.environment = {
      {"NCCL_P2P_DISABLE", "1"}, {"NCCL_IB_DISABLE", "0"}, {"NCCL_DEBUG", "INFO"}, {"NCCL_SOCKET_IFNAME", "eth0"}};
  f.ranks_per_node = {8, 8, 4};
  const auto found = diagnose(f);
  EXPECT_EQ(checks_of(found),
            (std::vector<std::string>{"collective_environment", "ranks_per_node", "collective_environment"}));
  EXPECT_NE(found[0].summary.find("NCCL_P2P_DISABLE=1"), std::string::npos);
  EXPECT_NE(found[1].summary.find("3 nodes (4 to 8 per node)"), std::string::npos);
  f.environment = {{"NCCL_P2P_DISABLE", "0"}, {"NCCL_SOCKET_IFNAME", "eth0"}};
  f.ranks_per_node = {8, 8};
  EXPECT_TRUE(diagnose(f).empty());
}

// The counters that rose during a run: critical for uncorrected errors and hardware XIDs, a
// warning for corrected errors, replays and application XIDs, nothing for flat counters or
// counters that fell (a driver reload).
TEST(DoctorChecks, HardwareErrorsThatRoseDuringTheRun) {
  doctor_facts f;
  EXPECT_TRUE(check_hardware_errors(f).empty());  // outside a run
  telemetry::error_delta d;
  d.resets.push_back({"cuda:0", "pcie_replays", telemetry::error_class::link_replay, 9, 0});
  f.hardware_errors = telemetry::to_json(d);
  EXPECT_TRUE(check_hardware_errors(f).empty());
  d.rises.push_back({"cuda:0", "ecc_corrected_volatile", telemetry::error_class::corrected, 1, 3});
  d.xids["cuda:1"] = {13};
  f.hardware_errors = telemetry::to_json(d);
  auto found = check_hardware_errors(f);
  ASSERT_EQ(found.size(), 2U);
  EXPECT_EQ(found[0].level, severity::warning);
  EXPECT_EQ(found[0].device, "cuda:0");
  EXPECT_EQ(found[0].evidence, "ecc_corrected_volatile 1 -> 3");
  EXPECT_EQ(found[1].level, severity::warning);
  d.rises.push_back({"cuda:0", "ecc_uncorrected_volatile", telemetry::error_class::uncorrected, 0, 1});
  d.xids["cuda:1"] = {13, 79};
  found = hardware_error_findings(d, "during the burn-in");
  ASSERT_EQ(found.size(), 2U);
  EXPECT_EQ(found[0].level, severity::critical);
  EXPECT_NE(found[0].summary.find("uncorrected errors during the burn-in"), std::string::npos) << found[0].summary;
  EXPECT_EQ(found[1].level, severity::critical);
  EXPECT_EQ(found[1].evidence, "XID 13, 79");
}

TEST(DoctorChecks, TheTableHasEveryCheckOnceAndFindingsRoundTrip) {
  std::vector<std::string> ids;
  for (const auto& c : doctor_checks()) ids.emplace_back(c.id);
  auto sorted = ids;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
  EXPECT_EQ(ids.size(), 21U);
  finding f{"pcie_link", severity::critical, "s", "e", {"collectives"}, "cuda:1", "x"};
  const auto back = finding_from_json(to_json(f));
  EXPECT_EQ(to_json(back), to_json(f));
}

}  // namespace
}  // namespace ironbench::doctor
