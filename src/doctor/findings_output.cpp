#include "doctor/findings_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace ironbench::doctor {

void write_findings(const std::vector<finding>& findings, std::size_t checks, std::ostream& out) {
  if (findings.empty()) {
    out << fmt::format("Doctor: no findings ({} checks)\n", checks);
    return;
  }
  out << fmt::format("Findings ({} of {} checks):\n", findings.size(), checks);
  for (const auto& f : findings) {
    std::string level = to_string(f.level);
    std::transform(level.begin(), level.end(), level.begin(), [](unsigned char c) { return std::toupper(c); });
    out << fmt::format("  {:<8} {}: {}\n", level, f.check, f.summary);
    out << fmt::format("           read:    {}\n", f.evidence);
    out << fmt::format("           affects: {}{}\n", fmt::join(f.affects, ", "),
                       f.device.empty() ? std::string() : " on " + f.device);
    out << fmt::format("           fix:     {}\n", f.fix);
  }
}

}  // namespace ironbench::doctor
