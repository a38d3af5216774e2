// PASS, WARN and FAIL: the rule each check of `ironbench validate` is judged by, and the
// summary verdict and exit code of a validation.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "validate/expectation.hpp"
#include "validate/expected_values.hpp"

namespace ironbench::validate {

/// skip: not judged (unsupported on the device, or nothing to compare with); it does not
/// change the summary.
enum class verdict { pass, warn, fail, skip };

[[nodiscard]] const char* to_string(verdict v);

/// One check of a validation.
struct check_row {
  std::string node;    ///< the host (multi-node validation); empty on one node
  std::string check;   ///< "gemm bf16 8192x8192x8192", "stream triad 1 GiB", "doctor: blas_kernels"
  std::string device;  ///< "cuda:0", "cpu"; empty for the host's checks
  std::optional<double> measured;
  std::string unit;
  std::optional<expectation> expected;
  std::optional<double> ratio;  ///< measured / expected
  verdict result = verdict::skip;
  std::string rule;  ///< how the verdict was reached ("ratio 0.82 < 0.90: WARN")
  /// What was read beside the measurement that explains it, for a GPU GEMM case its mean SM
  /// clock, mean power and power limit ("SM 1410 MHz (max 1980), 698 W of 700 W limit"); empty
  /// where there is nothing.
  std::string evidence;
};

/// The verdict of `measured` against `expected` under `rules`: PASS at or above warn_below
/// times the expectation, WARN below it, FAIL below fail_below times it. Sets ratio and rule.
void judge(check_row& row, const verdict_rules& rules);

/// The worst verdict of `rows` (skips do not count); pass when there is none.
[[nodiscard]] verdict summary_verdict(const std::vector<check_row>& rows);

/// The checks the summary verdict of `rows` comes from: each row at that verdict, as "CHECK on
/// DEVICE" (the node's "NODE: " before it), in order; empty when the verdict is PASS.
[[nodiscard]] std::vector<std::string> deciding_checks(const std::vector<check_row>& rows);

/// 0 for pass, 1 for warn, 2 for fail.
[[nodiscard]] int exit_code_of(verdict v);

[[nodiscard]] json to_json(const check_row& row);

}  // namespace ironbench::validate
