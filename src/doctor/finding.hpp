// What a check of `ironbench doctor` found: how bad it is, what was read, which results it
// likely affects, and what to do about it.
#pragma once

#include <string>
#include <vector>

#include "core/json.hpp"

namespace ironbench::doctor {

enum class severity {
  info,      ///< worth knowing; results are not expected to suffer
  warning,   ///< results may be lower or noisier than the machine can give
  critical,  ///< results are expected to be far below what the machine can give
};

[[nodiscard]] const char* to_string(severity level);

struct finding {
  std::string check;  ///< the check's id ("blas_kernels")
  severity level = severity::warning;
  std::string summary;   ///< one line: what is wrong
  std::string evidence;  ///< what was read ("openblas_get_corename() = Prescott; CPU has avx512f")
  /// The benchmarks whose results it likely affects ("gemm", "stream", "collectives",
  /// "serve", "train", "tp-infer"), or "all".
  std::vector<std::string> affects;
  std::string device;  ///< the device it concerns ("cuda:0"); empty: the host
  std::string fix;     ///< what to do
};

/// A finding of a check (its `check` is set by diagnose()).
[[nodiscard]] finding make_finding(severity level, std::string summary, std::string evidence,
                                   std::vector<std::string> affects, std::string fix, std::string device = "");

[[nodiscard]] json to_json(const finding& f);
[[nodiscard]] finding finding_from_json(const json& j);

/// Whether `f` concerns a case of `benchmark` on `device`.
[[nodiscard]] bool affects_case(const finding& f, const std::string& benchmark, const std::string& device);

}  // namespace ironbench::doctor
