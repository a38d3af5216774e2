// The body shared by the importer fuzz targets (import_*_fuzz.cpp): the input is a file's text
// given to one row of the importer table (src/results/importer_table.hpp), as `ironbench
// import FORMAT FILE` reads it. usage_error (not this format, a bad value) is an expected
// answer; any other exception escaping is a finding (the importers promise a one-line error,
// never a library's exception). Aborts when an import succeeds with no case, a case without
// a benchmark, or a metric that is not a finite number.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "results/importer_table.hpp"

namespace ironbench::fuzz {

inline void import_one_input(std::string_view format, const std::uint8_t* data, std::size_t size) {
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
    }
  } catch (const usage_error&) {
  }
}

}  // namespace ironbench::fuzz
