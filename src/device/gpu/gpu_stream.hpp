// Owning handles of a GPU stream and of events, and timing with events.
#pragma once

#include <utility>

#include "device/gpu/gpu_check.hpp"

namespace ironbench::device {

/// A non-blocking stream on the current GPU.
class gpu_stream {
 public:
  gpu_stream() { IRONBENCH_GPU_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  gpu_stream(const gpu_stream&) = delete;
  gpu_stream& operator=(const gpu_stream&) = delete;
  ~gpu_stream() { (void)cudaStreamDestroy(stream_); }

  [[nodiscard]] cudaStream_t get() const { return stream_; }
  void synchronize() const { IRONBENCH_GPU_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_{};
};

/// An event, recorded on a stream to time device work.
class gpu_event {
 public:
  gpu_event() { IRONBENCH_GPU_CHECK(cudaEventCreate(&event_)); }
  gpu_event(gpu_event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  gpu_event(const gpu_event&) = delete;
  gpu_event& operator=(const gpu_event&) = delete;
  ~gpu_event() {
    if (event_ != nullptr) (void)cudaEventDestroy(event_);
  }

  void record(cudaStream_t stream) { IRONBENCH_GPU_CHECK(cudaEventRecord(event_, stream)); }
  [[nodiscard]] cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_{};
};

/// Seconds between two recorded events (waits for `stop` to complete).
inline double elapsed_seconds(const gpu_event& start, const gpu_event& stop) {
  IRONBENCH_GPU_CHECK(cudaEventSynchronize(stop.get()));
  float ms = 0;
  IRONBENCH_GPU_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return static_cast<double>(ms) * 1e-3;
}

}  // namespace ironbench::device
