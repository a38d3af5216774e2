// Software the benchmarks were built with and run against: compiler, C++ and C libraries,
// OpenMP, and an open list other modules append to (e.g. "openblas").
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ironbench::platform {

/// Versions of the software stack. Strings are empty when unknown.
struct software_info {
  std::string compiler;              ///< compiler of this binary, e.g. "GCC 12.2.0"
  std::string cxx_standard_library;  ///< e.g. "libstdc++ 12 (20220819)"
  std::string glibc;                 ///< runtime glibc version, e.g. "2.36" (live hosts only)
  std::string openmp;                ///< OpenMP of this build, e.g. "4.5 (201511)"
  /// Further libraries as (name, version) pairs, in the order they were added; other modules
  /// append here (e.g. {"openblas", "0.3.21 ..."}). Use add_library to replace by name.
  std::vector<std::pair<std::string, std::string>> libraries;

  /// Sets the version of `name`, replacing an existing entry of that name.
  void add_library(std::string name, std::string version);
};

/// Maps an _OPENMP date to "version (date)": 201511 -> "4.5 (201511)"; an unknown date gives
/// "(date)".
[[nodiscard]] std::string openmp_version_name(long date);

/// What this binary was built with; `live` adds runtime facts of this machine (glibc).
[[nodiscard]] software_info detect_software(bool live);

}  // namespace ironbench::platform
