// The kernel's CPU list format ("0-3,8,10-11"), used by /sys/devices/system/cpu/online,
// shared_cpu_list and the cgroup cpuset files.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ironbench::platform {

/// Largest CPU number accepted; larger values make the list malformed (guards "0-999999999").
inline constexpr int max_cpu_number = 1 << 20;

/// Parses "0-3,8,10-11" into the sorted, duplicate-free CPU numbers {0,1,2,3,8,10,11}.
/// Surrounding whitespace and a trailing newline are allowed; an empty string gives an empty
/// list. Malformed input (a reversed range, a negative or non-numeric item, a stray separator)
/// gives an empty list, never an exception.
[[nodiscard]] std::vector<int> parse_cpu_list(std::string_view text);

/// The inverse of parse_cpu_list: {0,1,2,3,8} -> "0-3,8". The input need not be sorted.
[[nodiscard]] std::string format_cpu_list(std::vector<int> cpus);

}  // namespace ironbench::platform
