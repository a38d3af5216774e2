// A background thread that reads one GPU's sensors at a fixed interval.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "telemetry/gpu_telemetry.hpp"

namespace ironbench::telemetry {

/// Default sampling interval (NVML refreshes most sensors every 20-100 ms).
inline constexpr std::chrono::milliseconds default_sample_interval{50};

class gpu_sampler {
 public:
  /// Starts sampling `device` now: one sample immediately, then one per `interval`.
  gpu_sampler(std::shared_ptr<const gpu_telemetry_device> device, std::chrono::milliseconds interval);
  gpu_sampler(const gpu_sampler&) = delete;
  gpu_sampler& operator=(const gpu_sampler&) = delete;
  ~gpu_sampler();

  /// When sampling began: each sample's time_s counts from here.
  [[nodiscard]] std::chrono::steady_clock::time_point started() const { return start_; }

  /// Takes a last sample, stops the thread and returns every sample in time order.
  /// Calling it again returns an empty list.
  [[nodiscard]] std::vector<gpu_sample> stop();

 private:
  void loop();

  std::shared_ptr<const gpu_telemetry_device> device_;
  std::chrono::milliseconds interval_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<gpu_sample> samples_;
  std::thread thread_;
};

}  // namespace ironbench::telemetry
