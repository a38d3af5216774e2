#include <gtest/gtest.h>

#include <map>

#include "platform/host_fingerprint.hpp"
#include "scenarios.hpp"

namespace ironbench::platform {
namespace {

using nlohmann::json;

std::map<std::string, std::string> summary_map(const host_fingerprint& host) {
  std::map<std::string, std::string> lines;
  for (const auto& [key, text] : summary_lines(host)) lines[key] = text;
  return lines;
}

TEST(HostFingerprint, EnvironmentKindPerScenario) {
  const std::map<std::string, std::string> expected = {
      {"bare_metal_2socket", "bare_metal"},   {"kvm_vm", "vm"},
      {"docker_pinned", "container"},         {"podman_v1", "container"},
      {"container_in_vm", "container_in_vm"}, {"aarch64_host", "bare_metal"}};
  for (const auto& [scenario, kind] : expected) {
    EXPECT_EQ(test::detect_scenario(scenario).environment_kind, kind) << scenario;
  }
}

TEST(HostFingerprint, ClassifyEnvironment) {
  virtualization_info vm;
  vm.is_virtual_machine = true;
  container_info box;
  box.in_container = true;
  EXPECT_EQ(classify_environment({}, {}), "bare_metal");
  EXPECT_EQ(classify_environment(vm, {}), "vm");
  EXPECT_EQ(classify_environment({}, box), "container");
  EXPECT_EQ(classify_environment(vm, box), "container_in_vm");
}

TEST(HostFingerprint, UsableResourcesFollowTheCgroup) {
  const auto docker = test::detect_scenario("docker_pinned");
  EXPECT_EQ(docker.usable_memory_bytes(), 274877906944u);
  EXPECT_EQ(docker.usable_cpus(), 32);
  const auto podman = test::detect_scenario("podman_v1");
  EXPECT_EQ(podman.usable_memory_bytes(), 8589934592u);
  EXPECT_EQ(podman.usable_cpus(), 8);
  const auto vm = test::detect_scenario("container_in_vm");
  EXPECT_EQ(vm.usable_memory_bytes(), 24684092ull * 1024);  // v1 "unlimited"
  EXPECT_EQ(vm.usable_cpus(), 2);
  const auto arm = test::detect_scenario("aarch64_host");  // no cgroup fs: logical CPUs
  EXPECT_EQ(arm.usable_cpus(), 4);
  EXPECT_EQ(arm.usable_memory_bytes(), 8011416ull * 1024);
}

TEST(HostFingerprint, HostnameAndOs) {
  const auto host = test::detect_scenario("bare_metal_2socket");
  EXPECT_EQ(host.hostname, "r760-01");
  EXPECT_EQ(host.os.pretty_name, "Ubuntu 24.04.1 LTS");
  EXPECT_EQ(host.software.glibc, "");  // fake root: no runtime facts of this machine
  EXPECT_FALSE(host.software.compiler.empty());
}

TEST(HostFingerprint, TheNodeNameVariableOverridesTheHostName) {
  probe_sources sources;
  sources.root = test::scenario_root("bare_metal_2socket");
  sources.cpuid = test::scenario_cpuid("bare_metal_2socket");
  sources.getenv = [](const std::string& name) -> std::optional<std::string> {
    if (name == node_name_variable) return "rack3-node7";
    return std::nullopt;
  };
  EXPECT_EQ(detect_host(sources).hostname, "rack3-node7");
  sources.getenv = [](const std::string& name) -> std::optional<std::string> {
    if (name == node_name_variable) return "";
    return std::nullopt;
  };
  EXPECT_EQ(detect_host(sources).hostname, "r760-01");  // set but empty: the host name
}

TEST(HostFingerprint, EmptyRootIsAllUnknownAndDoesNotThrow) {
  test::temp_dir dir;
  probe_sources sources;
  sources.root = dir.path();
  host_fingerprint host;
  ASSERT_NO_THROW(host = detect_host(sources));
  EXPECT_EQ(host.hostname, "");
  EXPECT_EQ(host.environment_kind, "unknown");
  EXPECT_FALSE(host.usable_cpus());
  EXPECT_FALSE(host.usable_memory_bytes());
  EXPECT_FALSE(host.cgroup.version);
  const json j = to_json(host);
  EXPECT_TRUE(j["hostname"].is_null());
  EXPECT_TRUE(j["cpu"]["logical_cpus"].is_null());
  EXPECT_TRUE(j["cpu"]["caches"].is_array() && j["cpu"]["caches"].empty());
  EXPECT_TRUE(j["cpu"]["peak"]["fp64"]["flops_per_second"].is_null());
  EXPECT_TRUE(j["memory"]["total_bytes"].is_null());
  EXPECT_TRUE(j["cgroup"]["version"].is_null());
  EXPECT_TRUE(j["virtualization"]["cpuid_hypervisor_bit"].is_null());
  EXPECT_TRUE(j["container"]["cgroup_namespace_private"].is_null());
  EXPECT_NO_THROW((void)summary_lines(host));
}

TEST(HostFingerprint, JsonFieldsAndTypes) {
  const json j = to_json(test::detect_scenario("container_in_vm"));
  for (const char* key :
       {"hostname", "cpu", "memory", "os", "virtualization", "container", "cgroup", "environment_kind", "software"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  const json& cpu = j["cpu"];
  EXPECT_EQ(cpu["vendor"], "AuthenticAMD");
  EXPECT_EQ(cpu["family"], 26);
  EXPECT_TRUE(cpu["logical_cpus"].is_number_integer());
  EXPECT_EQ(cpu["physical_cores"], 2);
  EXPECT_EQ(cpu["usable_physical_cores"], 2);
  EXPECT_FALSE(cpu.contains("flags"));  // the full flag list stays out
  ASSERT_EQ(cpu["caches"].size(), 4u);
  const json& l3 = cpu["caches"][3];
  EXPECT_EQ(l3["level"], 3);
  EXPECT_EQ(l3["type"], "Unified");
  EXPECT_TRUE(l3["size_bytes"].is_number_unsigned());
  EXPECT_EQ(l3["size_bytes"], 33554432u);
  EXPECT_EQ(l3["instances"], 1);
  EXPECT_EQ(cpu["last_level_cache_bytes_total"], 33554432u);
  EXPECT_EQ(cpu["isa"]["avx512f"], true);
  EXPECT_EQ(cpu["isa"]["amx_bf16"], false);
  EXPECT_TRUE(cpu["frequency"]["max_mhz"].is_null());
  EXPECT_DOUBLE_EQ(cpu["frequency"]["cpuinfo_mhz"].get<double>(), 2596.12);
  EXPECT_EQ(cpu["frequency"]["frequency_source"], "cpuinfo");
  EXPECT_TRUE(cpu["peak"]["fp64"]["flops_per_second"].is_number_float());
  EXPECT_TRUE(cpu["peak"]["bf16"]["note"].is_string());

  EXPECT_TRUE(j["memory"]["total_bytes"].is_number_unsigned());
  EXPECT_EQ(j["memory"]["usable_bytes"], j["memory"]["total_bytes"]);
  EXPECT_EQ(j["os"]["id"], "debian");
  EXPECT_EQ(j["virtualization"]["hypervisor"], "kvm");
  EXPECT_EQ(j["virtualization"]["is_virtual_machine"], true);
  EXPECT_EQ(j["virtualization"]["cpuid_hypervisor_bit"], true);
  EXPECT_TRUE(j["virtualization"]["dmi"]["sys_vendor"].is_null());
  EXPECT_TRUE(j["virtualization"]["evidence"].is_array());
  EXPECT_EQ(j["container"]["engine"], "docker");
  EXPECT_EQ(j["container"]["orchestrator"], "none");
  EXPECT_EQ(j["cgroup"]["version"], 1);
  EXPECT_EQ(j["cgroup"]["cpuset"], "0-1");
  EXPECT_EQ(j["cgroup"]["cpuset_cpus"], 2);
  EXPECT_TRUE(j["cgroup"]["memory_limit_bytes"].is_null());
  EXPECT_EQ(j["environment_kind"], "container_in_vm");
  EXPECT_TRUE(j["software"]["libraries"].is_object());
  EXPECT_EQ(json::parse(j.dump()), j);
}

TEST(HostFingerprint, JsonLimitsAndLibraries) {
  auto host = test::detect_scenario("docker_pinned");
  host.software.add_library("openblas", "0.3.21");
  const json j = to_json(host);
  EXPECT_EQ(j["cgroup"]["memory_limit_bytes"], 274877906944u);
  EXPECT_DOUBLE_EQ(j["cgroup"]["cpu_quota_cores"].get<double>(), 32.0);
  EXPECT_EQ(j["memory"]["usable_bytes"], 274877906944u);
  EXPECT_EQ(j["software"]["libraries"]["openblas"], "0.3.21");
  EXPECT_EQ(j["container"]["cgroup_namespace_private"], true);
}

TEST(HostFingerprint, SummaryLines) {
  const auto lines = summary_map(test::detect_scenario("container_in_vm"));
  EXPECT_EQ(lines.at("CPU"), "AMD EPYC (family 0x1a model 0x2), 1 socket, 2 cores, 2 threads, 1 NUMA node");
  EXPECT_EQ(lines.at("Caches"), "L1d 48 KiB x2, L1i 32 KiB x2, L2 1 MiB x2, L3 32 MiB x1 (last level 32 MiB total)");
  EXPECT_EQ(lines.at("Memory"), "23.5 GiB total, 23.3 GiB available");
  EXPECT_EQ(lines.at("Environment"), "container_in_vm (docker; kvm)");
  EXPECT_EQ(lines.at("cgroup"), "v1, cpuset 0-1 (2 CPUs), no memory limit, no CPU quota");
  EXPECT_EQ(lines.at("CPU peak fp64"),
            "166.2 GFLOP/s (2 cores x 2596 MHz (cpuinfo) x 32 FLOP/cycle (Zen 5, AVX-512 "
            "2x512-bit FMA))");
  EXPECT_EQ(lines.at("Clock"), "2596 MHz (cpuinfo); max ?, base ?, cpuinfo 2596 MHz, measured ?");

  const auto docker = summary_map(test::detect_scenario("docker_pinned"));
  EXPECT_EQ(docker.at("cgroup"), "v2, cpuset 0-31 (32 CPUs), memory limit 256 GiB, CPU quota 32 CPUs");
  EXPECT_EQ(docker.at("CPU peak fp64").substr(0, 13), "2.97 TFLOP/s ");
  const auto arm = summary_map(test::detect_scenario("aarch64_host"));
  EXPECT_EQ(arm.at("CPU peak fp64"), "unknown (no FLOP/cycle table entry for ARM Neoverse-V1)");
  EXPECT_EQ(arm.at("CPU"), "ARM Neoverse-V1, 1 socket, ? cores, 4 threads, 1 NUMA node");
}

TEST(HostFingerprint, LiveMachineInvariants) {
  host_fingerprint host;
  ASSERT_NO_THROW(host = detect_host(live_probe_sources()));
  ASSERT_TRUE(host.cpu.topology.logical_cpus);
  EXPECT_GE(*host.cpu.topology.logical_cpus, 1);
  ASSERT_TRUE(host.memory.total_bytes);
  EXPECT_GT(*host.memory.total_bytes, 0u);
  ASSERT_TRUE(host.usable_cpus());
  EXPECT_GE(*host.usable_cpus(), 1);
  EXPECT_FALSE(host.hostname.empty());
  EXPECT_FALSE(host.os.kernel_release.empty());
  EXPECT_NE(host.environment_kind, "unknown");
  EXPECT_NO_THROW((void)to_json(host).dump());
  const auto lines = summary_lines(host);
  EXPECT_FALSE(lines.empty());
  for (const auto& [key, text] : lines) {
    std::cout << "  " << key << ": " << text << "\n";  // visible with --gtest_filter=*Live*
  }
}

}  // namespace
}  // namespace ironbench::platform
