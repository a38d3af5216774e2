// The expected values of data/expected_values.json (compiled in): per GPU model and CPU class,
// per benchmark and dtype (or STREAM kernel), a value or a fraction of the device's peak, each
// with its source. Scaled to partitions (a MIG instance, an AMD compute partition: the share of
// the chip's units the device has) and, for CPUs, to the cores a VM or cgroup gives (the peak
// model counts only those).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/device_info.hpp"
#include "core/json.hpp"
#include "core/result.hpp"
#include "validate/expectation.hpp"

namespace ironbench::validate {

/// The compiled-in data/expected_values.json.
[[nodiscard]] std::string_view expected_values_text();

/// The table, parsed and checked once (usage_error naming the entry when malformed).
[[nodiscard]] const json& expected_values();

/// The warn_below and fail_below of the table's rules.
struct verdict_rules {
  double warn_below = 0.9;
  double fail_below = 0.75;
};
[[nodiscard]] verdict_rules table_rules();

/// The expected value of `measured` (a gemm or stream case, whose tflops / bandwidth and
/// peak_percent it reads) on `device`; `cpu_isa` is the host CPU's widest vector ISA as
/// doctor::to_string(vector_isa) names it ("AVX-512", "AVX2"), as the table's "isa" does. nullopt when the table has
/// none for this device, benchmark and dtype or kernel.
[[nodiscard]] std::optional<expectation> table_expectation(const core::case_result& measured,
                                                           const core::device_info& device, const std::string& cpu_isa);

/// The metric a check judges for `benchmark` ("tflops" for gemm, "bandwidth" for stream); empty
/// for benchmarks validation does not judge by value.
[[nodiscard]] std::string judged_metric(std::string_view benchmark);

}  // namespace ironbench::validate
