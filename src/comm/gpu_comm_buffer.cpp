#include "comm/gpu_comm_buffer.hpp"

#include "device/gpu/gpu_check.hpp"
#include "device/gpu/gpu_memory.hpp"

namespace ironbench::comm {
namespace {

class device_comm_buffer final : public comm_buffer {
 public:
  // The memset and the copies run on the default stream and may still be in flight when they
  // return; other streams (NCCL's) do not wait for that stream, so each one is waited for here.
  explicit device_comm_buffer(std::size_t bytes) : memory_(bytes) {
    if (bytes > 0) IRONBENCH_GPU_CHECK(cudaMemset(memory_.data(), 0, bytes));
    IRONBENCH_GPU_CHECK(cudaDeviceSynchronize());
  }
  void* data() override { return memory_.data(); }
  std::size_t bytes() const override { return memory_.bytes(); }
  void write(std::size_t offset, const void* host, std::size_t bytes) override {
    IRONBENCH_GPU_CHECK(cudaMemcpy(memory_.data() + offset, host, bytes, cudaMemcpyHostToDevice));
    IRONBENCH_GPU_CHECK(cudaDeviceSynchronize());
  }
  void read(std::size_t offset, void* host, std::size_t bytes) const override {
    IRONBENCH_GPU_CHECK(cudaMemcpy(host, memory_.data() + offset, bytes, cudaMemcpyDeviceToHost));
  }

 private:
  device::device_buffer<std::byte> memory_;
};

}  // namespace

std::unique_ptr<comm_buffer> gpu_comm_buffer(std::size_t bytes) { return std::make_unique<device_comm_buffer>(bytes); }

void select_gpu(int index) { device::use_gpu(index); }

void gpu_copy(void* to, const void* from, std::size_t bytes) {
  IRONBENCH_GPU_CHECK(cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToDevice));
  IRONBENCH_GPU_CHECK(cudaDeviceSynchronize());
}

}  // namespace ironbench::comm
