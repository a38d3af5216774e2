// libFuzzer target of the command line's quantity parsers (src/core/units.hpp): the input is
// given to parse_size, parse_integer, parse_number and parse_duration_s. usage_error is the
// expected answer to a bad value; aborts when one accepts a value outside its contract (a
// negative size, a number or duration that is not finite, a negative duration) or a size that
// does not round-trip through the integer parser.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/error.hpp"
#include "core/units.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto bytes = ironbench::parse_size(text, "--size");
    if (bytes < 0 || ironbench::parse_integer(text, "--size") != bytes) std::abort();
  } catch (const ironbench::usage_error&) {
  }
  try {
    (void)ironbench::parse_integer(text, "--count");
  } catch (const ironbench::usage_error&) {
  }
  try {
    if (!std::isfinite(ironbench::parse_number(text, "--ratio"))) std::abort();
  } catch (const ironbench::usage_error&) {
  }
  try {
    const double seconds = ironbench::parse_duration_s(text, "--duration");
    if (!std::isfinite(seconds) || seconds < 0) std::abort();
  } catch (const ironbench::usage_error&) {
  }
  return 0;
}
