// The result cases of tp_infer: what one timed model (tensor-parallel or on one device)
// measured, and the case_result it is reported as.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "benchmarks/tp/tp_model.hpp"
#include "core/result.hpp"

namespace ironbench::benchmarks {

/// The forward passes of one model.
struct tp_timing {
  std::vector<double> samples_s;  ///< this rank's forward passes
  double latency_s = 0;           ///< slowest rank's mean forward
  double gather_s = 0;            ///< slowest rank's mean gather
};

/// What the check of one model's output found.
struct tp_check {
  std::size_t wrong = 0;  ///< wrong elements (one more when Z differs between ranks)
  std::string detail;     ///< the first problem
};

/// The case of `shape` timed as `t` in `mode` ("tensor_parallel" or "single_device") on
/// `device` (its id), invalid when `check` found wrong elements.
[[nodiscard]] core::case_result tp_infer_case(const tp_shape& shape, const char* mode, const tp_timing& t,
                                              const tp_check& check, int iterations, const std::string& device);

/// Adds speedup (single / tensor-parallel latency) and efficiency (speedup / ranks) to the
/// tensor-parallel case `tp`.
void add_tp_speedup(core::case_result& tp, double single_latency_s, double tp_latency_s, int ranks);

}  // namespace ironbench::benchmarks
