// Helpers shared by the platform tests: fake trees under tests/data/platform (scenarios) and
// temporary directories for trees built at run time.
#pragma once

#include <filesystem>
#include <string>

#include "platform/host_fingerprint.hpp"
#include "temp_dir.hpp"

namespace ironbench::platform::test {

/// tests/data/platform/<scenario>
inline std::filesystem::path scenario_root(const std::string& scenario) {
  return std::filesystem::path(IRONBENCH_TEST_DATA) / "platform" / scenario;
}

inline cpuid_probe bare_metal_cpuid() { return {true, false, ""}; }
inline cpuid_probe kvm_cpuid() { return {true, true, "KVMKVMKVM"}; }
inline cpuid_probe no_cpuid() { return {false, false, ""}; }

/// The probe each scenario was written for.
inline cpuid_probe scenario_cpuid(const std::string& scenario) {
  if (scenario == "kvm_vm" || scenario == "container_in_vm") return kvm_cpuid();
  if (scenario == "aarch64_host") return no_cpuid();
  return bare_metal_cpuid();
}

inline host_fingerprint detect_scenario(const std::string& scenario) {
  probe_sources sources;
  sources.root = scenario_root(scenario);
  sources.cpuid = scenario_cpuid(scenario);
  return detect_host(sources);
}

/// An empty directory, removed with its contents on destruction.
using ironbench::testing::temp_dir;

}  // namespace ironbench::platform::test
