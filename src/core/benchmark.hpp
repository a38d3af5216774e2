// The interface every benchmark implements. Adding a benchmark is one source file in
// src/benchmarks/ and one line in src/benchmarks/builtin.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/axis.hpp"
#include "core/case_cost.hpp"
#include "core/case_footprint.hpp"
#include "core/case_state.hpp"
#include "core/device_info.hpp"
#include "core/parameter_set.hpp"

namespace ironbench::core {

class benchmark {
 public:
  virtual ~benchmark() = default;

  /// Name used on the command line and in results: "gemm", "stream".
  [[nodiscard]] virtual std::string name() const = 0;
  /// One line for `ironbench list`.
  [[nodiscard]] virtual std::string summary() const = 0;

  /// Empty when the benchmark can run on `device`; otherwise why not (its cases are then
  /// recorded as skipped with this reason).
  [[nodiscard]] virtual std::string unsupported_reason(const device_info& device) const = 0;

  /// The axes and their default values on `device` (defaults may differ per device kind:
  /// CPUs get GEMM shapes they finish in seconds).
  [[nodiscard]] virtual std::vector<axis> axes(const device_info& device) const = 0;

  /// Throws usage_error when a case's parameters make no sense (a negative dimension, a size
  /// smaller than one element). Called for every case before anything runs.
  virtual void check_params(const parameter_set& /*params*/, const device_info& /*device*/) const {}

  /// Device memory one case needs, in bytes; checked before anything runs so that an
  /// impossible size is a usage error, not a crash halfway through a sweep.
  [[nodiscard]] virtual std::uint64_t memory_required(const parameter_set& /*params*/,
                                                      const device_info& /*device*/) const {
    return 0;
  }

  /// Runs one case: prepare, declare work, measure, verify.
  virtual void run(case_state& state) const = 0;

  /// Whether `ironbench run` with no benchmark named runs it.
  [[nodiscard]] virtual bool in_default_suite() const { return true; }

  /// Whether a case of the default axes' product runs when the user overrides none of this
  /// benchmark's axes on `device`: the default suite's first look may be a part of the full
  /// product (GPU GEMM: every shape in bf16 and fp8 through the Lt library, one shape in every
  /// other dtype and library). Any --axis of the benchmark runs the full product of its axes.
  [[nodiscard]] virtual bool in_first_look(const parameter_set& /*params*/, const device_info& /*device*/) const {
    return true;
  }
  /// One line for `ironbench list`: what the first look keeps of the product on `device`;
  /// empty when it is the whole product.
  [[nodiscard]] virtual std::string first_look_summary(const device_info& /*device*/) const { return {}; }

  /// The wall-time model of one case (case_cost.hpp); the default knows nothing but the
  /// measurement settings (setup 0.5 s, then up to max_time).
  [[nodiscard]] virtual case_cost cost(const parameter_set& /*params*/, const device_info& /*device*/) const {
    return {};
  }

  /// What a case occupies besides its device (case_footprint.hpp); nothing by default.
  [[nodiscard]] virtual case_footprint footprint(const parameter_set& /*params*/, const device_info& /*device*/) const {
    return {};
  }
};

}  // namespace ironbench::core
