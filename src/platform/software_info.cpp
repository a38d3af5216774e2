#include "platform/software_info.hpp"

#include <fmt/format.h>
#include <array>

#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif

namespace ironbench::platform {

void software_info::add_library(std::string name, std::string version) {
  for (auto& [existing, value] : libraries) {
    if (existing == name) {
      value = std::move(version);
      return;
    }
  }
  libraries.emplace_back(std::move(name), std::move(version));
}

std::string openmp_version_name(long date) {
  static constexpr std::array<std::pair<long, const char*>, 9> versions{{
      {200505, "2.5"},
      {200805, "3.0"},
      {201107, "3.1"},
      {201307, "4.0"},
      {201511, "4.5"},
      {201811, "5.0"},
      {202011, "5.1"},
      {202111, "5.2"},
      {202411, "6.0"},
  }};
  for (const auto& [d, name] : versions) {
    if (d == date) return fmt::format("{} ({})", name, date);
  }
  return fmt::format("({})", date);
}

software_info detect_software(bool live) {
  software_info sw;
#if defined(__clang__)
  sw.compiler = fmt::format("Clang {}", __clang_version__);
#elif defined(__GNUC__)
  sw.compiler = fmt::format("GCC {}", __VERSION__);
#else
  sw.compiler = "unknown";
#endif
#if defined(_LIBCPP_VERSION)
  sw.cxx_standard_library = fmt::format("libc++ {}", _LIBCPP_VERSION);
#elif defined(__GLIBCXX__)
  sw.cxx_standard_library = fmt::format("libstdc++ {} ({})", _GLIBCXX_RELEASE, __GLIBCXX__);
#endif
#if defined(__GLIBC__)
  if (live) sw.glibc = gnu_get_libc_version();
#else
  (void)live;
#endif
#if defined(_OPENMP)
  sw.openmp = openmp_version_name(_OPENMP);
#endif
  return sw;
}

}  // namespace ironbench::platform
