// libFuzzer target of the /metrics parser (scripts/fuzz.sh prometheus_text builds and runs it with
// AddressSanitizer and UndefinedBehaviorSanitizer). Aborts when the parser returns something
// malformed; a crash or sanitizer report is a finding.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "serve/metrics/prometheus_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto e = ironbench::serve::parse_prometheus_text(text);
  for (const auto& s : e.samples) {
    if (s.name.empty() || std::isdigit(static_cast<unsigned char>(s.name[0])) != 0) std::abort();
    if (s.series_key().size() < s.name.size()) std::abort();
    for (const auto& [key, value] : s.labels) {
      if (key.empty() || value.size() > size) std::abort();
    }
  }
  if ((e.rejected_lines == 0) != e.first_problem.empty()) std::abort();
  return 0;
}
