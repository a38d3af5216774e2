#include <gtest/gtest.h>

#include "platform/cpu_peak.hpp"
#include "scenarios.hpp"

namespace ironbench::platform {
namespace {

cpu_info synthetic(const std::string& vendor, int family, int model, std::vector<std::string> flags) {
  cpu_info cpu;
  cpu.vendor = vendor;
  cpu.family = family;
  cpu.model = model;
  cpu.isa = isa_flags::from_flags(flags);
  cpu.flags = std::move(flags);
  cpu.frequency.cpuinfo_mhz = 1000;
  return cpu;
}

std::optional<double> per_cycle(const cpu_info& cpu) { return fp64_flops_per_cycle(cpu).fp64; }

TEST(CpuPeak, FlopsPerCycleTable) {
  const std::vector<std::string> avx2 = {"sse2", "avx", "avx2", "fma"};
  std::vector<std::string> avx512 = avx2;
  avx512.push_back("avx512f");
  EXPECT_EQ(per_cycle(synthetic("AuthenticAMD", 0x1a, 2, avx512)), 32.0);
  EXPECT_EQ(per_cycle(synthetic("AuthenticAMD", 0x1a, 2, avx2)), 16.0);  // generic AVX2 row
  EXPECT_EQ(per_cycle(synthetic("AuthenticAMD", 0x19, 0x11, avx512)), 16.0);
  EXPECT_EQ(per_cycle(synthetic("AuthenticAMD", 0x17, 0x31, avx2)), 16.0);  // Zen 2
  EXPECT_EQ(per_cycle(synthetic("AuthenticAMD", 0x17, 0x01, avx2)), 8.0);   // Zen 1
  EXPECT_EQ(per_cycle(synthetic("GenuineIntel", 6, 143, avx512)), 32.0);
  EXPECT_EQ(per_cycle(synthetic("GenuineIntel", 6, 158, avx2)), 16.0);
  EXPECT_EQ(per_cycle(synthetic("GenuineIntel", 6, 45, {"sse2", "avx"})), 8.0);
  EXPECT_EQ(per_cycle(synthetic("GenuineIntel", 6, 23, {"sse2"})), 4.0);
  EXPECT_EQ(per_cycle(synthetic("ARM", 0, 0, {"asimd", "sve"})), std::nullopt);
  EXPECT_NE(fp64_flops_per_cycle(synthetic("GenuineIntel", 6, 143, avx512)).description.find("2 FMA units"),
            std::string::npos);
}

TEST(CpuPeak, ContainerInVmZen5) {
  const auto host = test::detect_scenario("container_in_vm");
  EXPECT_EQ(usable_physical_cores(host), 2);
  const auto fp64 = cpu_peak_flops(host, "fp64");
  ASSERT_TRUE(fp64.flops_per_second);
  EXPECT_NEAR(*fp64.flops_per_second, 166.15168e9, 1e3);  // 2 x 2596.12 MHz x 32
  EXPECT_EQ(fp64.note, "2 cores x 2596 MHz (cpuinfo) x 32 FLOP/cycle (Zen 5, AVX-512 2x512-bit FMA)");
  EXPECT_NEAR(*cpu_peak_flops(host, "fp32").flops_per_second, 332.30336e9, 1e3);
  const auto bf16 = cpu_peak_flops(host, "bf16");
  ASSERT_TRUE(bf16.flops_per_second);
  EXPECT_NEAR(*bf16.flops_per_second, 664.60672e9, 1e3);
  EXPECT_NE(bf16.note.find("AVX512_BF16"), std::string::npos);
}

TEST(CpuPeak, BareMetalIntelUsesMaxClockAndLeavesAmxUnknown) {
  const auto host = test::detect_scenario("bare_metal_2socket");
  const auto fp64 = cpu_peak_flops(host, "fp64");
  ASSERT_TRUE(fp64.flops_per_second);
  EXPECT_NEAR(*fp64.flops_per_second, 435.2e9, 1e3);  // 4 cores x 3400 MHz x 32
  EXPECT_NE(fp64.note.find("4 cores x 3400 MHz (cpufreq max)"), std::string::npos);
  EXPECT_NEAR(*cpu_peak_flops(host, "fp32").flops_per_second, 870.4e9, 1e3);
  const auto bf16 = cpu_peak_flops(host, "bf16");
  EXPECT_FALSE(bf16.flops_per_second);
  EXPECT_NE(bf16.note.find("AMX"), std::string::npos);
}

TEST(CpuPeak, KvmGuestZen4) {
  const auto host = test::detect_scenario("kvm_vm");
  EXPECT_NEAR(*cpu_peak_flops(host, "fp64").flops_per_second, 198.399872e9, 1e3);
  EXPECT_NEAR(*cpu_peak_flops(host, "bf16").flops_per_second, 793.599488e9, 1e3);
}

TEST(CpuPeak, CountsOnlyCoresInTheCgroupCpuset) {
  const auto docker = test::detect_scenario("docker_pinned");  // cpuset 0-31 of 64
  EXPECT_EQ(usable_physical_cores(docker), 32);
  const auto fp64 = cpu_peak_flops(docker, "fp64");
  EXPECT_NEAR(*fp64.flops_per_second, 2969.6e9, 1e3);  // 32 x 2900 MHz (model name) x 32
  EXPECT_NE(fp64.note.find("(model name)"), std::string::npos);
  EXPECT_NEAR(*cpu_peak_flops(docker, "bf16").flops_per_second, 11878.4e9, 1e3);

  const auto podman = test::detect_scenario("podman_v1");  // cpuset 0-3,8-11 = all 6 cores
  EXPECT_EQ(usable_physical_cores(podman), 6);
  EXPECT_NEAR(*cpu_peak_flops(podman, "fp64").flops_per_second, 307.2e9, 1e3);
  EXPECT_FALSE(cpu_peak_flops(podman, "bf16").flops_per_second);
}

TEST(CpuPeak, UnknownWhereNotModelled) {
  const auto arm = test::detect_scenario("aarch64_host");
  for (const auto dtype : cpu_peak_dtypes) {
    const auto peak = cpu_peak_flops(arm, dtype);
    EXPECT_FALSE(peak.flops_per_second) << dtype;
    EXPECT_NE(peak.note.find("no FLOP/cycle table entry"), std::string::npos) << peak.note;
  }
  const auto host = test::detect_scenario("container_in_vm");
  EXPECT_FALSE(cpu_peak_flops(host, "fp8").flops_per_second);
  EXPECT_FALSE(cpu_peak_flops(host.cpu, std::nullopt, "fp64").flops_per_second);
  cpu_info no_clock = host.cpu;
  no_clock.frequency = {};
  EXPECT_EQ(cpu_peak_flops(no_clock, 2, "fp64").note, "CPU frequency unknown");
}

}  // namespace
}  // namespace ironbench::platform
