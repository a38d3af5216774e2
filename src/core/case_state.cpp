#include "core/case_state.hpp"

#include <fmt/format.h>

#include <chrono>

#include "core/error.hpp"

namespace ironbench::core {

case_state::case_state(const parameter_set& params, const device_info& device, const measurement_settings& settings,
                       const std::atomic<bool>* cancel)
    : params_(params), device_(device), settings_(settings), cancel_(cancel) {}

void case_state::measure(const timed_iterations& work) {
  IRONBENCH_CHECK(!timing_, "a case may be measured only once");
  const auto begin = std::chrono::steady_clock::now();
  timing_ = run_measurement(settings_, work, cancel_);
  measured_window_ = time_window{begin, std::chrono::steady_clock::now()};
}

void case_state::measure_host(std::function<void()> body) { measure(host_timed(std::move(body))); }

void case_state::fail_verification(std::string reason) {
  if (invalid_reason_.empty()) invalid_reason_ = std::move(reason);
}

void case_state::require(bool ok, const std::string& reason) {
  if (!ok) fail_verification(reason);
}

void case_state::skip(const std::string& reason) const { throw skip_case(reason); }

bool case_state::cancelled() const { return cancel_ != nullptr && cancel_->load(std::memory_order_relaxed); }

case_result case_state::finish(std::string benchmark) const {
  case_result result;
  result.benchmark = std::move(benchmark);
  result.device = device_.id;
  result.params = params_;
  result.work = work_;
  result.timing = timing_;
  result.notes = notes_;
  if (!invalid_reason_.empty()) {
    result.status = case_status::invalid;
    result.reason = invalid_reason_;
  }
  if (timing_ && timing_->time_s.count > 0 && timing_->time_s.median > 0) {
    const auto& t = timing_->time_s;
    if (work_.flops > 0) {
      result.metrics.push_back(
          {"tflops", work_.flops / t.median / 1e12, "TFLOP/s", "FLOPs per repetition / median time"});
      result.metrics.push_back(
          {"tflops_best", work_.flops / t.min / 1e12, "TFLOP/s", "FLOPs per repetition / fastest time"});
      if (peak_flops_ && peak_flops_->per_second > 0) {
        result.metrics.push_back({"peak_percent", 100.0 * work_.flops / t.median / peak_flops_->per_second, "%",
                                  "median-time rate / theoretical peak"});
        result.notes["peak"] = fmt::format("{:.4g} TFLOP/s: {}", peak_flops_->per_second / 1e12, peak_flops_->source);
      }
    }
    if (work_.bytes() > 0) {
      result.metrics.push_back(
          {"bandwidth", work_.bytes() / t.median / 1e9, "GB/s", "bytes read and written per repetition / median time"});
      result.metrics.push_back({"bandwidth_best", work_.bytes() / t.min / 1e9, "GB/s",
                                "bytes read and written per repetition / fastest time"});
      if (peak_bandwidth_ && peak_bandwidth_->per_second > 0) {
        result.metrics.push_back({"bandwidth_peak_percent",
                                  100.0 * work_.bytes() / t.median / peak_bandwidth_->per_second, "%",
                                  "median-time bandwidth / theoretical peak"});
        result.notes["peak_bandwidth"] =
            fmt::format("{:.4g} GB/s: {}", peak_bandwidth_->per_second / 1e9, peak_bandwidth_->source);
      }
    }
  }
  result.metrics.insert(result.metrics.end(), metrics_.begin(), metrics_.end());
  return result;
}

}  // namespace ironbench::core
