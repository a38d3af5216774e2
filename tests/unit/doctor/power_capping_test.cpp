// A healthy GPU under dense GEMM sits at its power limit: power capping at the default limit is
// evidence, not a finding; under a lowered limit, or with heat or hardware slowing it, it is one.
// And the findings about the CPU as a benchmark device name it, so they leave GPU cases alone.
#include <gtest/gtest.h>

#include <algorithm>

#include "doctor/checks.hpp"
#include "doctor/cpu_checks.hpp"
#include "doctor/gpu_checks.hpp"

namespace ironbench::doctor {
namespace {

// An H200 with NVML's power limits, and three GEMM cases at the clocks a healthy H200 keeps
// under dense BF16 GEMM (1240-1700 MHz of 1980 MHz), each held back by `reasons`.
doctor_facts h200_under_gemm(double limit_w, double default_w,
                             const std::vector<std::string>& reasons = {"sw_power_cap"}) {
  doctor_facts f;
  gpu_facts g;
  g.id = "cuda:0";
  g.vendor = "nvidia";
  g.management = {{"sm_clock_max_mhz", 1980}, {"power_limit_w", limit_w}, {"default_power_limit_w", default_w}};
  f.gpus.push_back(g);
  for (const double mean : {1240.0, 1410.0, 1700.0}) {
    f.cases.push_back(
        {{"benchmark", "gemm"},
         {"device", "cuda:0"},
         {"telemetry", {{"sm_clock_mhz", {{"mean", mean}, {"max", 1980}}}, {"throttle_reasons", reasons}}}});
  }
  return f;
}

std::vector<std::string> capping_checks_of(const std::vector<finding>& findings) {
  std::vector<std::string> ids;
  for (const auto& f : findings) ids.push_back(f.check);
  return ids;
}

TEST(PowerCapping, AtTheDefaultLimitIsNoFinding) {
  const auto f = h200_under_gemm(700, 700);
  EXPECT_TRUE(check_gpu_clocks(f).empty());
  EXPECT_TRUE(check_power_limit(f).empty());
  EXPECT_TRUE(diagnose(f).empty());
  // Within the 2 % that firmware rounding explains, the limit is the default.
  EXPECT_TRUE(check_gpu_clocks(h200_under_gemm(690, 700)).empty());
}

TEST(PowerCapping, UnderALoweredLimitIsAFindingThatNamesTheLimit) {
  const auto f = h200_under_gemm(500, 700);
  const auto clocks = check_gpu_clocks(f);
  ASSERT_EQ(clocks.size(), 1U);
  EXPECT_EQ(clocks[0].level, severity::warning);
  EXPECT_EQ(clocks[0].device, "cuda:0");
  EXPECT_NE(clocks[0].summary.find("63 % of its maximum SM clock during 3 case(s) of gemm, held back by sw_power_cap "
                                   "at a power limit of 500 W, below its default 700 W"),
            std::string::npos)
      << clocks[0].summary;
  EXPECT_NE(clocks[0].evidence.find("power limit 500 W, default 700 W"), std::string::npos) << clocks[0].evidence;
  EXPECT_NE(clocks[0].fix.find("raise the power limit to its default 700 W (it is 500 W)"), std::string::npos)
      << clocks[0].fix;
  // The limit is under 90 % of the default: power_limit is critical, and comes first.
  EXPECT_EQ(capping_checks_of(diagnose(f)), (std::vector<std::string>{"power_limit", "gpu_clocks"}));
}

TEST(PowerCapping, ALimitATenthOrMoreBelowTheDefaultIsCritical) {
  const auto far = check_power_limit(h200_under_gemm(500, 700));
  ASSERT_EQ(far.size(), 1U);
  EXPECT_EQ(far[0].level, severity::critical);
  EXPECT_EQ(far[0].summary, "cuda:0's power limit is 500 W, below its default 700 W");
  const auto near = check_power_limit(h200_under_gemm(650, 700));  // 93 % of the default
  ASSERT_EQ(near.size(), 1U);
  EXPECT_EQ(near[0].level, severity::warning);
  EXPECT_TRUE(check_power_limit(h200_under_gemm(690, 700)).empty());  // within the 2 % of rounding
}

TEST(PowerCapping, HeatAndHardwareSlowdownsStayFindingsAtTheDefaultLimit) {
  const auto thermal = check_gpu_clocks(h200_under_gemm(700, 700, {"sw_power_cap", "sw_thermal_slowdown"}));
  ASSERT_EQ(thermal.size(), 1U);
  EXPECT_EQ(thermal[0].level, severity::warning);
  EXPECT_NE(thermal[0].summary.find("held back by sw_power_cap, sw_thermal_slowdown"), std::string::npos);
  EXPECT_EQ(thermal[0].summary.find("below its default"), std::string::npos) << thermal[0].summary;
  EXPECT_NE(thermal[0].fix.find("improve cooling"), std::string::npos);

  const auto hardware = check_gpu_clocks(h200_under_gemm(700, 700, {"hw_slowdown"}));
  ASSERT_EQ(hardware.size(), 1U);
  EXPECT_EQ(hardware[0].level, severity::critical);
  const auto brake = check_gpu_clocks(h200_under_gemm(700, 700, {"sw_power_cap", "hw_power_brake_slowdown"}));
  ASSERT_EQ(brake.size(), 1U);
  EXPECT_EQ(brake[0].level, severity::critical);
}

TEST(PowerCapping, WithoutKnownLimitsItStaysAFinding) {
  auto f = h200_under_gemm(700, 700);
  f.gpus[0].management.erase("default_power_limit_w");
  const auto clocks = check_gpu_clocks(f);
  ASSERT_EQ(clocks.size(), 1U);
  EXPECT_NE(clocks[0].fix.find("check the power limit against its default"), std::string::npos) << clocks[0].fix;
}

TEST(CpuFindings, NameTheCpuDeviceSoTheyLeaveGpuCasesAlone) {
  doctor_facts f;
  f.cpu.model = "Intel(R) Xeon(R) Platinum 8480+";
  f.cpu.isa = vector_isa::avx512;
  f.cpu.online_cpus = 8;
  f.cpu.cpuset_cpus = 4;
  f.cpu.smt_active = true;
  f.cpu.transparent_hugepages = "never";
  f.blas = blas_facts{"openblas", "Prescott", ""};
  int named = 0;
  for (const auto& found : diagnose(f)) {
    if (found.check == "cpu_allowance" && found.summary.find("quota") != std::string::npos) continue;
    ++named;
    EXPECT_EQ(found.device, "cpu") << found.check;
    EXPECT_FALSE(affects_case(found, "gemm", "cuda:0")) << found.check;
    EXPECT_FALSE(affects_case(found, "stream", "hip:0")) << found.check;
  }
  EXPECT_EQ(named, 4);  // blas_kernels, smt, transparent_hugepages, the cpuset
  const auto blas = check_blas_kernels(f);
  ASSERT_EQ(blas.size(), 1U);
  EXPECT_TRUE(affects_case(blas[0], "gemm", "cpu"));
  EXPECT_FALSE(affects_case(blas[0], "stream", "cpu"));

  // The host's own state still concerns every device's cases.
  f.cpu.governors = {"powersave"};
  const auto governor = check_cpu_governor(f);
  ASSERT_EQ(governor.size(), 1U);
  EXPECT_TRUE(governor[0].device.empty());
  EXPECT_TRUE(affects_case(governor[0], "gemm", "cuda:0"));
}

}  // namespace
}  // namespace ironbench::doctor
