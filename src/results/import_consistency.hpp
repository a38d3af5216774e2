// Numbers another tool's file states, checked against what the file's other numbers imply:
// a bandwidth against size / time, a throughput against tokens / duration, a minimum, average
// and maximum against their order. A file whose numbers contradict each other (a damaged,
// edited or made-up file) is imported, but its case is invalid with the contradiction as its
// reason, so that it is never stored, compared or reported as a valid measurement.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.hpp"

namespace ironbench::results {

/// How far a stated number may be from the one implied: |stated - implied| <= absolute +
/// relative x |implied|, for what printing rounded (nccl-tests prints 2 decimals, ...).
struct agreement {
  double relative = 0;
  double absolute = 0;
};

/// The contradictions found among one case's numbers.
class consistency_check {
 public:
  /// Checks that `stated` (called `stated_name` in the file, in `unit`) agrees with
  /// `implied`, which the file's other numbers give as `implied_from` ("8 B / 136 us").
  void agree(std::string_view stated_name, double stated, double implied, std::string_view implied_from,
             std::string_view unit, agreement within);

  /// Checks that `values` (name, value; in `unit`) do not decrease, within `within` of each
  /// other: min <= avg <= max, p50 <= p90 <= p99.
  void ordered(const std::vector<std::pair<std::string, double>>& values, std::string_view unit, agreement within = {});

  /// Checks that `stated` (called `stated_name`, in `unit`) is at most `bound`, which the
  /// file's other numbers give as `bound_from` ("the 12.5 s duration"), within `within` of it.
  void at_most(std::string_view stated_name, double stated, double bound, std::string_view bound_from,
               std::string_view unit, agreement within);

  /// Records a contradiction found otherwise ("duration 0 s with 10 requests completed").
  void contradiction(std::string text);

  /// Whether a contradiction was found.
  [[nodiscard]] bool consistent() const { return problems_.empty(); }
  /// "algbw 1e+23 GB/s contradicts 8 B / 136 us = 5.88e-05 GB/s; ...".
  [[nodiscard]] std::string reason() const;

  /// When a contradiction was found: marks a valid `c` invalid, adds reason() to its reason
  /// (after one it already has) and to notes["consistency"]. Otherwise leaves `c` as it is.
  void apply_to(core::case_result& c) const;

 private:
  std::vector<std::string> problems_;
};

}  // namespace ironbench::results
