// The body shared by the importer fuzz targets (import_*_fuzz.cpp): the input is a file's text
// given to one row of the importer table (src/results/importer_table.hpp), as `ironbench
// import FORMAT FILE` reads it. usage_error (not this format, a bad value) is an expected
// answer; any other exception escaping is a finding (the importers promise a one-line error,
// never a library's exception). Aborts when an import succeeds with no case, a case without
// a benchmark, or a metric that is not a finite number, and when a case the import calls valid
// has derived figures that contradict the figures they derive from (`check`, each target's
// cross-checks, written here again from the tools' definitions rather than calling the
// importers' own: docs/results-format.md, "Numbers that contradict their own file").
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "core/result.hpp"
#include "results/importer_table.hpp"

namespace ironbench::fuzz {

/// The value of metric `name` of `c`, when it has one.
inline std::optional<double> metric_of(const core::case_result& c, const std::string& name) {
  const auto* m = c.find_metric(name);
  return m == nullptr ? std::nullopt : std::optional<double>(m->value);
}

/// Whether `stated` is at most `bound`, within `relative` x |bound| + `absolute`.
inline bool at_most(double stated, double bound, double relative, double absolute) {
  return stated <= bound + relative * std::abs(bound) + absolute;
}

/// Whether `a` and `b` agree within `relative` x |b| + `absolute`.
inline bool near(double a, double b, double relative, double absolute) {
  return std::abs(a - b) <= relative * std::abs(b) + absolute;
}

inline void import_one_input(std::string_view format, const std::uint8_t* data, std::size_t size,
                             const std::function<void(const core::case_result&)>& check = {}) {
  static const results::importer* const row = results::find_importer(format);
  if (row == nullptr) std::abort();
  const std::string text(reinterpret_cast<const char*>(data), size);
  results::import_options options;
  options.collective = "all_reduce";  // what `import nccl-tests --collective` adds when the output names none
  try {
    const auto cases = row->cases(text, "fuzz-input.txt", options);
    if (cases.empty()) std::abort();
    for (const auto& c : cases) {
      if (c.benchmark.empty()) std::abort();
      for (const auto& m : c.metrics) {
        if (m.name.empty() || !std::isfinite(m.value)) std::abort();
      }
      if (check && c.status == core::case_status::valid) check(c);
    }
  } catch (const usage_error&) {
  }
}

}  // namespace ironbench::fuzz
