#include <gtest/gtest.h>

#include "platform/cpu_info.hpp"
#include "platform/proc_cpuinfo.hpp"
#include "scenarios.hpp"

namespace ironbench::platform {
namespace {

cpu_info cpu_of(const std::string& scenario) { return detect_cpu(sysfs_reader(test::scenario_root(scenario))); }

TEST(ProcCpuinfo, ParsesX86) {
  const auto info = parse_proc_cpuinfo(
      "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n"
      "model name\t: AMD EPYC\nstepping\t: 1\ncpu MHz\t\t: 2596.120\nphysical id\t: 0\n"
      "core id\t\t: 0\nflags\t\t: fpu sse2 avx2\n\nprocessor\t: 1\nvendor_id\t: Other\n"
      "cpu MHz\t\t: 1.0\nphysical id\t: 0\ncore id\t\t: 1\n");
  EXPECT_EQ(info.vendor, "AuthenticAMD");  // first block wins
  EXPECT_EQ(info.model_name, "AMD EPYC");
  EXPECT_EQ(info.family, 26);
  EXPECT_EQ(info.model, 2);
  EXPECT_EQ(info.stepping, 1);
  ASSERT_TRUE(info.cpu_mhz);
  EXPECT_DOUBLE_EQ(*info.cpu_mhz, 2596.12);
  EXPECT_EQ(info.flags, (std::vector<std::string>{"fpu", "sse2", "avx2"}));
  ASSERT_EQ(info.processors.size(), 2u);
  EXPECT_EQ(info.processors[1].processor, 1);
  EXPECT_EQ(info.processors[1].core_id, 1);
  EXPECT_EQ(info.processors[1].physical_id, 0);
}

TEST(ProcCpuinfo, ParsesAarch64WithoutModelName) {
  const auto info = parse_proc_cpuinfo(
      "processor\t: 0\nBogoMIPS\t: 2100.00\nFeatures\t: fp asimd sve bf16\n"
      "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU part\t: 0xd40\nCPU revision\t: 1\n");
  EXPECT_EQ(info.vendor, "ARM");
  EXPECT_EQ(info.model_name, "ARM Neoverse-V1");
  EXPECT_EQ(info.arm_part, 0xd40);
  EXPECT_FALSE(info.family);
  EXPECT_FALSE(info.cpu_mhz);
  EXPECT_EQ(info.flags, (std::vector<std::string>{"fp", "asimd", "sve", "bf16"}));
  const auto unknown = parse_proc_cpuinfo("processor : 0\nCPU implementer : 0x99\nCPU part : 0x1\n");
  EXPECT_EQ(unknown.vendor, "implementer 0x99");
  EXPECT_EQ(unknown.model_name, "implementer 0x99 part 0x001");
}

TEST(ProcCpuinfo, ToleratesGarbage) {
  const auto info = parse_proc_cpuinfo("no colon here\n:\nprocessor : x\ncpu family : ?\n\n");
  EXPECT_TRUE(info.processors.empty());
  EXPECT_FALSE(info.family);
  EXPECT_TRUE(parse_proc_cpuinfo("").vendor.empty());
}

TEST(CacheSize, ParsesSysfsSizes) {
  EXPECT_EQ(parse_cache_size("48K"), 49152u);
  EXPECT_EQ(parse_cache_size("32768K"), 33554432u);
  EXPECT_EQ(parse_cache_size("1M"), 1048576u);
  EXPECT_EQ(parse_cache_size("2G"), 2147483648u);
  EXPECT_EQ(parse_cache_size("512"), 512u);
  EXPECT_EQ(parse_cache_size("48 KB\n"), 49152u);
  EXPECT_EQ(parse_cache_size("1MiB"), 1048576u);
  for (const char* bad : {"", "K", "48X", "48KK", "-1K", "1.5M", "99999999999999999999G"}) {
    EXPECT_EQ(parse_cache_size(bad), std::nullopt) << bad;
  }
}

TEST(CpuFrequency, ParsesModelName) {
  EXPECT_EQ(parse_model_name_mhz("Intel(R) Xeon(R) CPU E5-2680 v3 @ 2.50GHz"), 2500.0);
  EXPECT_EQ(parse_model_name_mhz("Some CPU @ 800MHz"), 800.0);
  EXPECT_EQ(parse_model_name_mhz("AMD EPYC 9554 64-Core Processor"), std::nullopt);
  EXPECT_EQ(parse_model_name_mhz("@ fast"), std::nullopt);
}

TEST(CpuFrequency, NominalPrefersMaxThenMeasuredThenBaseThenCpuinfo) {
  cpu_frequency f;
  EXPECT_FALSE(f.nominal().mhz);
  EXPECT_EQ(f.nominal().source, "");
  f.cpuinfo_mhz = 2596.12;
  EXPECT_EQ(f.nominal().source, "cpuinfo");
  f.base_mhz = 2100;
  f.base_source = "model name";
  EXPECT_EQ(f.nominal().source, "model name");
  f.measured_mhz = 3150;
  EXPECT_EQ(f.nominal().mhz, 3150.0);
  EXPECT_EQ(f.nominal().source, "measured");
  f.max_mhz = 3400;
  EXPECT_EQ(f.nominal().mhz, 3400.0);
  EXPECT_EQ(f.nominal().source, "cpufreq max");
}

TEST(DetectCpu, BareMetalTwoSocketIntel) {
  const auto cpu = cpu_of("bare_metal_2socket");
  EXPECT_EQ(cpu.vendor, "GenuineIntel");
  EXPECT_EQ(cpu.model_name, "Intel(R) Xeon(R) Gold 6430");
  EXPECT_EQ(cpu.family, 6);
  EXPECT_EQ(cpu.model, 143);
  EXPECT_EQ(cpu.stepping, 8);
  const auto& t = cpu.topology;
  EXPECT_EQ(t.logical_cpus, 8);
  EXPECT_EQ(t.sockets, 2);
  EXPECT_EQ(t.physical_cores, 4);
  EXPECT_EQ(t.threads_per_core, 2);
  EXPECT_EQ(t.numa_nodes, 2);
  EXPECT_EQ(t.physical_cores_in({0, 4}), 1);  // two threads of one core
  EXPECT_EQ(t.physical_cores_in({0, 1, 2, 3}), 4);
  ASSERT_EQ(cpu.caches.size(), 4u);
  EXPECT_EQ(cpu.caches[0].label(), "L1d");
  EXPECT_EQ(cpu.caches[0].size_bytes, 49152u);
  EXPECT_EQ(cpu.caches[0].instances, 4);
  EXPECT_EQ(cpu.caches[1].label(), "L1i");
  EXPECT_EQ(cpu.caches[2].label(), "L2");
  EXPECT_EQ(cpu.caches[2].total_bytes, 4u * 2097152u);
  EXPECT_EQ(cpu.caches[3].label(), "L3");
  EXPECT_EQ(cpu.caches[3].type, "Unified");
  EXPECT_EQ(cpu.caches[3].size_bytes, 62914560u);
  EXPECT_EQ(cpu.caches[3].instances, 2);
  EXPECT_EQ(cpu.last_level_cache_bytes_total, 125829120u);
  EXPECT_TRUE(cpu.isa.avx512f);
  EXPECT_TRUE(cpu.isa.amx_bf16);
  EXPECT_TRUE(cpu.isa.amx_tile);
  EXPECT_FALSE(cpu.isa.neon);
  EXPECT_EQ(cpu.frequency.max_mhz, 3400.0);
  EXPECT_EQ(cpu.frequency.base_mhz, 2100.0);
  EXPECT_EQ(cpu.frequency.base_source, "cpufreq base");
  EXPECT_EQ(cpu.frequency.cpuinfo_mhz, 2100.0);
  EXPECT_EQ(cpu.frequency.frequency_source, "cpufreq max");
}

TEST(DetectCpu, KvmGuestWithoutCpufreq) {
  const auto cpu = cpu_of("kvm_vm");
  EXPECT_EQ(cpu.vendor, "AuthenticAMD");
  EXPECT_EQ(cpu.family, 0x19);
  EXPECT_EQ(cpu.topology.logical_cpus, 4);
  EXPECT_EQ(cpu.topology.sockets, 1);
  EXPECT_EQ(cpu.topology.physical_cores, 4);
  EXPECT_EQ(cpu.topology.threads_per_core, 1);
  EXPECT_EQ(cpu.topology.numa_nodes, 1);
  EXPECT_EQ(cpu.last_level_cache_bytes_total, 33554432u);
  EXPECT_TRUE(cpu.has_flag("hypervisor"));
  EXPECT_FALSE(cpu.frequency.max_mhz);
  EXPECT_FALSE(cpu.frequency.base_mhz);
  EXPECT_EQ(cpu.frequency.cpuinfo_mhz, 3099.998);
  EXPECT_EQ(cpu.frequency.frequency_source, "cpuinfo");
}

TEST(DetectCpu, TopologyFromCpuinfoWhenSysfsHasNone) {
  const auto docker = cpu_of("docker_pinned");
  EXPECT_EQ(docker.topology.logical_cpus, 64);
  EXPECT_EQ(docker.topology.sockets, 2);
  EXPECT_EQ(docker.topology.physical_cores, 32);
  EXPECT_EQ(docker.topology.threads_per_core, 2);
  EXPECT_EQ(docker.topology.numa_nodes, 1);
  EXPECT_TRUE(docker.caches.empty());
  EXPECT_FALSE(docker.last_level_cache_bytes_total);
  EXPECT_EQ(docker.frequency.base_mhz, 2900.0);
  EXPECT_EQ(docker.frequency.frequency_source, "model name");

  const auto podman = cpu_of("podman_v1");  // no online file either: count the processors
  EXPECT_EQ(podman.topology.logical_cpus, 12);
  EXPECT_EQ(podman.topology.sockets, 1);
  EXPECT_EQ(podman.topology.physical_cores, 6);
  EXPECT_EQ(podman.topology.threads_per_core, 2);
  EXPECT_EQ(podman.topology.physical_cores_in({0, 1, 2, 3, 8, 9, 10, 11}), 6);
  EXPECT_FALSE(podman.isa.avx512f);
  EXPECT_TRUE(podman.isa.avx2 && podman.isa.fma);
}

TEST(DetectCpu, ContainerInVmLikeThisMachine) {
  const auto cpu = cpu_of("container_in_vm");
  EXPECT_EQ(cpu.model_name, "AMD EPYC");
  EXPECT_EQ(cpu.family, 0x1a);
  EXPECT_EQ(cpu.model, 2);
  EXPECT_EQ(cpu.topology.physical_cores, 2);
  ASSERT_EQ(cpu.caches.size(), 4u);
  EXPECT_EQ(cpu.caches[0].instances, 2);
  EXPECT_EQ(cpu.caches[3].instances, 1);
  EXPECT_EQ(cpu.caches[3].size_bytes, 33554432u);
  EXPECT_EQ(cpu.last_level_cache_bytes_total, 33554432u);
  EXPECT_TRUE(cpu.isa.avx512_bf16);
  EXPECT_FALSE(cpu.isa.amx_bf16);
  EXPECT_EQ(cpu.frequency.cpuinfo_mhz, 2596.12);
}

TEST(DetectCpu, Aarch64) {
  const auto cpu = cpu_of("aarch64_host");
  EXPECT_EQ(cpu.vendor, "ARM");
  EXPECT_EQ(cpu.model_name, "ARM Neoverse-V1");
  EXPECT_FALSE(cpu.family);
  EXPECT_EQ(cpu.topology.logical_cpus, 4);
  EXPECT_EQ(cpu.topology.sockets, 1);
  EXPECT_FALSE(cpu.topology.physical_cores);
  EXPECT_TRUE(cpu.isa.neon);
  EXPECT_TRUE(cpu.isa.sve);
  EXPECT_FALSE(cpu.isa.sve2);
  EXPECT_TRUE(cpu.isa.bf16);
  EXPECT_FALSE(cpu.isa.sse2);
  EXPECT_FALSE(cpu.frequency.nominal().mhz);
}

TEST(DetectCpu, EmptyRootKnowsNothing) {
  test::temp_dir dir;
  const auto cpu = detect_cpu(sysfs_reader(dir.path()));
  EXPECT_TRUE(cpu.vendor.empty());
  EXPECT_FALSE(cpu.topology.logical_cpus);
  EXPECT_FALSE(cpu.topology.sockets);
  EXPECT_FALSE(cpu.topology.numa_nodes);
  EXPECT_TRUE(cpu.caches.empty());
  EXPECT_FALSE(cpu.last_level_cache_bytes_total);
  EXPECT_TRUE(cpu.frequency.frequency_source.empty());
}

TEST(DetectCpu, MalformedSysfsIsSkipped) {
  test::temp_dir dir;
  dir.write("sys/devices/system/cpu/online", "garbage");
  dir.write("sys/devices/system/cpu/cpu0/topology/core_id", "x");
  dir.write("sys/devices/system/cpu/cpu0/topology/physical_package_id", "-1");
  dir.write("sys/devices/system/cpu/cpu0/cache/index0/level", "1");
  dir.write("sys/devices/system/cpu/cpu0/cache/index0/type", "Data");
  dir.write("sys/devices/system/cpu/cpu0/cache/index0/size", "lots");
  dir.write("sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "0");
  const auto cpu = detect_cpu(sysfs_reader(dir.path()));
  EXPECT_EQ(cpu.topology.logical_cpus, 1);  // from the cpu0 directory
  EXPECT_FALSE(cpu.topology.physical_cores);
  EXPECT_TRUE(cpu.caches.empty());
  EXPECT_FALSE(cpu.frequency.max_mhz);
}

}  // namespace
}  // namespace ironbench::platform
