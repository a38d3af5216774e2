// Results of BabelStream (UoB-HPC/BabelStream), read from its CSV output (--csv, every
// version since 3.x) or from its console table (versions that print the element count), as
// cases shaped like ironbench's own `stream` cases.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "results/import_consistency.hpp"

namespace ironbench::results {

/// One kernel's line.
struct babelstream_row {
  std::string function;             ///< as printed: "Copy", "Mul", "Add", "Triad", "Dot", "Nstream"
  std::uint64_t num_times = 0;      ///< repetitions (-n); BabelStream drops the first from its statistics
  std::uint64_t elements = 0;       ///< elements per array (-s)
  std::uint64_t element_bytes = 0;  ///< sizeof the element type: 8 (double) or 4 (--float)
  std::string unit;  ///< of the rates: "MB" (10^6 B, the default), "MiB" (--mibibytes), "GB", "GiB", "TB", "TiB"
  std::optional<double> max_rate;         ///< the best bandwidth, in `unit` per second
  std::optional<double> min_runtime_s;    ///< fastest repetition, seconds
  std::optional<double> max_runtime_s;    ///< slowest repetition, seconds
  std::optional<double> avg_runtime_s;    ///< mean over the repetitions after the first, seconds
  std::optional<double> average_rate;     ///< --triad-only (4.x): bandwidth over the whole run, in `unit` per second
  std::optional<double> total_runtime_s;  ///< --triad-only (4.x): seconds of all repetitions together
  std::size_t line = 0;                   ///< line number in the file (1-based)
};

struct babelstream_report {
  std::string format;          ///< "csv" or "text"
  std::string version;         ///< "5.0" from the console output; empty in CSV
  std::string implementation;  ///< "OpenMP", "CUDA", ... from the console output; empty in CSV
  std::vector<babelstream_row> rows;
  std::vector<std::string> validation_errors;  ///< "Validation failed ..." lines mixed into the output
};

/// Bytes in one `unit` ("MB" -> 1e6, "MiB" -> 2^20, ...). Throws usage_error for other units.
[[nodiscard]] double babelstream_unit_bytes(const std::string& unit);

/// Parses BabelStream output. CSV: every table whose header starts with "function" (the
/// "phase" table of 5.0, initialisation and read-back, is skipped). Console: needs the
/// "Number of elements" line (BabelStream after 5.0); older console output is refused, as
/// its array size is rounded. Throws usage_error naming `source` when there are no kernel
/// rows, a row is truncated or a value is not a number.
[[nodiscard]] babelstream_report parse_babelstream(const std::string& text, const std::string& source);

/// How far apart a row's min_runtime <= avg_runtime <= max_runtime may be out of order before its
/// case is invalid: what printing rounds, 6 significant digits in CSV, 5 decimals on the console.
inline constexpr agreement babelstream_csv_time_agreement{1e-5, 0};
inline constexpr agreement babelstream_console_time_agreement{0, 1e-5};

/// One case per kernel row, as ironbench's stream cases: benchmark "stream", device "unknown"
/// (BabelStream's CSV does not name it), parameters dtype (fp64 or fp32), size (bytes per
/// array), kernel (lowercased); metrics bandwidth_best (BabelStream's best rate, GB/s =
/// 10^9 B/s) and bandwidth (bytes moved per repetition / average time, GB/s), with the bytes
/// of BabelStream's kernels: copy, mul, dot 2 arrays, add, triad 3, nstream 4. Throws
/// usage_error when a row's best rate does not match its fastest time. A row whose times are
/// out of order (an average below the minimum or above the maximum) is an invalid case with
/// the contradiction as its reason.
[[nodiscard]] std::vector<core::case_result> babelstream_cases(const babelstream_report& report,
                                                               const std::string& source);

}  // namespace ironbench::results
