#include "benchmarks/tp/tp_kernels.hpp"

#include "device/gpu/gpu_check.hpp"

namespace ironbench::benchmarks {
namespace {

__global__ void relu_kernel(float* data, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    data[i] = data[i] > 0.0f ? data[i] : 0.0f;
  }
}

}  // namespace

void gpu_relu(float* data, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t wanted = (n + 255) / 256;
  const unsigned blocks = static_cast<unsigned>(wanted < 65536 ? wanted : 65536);
  relu_kernel<<<blocks, 256, 0, stream>>>(data, n);
  IRONBENCH_GPU_CHECK(cudaGetLastError());
}

}  // namespace ironbench::benchmarks
