// Devices slower than their peers: the same case measured on several devices of one model (the
// GPUs of a node), each device's headline rate against the median of the others'. A slow GPU
// among eight is named with the rule that judged it, as `ironbench validate` judges a
// measurement against its expectation (its default WARN and FAIL ratios).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "core/result.hpp"

namespace ironbench::core {

/// A device's ratio to its peers is judged WARN below `warn_below` and FAIL below
/// `fail_below` (validate's defaults, validate/expected_values.hpp).
struct spread_rules {
  double warn_below = 0.9;
  double fail_below = 0.75;
};

/// One device slower than its peers: its worst case, and how many of its cases were slow.
struct slow_device {
  std::string device;
  std::string verdict;             ///< "WARN" or "FAIL"
  std::string case_label;          ///< "gemm provider=cublaslt dtype=bf16 M=8192 N=8192 K=8192"
  std::string metric;              ///< "tflops"
  std::string unit;                ///< "TFLOP/s"
  double value = 0;                ///< the device's
  double peers_median = 0;         ///< the median of the other devices' values for the same case
  double ratio = 0;                ///< value / peers_median
  std::size_t peers = 0;           ///< the other devices that measured the case
  std::size_t slow_cases = 0;      ///< its cases below warn_below
  std::size_t compared_cases = 0;  ///< its cases that other devices measured too
};

/// The devices of `run` slower than their peers, worst first. Cases are compared where the
/// same benchmark and parameters were measured valid on at least two devices of the same kind
/// and name (from run.devices; by kind alone when the run lists none), on their first metric
/// (a rate: higher is better).
[[nodiscard]] std::vector<slow_device> slow_devices(const run_result& run, const spread_rules& rules = {});

[[nodiscard]] json to_json(const slow_device& slow);

/// "cuda:3 FAIL: gemm ... at 0.70 of the other 7 devices' median (512 vs 731 TFLOP/s), 12 of
/// 20 cases below 0.9".
[[nodiscard]] std::string describe(const slow_device& slow, const spread_rules& rules = {});

}  // namespace ironbench::core
