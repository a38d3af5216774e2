#include "telemetry/gpu_sampler.hpp"

namespace ironbench::telemetry {

gpu_sampler::gpu_sampler(std::shared_ptr<const gpu_telemetry_device> device, std::chrono::milliseconds interval)
    : device_(std::move(device)), interval_(interval), start_(std::chrono::steady_clock::now()) {
  thread_ = std::thread([this] { loop(); });
}

gpu_sampler::~gpu_sampler() { (void)stop(); }

void gpu_sampler::loop() {
  std::unique_lock lock(mutex_);
  auto next = std::chrono::steady_clock::now();
  while (!stopping_) {
    lock.unlock();
    auto s = device_->sample();
    s.time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    lock.lock();
    samples_.push_back(s);
    next += interval_;
    wake_.wait_until(lock, next, [this] { return stopping_; });
  }
}

std::vector<gpu_sample> gpu_sampler::stop() {
  {
    std::lock_guard lock(mutex_);
    if (!thread_.joinable()) return {};
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  auto last = device_->sample();
  last.time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::lock_guard lock(mutex_);
  samples_.push_back(last);
  return std::move(samples_);
}

}  // namespace ironbench::telemetry
