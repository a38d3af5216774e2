// What a benchmark sees while one case runs: its parameters and device, the work it declares,
// the measurement it asks for, and the verdict of its verification.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>

#include "core/device_info.hpp"
#include "core/measurement.hpp"
#include "core/parameter_set.hpp"
#include "core/result.hpp"
#include "core/time_window.hpp"

namespace ironbench::core {

/// A theoretical peak to compare a rate against, and where it came from.
struct peak_rate {
  double per_second = 0;  ///< FLOP/s or bytes/s
  std::string source;     ///< "2 cores x 2596 MHz x 32 FLOP/cycle (Zen 5)", "H100 SXM datasheet"
};

class case_state {
 public:
  case_state(const parameter_set& params, const device_info& device, const measurement_settings& settings,
             const std::atomic<bool>* cancel);

  [[nodiscard]] const parameter_set& params() const { return params_; }
  [[nodiscard]] const device_info& device() const { return device_; }
  [[nodiscard]] const measurement_settings& settings() const { return settings_; }
  /// Settings this case measures with; a benchmark may tighten them (e.g. >= 200 reps).
  [[nodiscard]] measurement_settings& mutable_settings() { return settings_; }

  /// Work of ONE repetition of the measured body. Rates derive from these.
  void add_flops(double flops) { work_.flops += flops; }
  void add_bytes_read(double bytes) { work_.bytes_read += bytes; }
  void add_bytes_written(double bytes) { work_.bytes_written += bytes; }

  /// Peaks to report "% of peak" against (optional).
  void set_peak_flops(peak_rate peak) { peak_flops_ = std::move(peak); }
  void set_peak_bandwidth(peak_rate peak) { peak_bandwidth_ = std::move(peak); }

  /// Runs the measurement loop over `work`. Call once per case.
  void measure(const timed_iterations& work);
  /// Shorthand: host-clock timing of a synchronous body.
  void measure_host(std::function<void()> body);
  /// When measure() began and ended (warm-up included), once it has run: what telemetry
  /// reports for the case is taken over this window, not over setup and checking.
  [[nodiscard]] const std::optional<time_window>& measured_window() const { return measured_window_; }

  /// Marks the case invalid with `reason` (its numbers are kept but flagged untrustworthy).
  void fail_verification(std::string reason);
  /// Calls fail_verification(reason) when `ok` is false.
  void require(bool ok, const std::string& reason);

  /// Ends the case as skipped (throws skip_case, caught by the runner).
  [[noreturn]] void skip(const std::string& reason) const;

  void add_metric(metric m) { metrics_.push_back(std::move(m)); }
  void note(const std::string& key, std::string value) { notes_[key] = std::move(value); }

  [[nodiscard]] bool cancelled() const;

  /// Builds the case's result: timing, derived rates (from the median and from the fastest
  /// sample), % of peak, benchmark metrics and notes.
  [[nodiscard]] case_result finish(std::string benchmark) const;

 private:
  const parameter_set& params_;
  const device_info& device_;
  measurement_settings settings_;
  const std::atomic<bool>* cancel_;
  work_declaration work_;
  std::optional<measurement> timing_;
  std::optional<time_window> measured_window_;
  std::optional<peak_rate> peak_flops_;
  std::optional<peak_rate> peak_bandwidth_;
  std::vector<metric> metrics_;
  std::map<std::string, std::string> notes_;
  std::string invalid_reason_;
};

}  // namespace ironbench::core
