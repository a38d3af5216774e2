// Helpers shared by the platform tests: fake trees under tests/data/platform and temporary
// directories for trees built at run time.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>

#include "platform/host_fingerprint.hpp"

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
class temp_dir {
 public:
  temp_dir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "ironbench_platform_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

  /// Writes `text` to `relative`, creating parent directories.
  void write(const std::string& relative, const std::string& text) const {
    const auto file = path_ / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file) << text;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace ironbench::platform::test
