// Comparing runs: the cases of every side aligned by benchmark and parameters, per case the
// ratio, the percent difference, a significance test on the repeated samples with a
// confidence interval, and a verdict; the geometric mean of the ratios per benchmark; the
// cases only one side has. docs/metrics.md ("Comparisons") defines each number.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace ironbench::results {

/// One side of a comparison: a label ("run 12", "env=vm", "ref:mi300x-...", a file name) and
/// the runs it stands for (several runs of one tag selector are pooled).
struct comparison_side {
  std::string label;
  std::vector<core::run_result> runs;
};

struct comparison_options {
  double alpha = 0.05;                      ///< significance level of the U test
  double confidence = 0.95;                 ///< of the ratio's interval
  double min_difference = 0.02;             ///< smaller significant differences still count as "same"
  bool per_device = false;                  ///< align cases by device too (else the best device is kept)
  std::string metric;                       ///< compare this metric instead of each benchmark's primary one
  std::vector<std::string> ignored_params;  ///< parameters left out of the alignment key
  /// Parameters that say how rather than what (a GEMM library): left out of the key like the
  /// device, and the best case kept, so cuBLASLt on one node aligns with hipBLASLt on another.
  std::vector<std::string> collapsed_params = {"provider"};
};

/// unstable: a side's case is unstable (core/case_stability.hpp), so its median cannot carry a
/// verdict; the speedup is still shown.
enum class verdict { same, faster, slower, unstable, not_comparable };

[[nodiscard]] const char* to_string(verdict v);

/// A side's value of one aligned case.
struct side_value {
  double value = 0;
  std::size_t cases = 0;    ///< cases pooled into this value (several runs, devices or providers)
  std::size_t samples = 0;  ///< timing samples behind it
};

/// One aligned case compared against the first side.
struct compared_case {
  std::string benchmark;
  std::string key;  ///< the aligned parameters, "dtype=bf16 M=8192 N=8192 K=8192"
  std::map<std::string, std::string> params;
  std::string metric, unit;
  bool higher_is_better = true;
  std::vector<std::optional<side_value>> values;  ///< one per side
  /// Per side after the first (index 0 unused): speedup of the side over the first (> 1: the
  /// side is better, whatever the metric's direction), percent difference of the raw metric,
  /// p value (nullopt: untested, no samples on one side), interval of the speedup, verdict.
  std::vector<double> speedup, percent;
  std::vector<std::optional<double>> p_value, speedup_low, speedup_high;
  std::vector<verdict> verdicts;
  /// Per side: why its case is unstable (empty when it is not).
  std::vector<std::string> unstable;
};

struct benchmark_summary {
  std::string benchmark;
  std::vector<double> geomean_speedup;  ///< per side (index 0 = 1)
  std::vector<std::size_t> cases;       ///< aligned cases behind each geomean
  std::vector<std::size_t> faster, slower, same, unstable;
};

struct comparison {
  std::vector<std::string> labels;
  comparison_options options;
  std::vector<compared_case> cases;  ///< present on the first side and at least one other
  std::vector<benchmark_summary> benchmarks;
  /// Per side: cases no other side has ("gemm dtype=fp8 M=... "), and why nothing aligned.
  std::vector<std::vector<std::string>> only_in;
};

/// Compares every side with the first. Throws usage_error with fewer than two sides or a
/// side without runs.
[[nodiscard]] comparison compare_sides(const std::vector<comparison_side>& sides, const comparison_options& options);

/// The metric compared for a benchmark's case when the user does not name one: the first of
/// tflops, busbw, bandwidth, bw_average, output_throughput, tokens_per_s, samples_per_s,
/// throughput, request_throughput, latency_ms, time_us that every side has; else the first
/// metric all sides share. Time-like metrics (unit s/ms/us/ns or name ending in _ms, _us, _s)
/// are better when lower.
[[nodiscard]] bool metric_higher_is_better(const std::string& name, const std::string& unit);

}  // namespace ironbench::results
