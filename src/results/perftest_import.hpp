// Results of perftest's bandwidth tools (ib_write_bw, ib_read_bw, ib_send_bw), read from the
// text they print, so that RDMA numbers are stored and compared like ironbench's own.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "results/import_consistency.hpp"

namespace ironbench::results {

struct perftest_row {
  std::uint64_t bytes = 0;
  std::uint64_t iterations = 0;
  double peak = 0;     ///< in the report's unit
  double average = 0;  ///< in the report's unit
  double message_rate_mpps = 0;
};

struct perftest_report {
  std::string test;                               ///< "RDMA_Write", "RDMA_Read", "Send"
  bool bidirectional = false;                     ///< "... Bidirectional BW Test" (-b): rows are both directions summed
  std::string unit;                               ///< "Gb/sec" (--report_gbits), "MB/sec" or "MiB/sec" (both 2^20 B/s)
  bool peak_measured = true;                      ///< false in duration mode (-D), where perftest prints 0 as the peak
  std::string side;                               ///< "client", "server" or "unknown"
  std::map<std::string, std::string> parameters;  ///< "Device": "mlx5_0", "Number of qps": "1", ...
  std::vector<perftest_row> rows;
};

/// Gigabits per second of a value in `unit` (Gb/sec as is; MB/sec and MiB/sec are 2^20 B/s).
[[nodiscard]] double to_gbits(double value, const std::string& unit);

/// Parses one tool's output. Lines that are not part of the report (warnings, CUDA messages,
/// stderr mixed in) are ignored. Throws usage_error naming `source` when there is no title,
/// no column header, or no result row.
[[nodiscard]] perftest_report parse_perftest(const std::string& text, const std::string& source);

/// How far a row's BW average may be from MsgRate x #bytes, which perftest derives it from: 1 %
/// and 0.01 of its unit (its 2 decimals), plus what the message rate's 6 decimals round.
inline constexpr agreement perftest_rate_agreement{0.01, 0.01};

/// One case per row: benchmark "ib_write_bw" / "ib_read_bw" / "ib_send_bw", device the HCA,
/// parameters size (B), direction, qps; metrics bw_average and bw_peak (Gb/s), msg_rate (Mpps).
/// A row whose BW average contradicts MsgRate x #bytes (perftest_rate_agreement) is invalid
/// with the contradiction as its reason.
[[nodiscard]] std::vector<core::case_result> perftest_cases(const perftest_report& report, const std::string& source);

}  // namespace ironbench::results
