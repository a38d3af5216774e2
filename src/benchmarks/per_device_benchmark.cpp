#include "benchmarks/per_device_benchmark.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

namespace ironbench::benchmarks {

per_device_benchmark::per_device_benchmark(std::string name, std::string summary,
                                           std::vector<std::unique_ptr<core::benchmark>> implementations)
    : name_(std::move(name)), summary_(std::move(summary)), implementations_(std::move(implementations)) {}

std::string per_device_benchmark::unsupported_reason(const core::device_info& device) const {
  std::vector<std::string> reasons;
  for (const auto& impl : implementations_) {
    auto reason = impl->unsupported_reason(device);
    if (reason.empty()) return {};
    if (std::find(reasons.begin(), reasons.end(), reason) == reasons.end()) reasons.push_back(std::move(reason));
  }
  if (reasons.empty()) return fmt::format("no {} implementation in this build", name_);
  return fmt::format("{}", fmt::join(reasons, "; "));
}

const core::benchmark& per_device_benchmark::implementation_for(const core::device_info& device) const {
  for (const auto& impl : implementations_) {
    if (impl->unsupported_reason(device).empty()) return *impl;
  }
  throw error(fmt::format("{}: {}", name_, unsupported_reason(device)));
}

std::vector<core::axis> per_device_benchmark::axes(const core::device_info& device) const {
  return implementation_for(device).axes(device);
}

void per_device_benchmark::check_params(const core::parameter_set& params, const core::device_info& device) const {
  implementation_for(device).check_params(params, device);
}

std::uint64_t per_device_benchmark::memory_required(const core::parameter_set& params,
                                                    const core::device_info& device) const {
  return implementation_for(device).memory_required(params, device);
}

void per_device_benchmark::run(core::case_state& state) const { implementation_for(state.device()).run(state); }

bool per_device_benchmark::in_first_look(const core::parameter_set& params, const core::device_info& device) const {
  return implementation_for(device).in_first_look(params, device);
}

std::string per_device_benchmark::first_look_summary(const core::device_info& device) const {
  return implementation_for(device).first_look_summary(device);
}

core::case_cost per_device_benchmark::cost(const core::parameter_set& params, const core::device_info& device) const {
  return implementation_for(device).cost(params, device);
}

core::case_footprint per_device_benchmark::footprint(const core::parameter_set& params,
                                                     const core::device_info& device) const {
  return implementation_for(device).footprint(params, device);
}

bool per_device_benchmark::in_default_suite() const {
  return std::any_of(implementations_.begin(), implementations_.end(),
                     [](const auto& impl) { return impl->in_default_suite(); });
}

}  // namespace ironbench::benchmarks
