// One benchmark name over implementations for different device kinds: `ironbench run gemm`
// runs OpenBLAS on the CPU and cuBLASLt/hipBLASLt on GPUs, with one set of results.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/benchmark.hpp"

namespace ironbench::benchmarks {

class per_device_benchmark final : public core::benchmark {
 public:
  /// Each device is handled by the first implementation whose unsupported_reason is empty.
  per_device_benchmark(std::string name, std::string summary,
                       std::vector<std::unique_ptr<core::benchmark>> implementations);

  [[nodiscard]] std::string name() const override { return name_; }
  [[nodiscard]] std::string summary() const override { return summary_; }
  [[nodiscard]] std::string unsupported_reason(const core::device_info& device) const override;
  [[nodiscard]] std::vector<core::axis> axes(const core::device_info& device) const override;
  void check_params(const core::parameter_set& params, const core::device_info& device) const override;
  [[nodiscard]] std::uint64_t memory_required(const core::parameter_set& params,
                                              const core::device_info& device) const override;
  void run(core::case_state& state) const override;
  [[nodiscard]] bool in_default_suite() const override;
  [[nodiscard]] bool in_first_look(const core::parameter_set& params, const core::device_info& device) const override;
  [[nodiscard]] std::string first_look_summary(const core::device_info& device) const override;
  [[nodiscard]] core::case_cost cost(const core::parameter_set& params, const core::device_info& device) const override;
  [[nodiscard]] core::case_footprint footprint(const core::parameter_set& params,
                                               const core::device_info& device) const override;

 private:
  [[nodiscard]] const core::benchmark& implementation_for(const core::device_info& device) const;

  std::string name_;
  std::string summary_;
  std::vector<std::unique_ptr<core::benchmark>> implementations_;
};

}  // namespace ironbench::benchmarks
