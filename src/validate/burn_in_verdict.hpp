// How a burn-in is judged (docs/validate.md#burn-in): the throughput of every workload over its
// intervals (a sustained drop, the spread), and the hardware error counters that rose. Pure
// functions of the measured intervals, so every bound is tested on made numbers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "telemetry/hardware_error_counters.hpp"
#include "validate/verdict.hpp"

namespace ironbench::validate {

/// The bounds of a burn-in (flags of `validate --level burn-in`).
struct burn_in_bounds {
  /// --max-drop: FAIL when the median of the last intervals is more than this fraction below
  /// the median of the first ones (a GPU or CPU that throttles as it heats, AMD RVS GST's
  /// default tolerance of 10 %).
  double max_drop = 0.10;
  /// --max-cv: FAIL when the intervals' coefficient of variation (sample standard deviation
  /// over the mean) is above this (an unsteady device: power capping, a failing fan).
  double max_cv = 0.05;
  /// --max-corrected: FAIL when the corrected error counts of a device rose by more than this
  /// over the burn-in (0: any rise fails, as DCGM diag's stress tests treat new errors).
  std::uint64_t max_corrected = 0;
};

/// usage_error unless 0 < max_drop < 1 and 0 < max_cv < 1.
void check_bounds(const burn_in_bounds& bounds);

/// How many intervals at each end are compared: a third of `intervals`, at least 1, at most 3.
[[nodiscard]] std::size_t reference_intervals(std::size_t intervals);

/// The judgement of one workload's throughput over the intervals.
struct throughput_judgement {
  verdict result = verdict::skip;
  std::string rule;
  double first_median = 0;  ///< the median of the first reference_intervals()
  double last_median = 0;   ///< the median of the last reference_intervals()
  double drop = 0;          ///< 1 - last_median / first_median
  double cv = 0;            ///< over every interval
};

/// PASS, or FAIL when the drop is above max_drop or the CV above max_cv; SKIP with fewer than
/// two intervals. `values` are the intervals' throughputs in order (all positive).
[[nodiscard]] throughput_judgement judge_throughput(const std::vector<double>& values, const burn_in_bounds& bounds);

/// The judgement of one device's error counters over the burn-in: the sum of its intervals'
/// deltas.
struct error_judgement {
  verdict result = verdict::pass;
  std::string rule;
  std::uint64_t corrected = 0;    ///< corrected counts risen
  std::uint64_t uncorrected = 0;  ///< uncorrected counts risen
  std::uint64_t other = 0;        ///< pending retirements and PCIe replays risen
  std::vector<unsigned> xids;
};

/// FAIL on any uncorrected rise or hardware XID (telemetry::hardware_xid), or corrected counts
/// risen by more than max_corrected; WARN on pending retirements, PCIe replays or other XIDs;
/// PASS otherwise. `deltas` are `device`'s changes per interval.
[[nodiscard]] error_judgement judge_errors(const std::string& device, const std::vector<telemetry::error_delta>& deltas,
                                           const burn_in_bounds& bounds);

/// Seconds from "30s", "10m", "2h", "1.5h" or "90" (seconds; core::parse_duration_s);
/// usage_error naming `flag` for anything else or a value not above 0.
[[nodiscard]] double parse_duration(const std::string& text, const std::string& flag);

}  // namespace ironbench::validate
