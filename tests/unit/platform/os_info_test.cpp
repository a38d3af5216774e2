#include <gtest/gtest.h>

#include "platform/os_info.hpp"
#include "platform/software_info.hpp"
#include "scenarios.hpp"

namespace ironbench::platform {
namespace {

TEST(OsInfo, ParsesOsReleaseQuotedOrNot) {
  const auto values = parse_os_release(
      "# comment\nPRETTY_NAME=\"Ubuntu 22.04.4 LTS\"\nID=ubuntu\nVERSION_ID='22.04'\n"
      "garbage\n=x\nEMPTY=\n");
  EXPECT_EQ(values.at("PRETTY_NAME"), "Ubuntu 22.04.4 LTS");
  EXPECT_EQ(values.at("ID"), "ubuntu");
  EXPECT_EQ(values.at("VERSION_ID"), "22.04");
  EXPECT_EQ(values.at("EMPTY"), "");
  EXPECT_EQ(values.count("garbage"), 0u);
}

TEST(OsInfo, DetectsScenarios) {
  auto os = detect_os(sysfs_reader(test::scenario_root("podman_v1")));
  EXPECT_EQ(os.kernel_release, "4.18.0-553.el8_10.x86_64");
  EXPECT_EQ(os.pretty_name, "Rocky Linux 8.10 (Green Obsidian)");
  EXPECT_EQ(os.id, "rocky");  // quoted in the file
  EXPECT_EQ(os.version_id, "8.10");
  EXPECT_EQ(os.architecture, compiled_architecture());
  os = detect_os(sysfs_reader(test::scenario_root("container_in_vm")));
  EXPECT_EQ(os.id, "debian");
  EXPECT_EQ(os.version_id, "12");
}

TEST(OsInfo, CompiledArchitecture) {
#if defined(__x86_64__)
  EXPECT_EQ(compiled_architecture(), "x86_64");
#elif defined(__aarch64__)
  EXPECT_EQ(compiled_architecture(), "aarch64");
#endif
}

TEST(MemoryInfo, ReadsMeminfoInBytes) {
  auto m = detect_memory(sysfs_reader(test::scenario_root("container_in_vm")));
  EXPECT_EQ(m.total_bytes, 24684092ull * 1024);
  EXPECT_EQ(m.available_bytes, 24407720ull * 1024);
  EXPECT_EQ(m.huge_page_size_bytes, 2048ull * 1024);
  m = detect_memory(sysfs_reader(test::scenario_root("aarch64_host")));
  EXPECT_EQ(m.huge_page_size_bytes, 512ull << 20);
}

TEST(MemoryInfo, EmptyRoot) {
  test::temp_dir dir;
  const auto m = detect_memory(sysfs_reader(dir.path()));
  EXPECT_FALSE(m.total_bytes);
  EXPECT_FALSE(m.available_bytes);
  const auto os = detect_os(sysfs_reader(dir.path()));
  EXPECT_EQ(os.kernel_release, "");
  EXPECT_EQ(os.pretty_name, "");
}

TEST(SoftwareInfo, OpenmpNames) {
  EXPECT_EQ(openmp_version_name(201511), "4.5 (201511)");
  EXPECT_EQ(openmp_version_name(201811), "5.0 (201811)");
  EXPECT_EQ(openmp_version_name(199999), "(199999)");
}

TEST(SoftwareInfo, DetectsCompilerAndLibraries) {
  auto sw = detect_software(false);
  EXPECT_FALSE(sw.compiler.empty());
  EXPECT_EQ(sw.glibc, "");  // only for a live root
#if defined(__GLIBC__)
  EXPECT_FALSE(detect_software(true).glibc.empty());
#endif
  sw.add_library("openblas", "0.3.20");
  sw.add_library("openblas", "0.3.21 (OpenMP)");
  sw.add_library("nccl", "2.21.5");
  ASSERT_EQ(sw.libraries.size(), 2u);
  EXPECT_EQ(sw.libraries[0].second, "0.3.21 (OpenMP)");
}

}  // namespace
}  // namespace ironbench::platform
