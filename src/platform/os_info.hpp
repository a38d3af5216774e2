// Operating system (kernel, distribution, architecture) and memory size of the host.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "platform/sysfs_reader.hpp"

namespace ironbench::platform {

/// The operating system. Strings are empty when unknown.
struct os_info {
  std::string kernel_release;  ///< proc/sys/kernel/osrelease, e.g. "6.8.0-45-generic"
  std::string pretty_name;     ///< os-release PRETTY_NAME, e.g. "Ubuntu 22.04.4 LTS"
  std::string id;              ///< os-release ID, e.g. "ubuntu"
  std::string version_id;      ///< os-release VERSION_ID, e.g. "22.04"
  std::string architecture;    ///< what this binary was compiled for: "x86_64", "aarch64"
};

/// Physical memory as the kernel reports it (inside a container: the host's or VM's memory,
/// not the cgroup limit; see cgroup_limits). Bytes; nullopt when unknown.
struct memory_info {
  std::optional<std::uint64_t> total_bytes;           ///< MemTotal
  std::optional<std::uint64_t> available_bytes;       ///< MemAvailable
  std::optional<std::uint64_t> huge_page_size_bytes;  ///< Hugepagesize (default huge page)
};

/// Parses os-release text (KEY=value lines, values optionally single- or double-quoted)
/// into a map; comments and malformed lines are skipped.
[[nodiscard]] std::map<std::string, std::string> parse_os_release(std::string_view text);

/// The architecture this code was compiled for.
[[nodiscard]] std::string compiled_architecture();

/// Reads proc/sys/kernel/osrelease and etc/os-release (else usr/lib/os-release).
[[nodiscard]] os_info detect_os(const sysfs_reader& reader);

/// Reads proc/meminfo ("MemTotal:  24684092 kB").
[[nodiscard]] memory_info detect_memory(const sysfs_reader& reader);

}  // namespace ironbench::platform
