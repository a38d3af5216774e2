#include "benchmarks/gpu/gpu_fill.hpp"

#include "blas/float_formats.hpp"
#include "device/gpu/gpu_check.hpp"

namespace ironbench::benchmarks {
namespace {

__device__ std::uint64_t mix(std::uint64_t x) {  // splitmix64 finaliser
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__device__ float normal_at(std::uint64_t seed, std::size_t i) {
  const std::uint64_t bits = mix(seed * 0x2545F4914F6CDD1Dull + i);
  // Two uniforms in (0, 1] and [0, 1) from the two halves.
  const float u1 = (static_cast<float>(bits >> 40) + 1.0f) * (1.0f / 16777216.0f);
  const float u2 = static_cast<float>((bits >> 8) & 0xFFFFFFu) * (1.0f / 16777216.0f);
  return sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
}

template <typename Storage>
__global__ void fill_kernel(Storage* out, std::size_t count, std::uint64_t seed, blas::small_float_format format,
                            bool keep_fp32) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const float value = normal_at(seed, i);
    if (keep_fp32) {
      out[i] = static_cast<Storage>(__float_as_uint(value));
    } else {
      out[i] = static_cast<Storage>(blas::encode_small_float(value, format));
    }
  }
}

__global__ void set_float_kernel(float* out, float value) { *out = value; }

constexpr int fill_threads = 256;
constexpr unsigned fill_max_blocks = 65536;

template <typename Storage>
void launch_fill(void* out, std::size_t count, std::uint64_t seed, blas::small_float_format format, bool keep_fp32,
                 cudaStream_t stream) {
  const std::size_t wanted = (count + fill_threads - 1) / fill_threads;
  const unsigned blocks = static_cast<unsigned>(wanted < fill_max_blocks ? (wanted > 0 ? wanted : 1) : fill_max_blocks);
  fill_kernel<Storage><<<blocks, fill_threads, 0, stream>>>(static_cast<Storage*>(out), count, seed, format, keep_fp32);
  IRONBENCH_GPU_CHECK(cudaGetLastError());
}

}  // namespace

void gpu_fill_normal(blas::element_format format, void* out, std::size_t count, std::uint64_t seed,
                     cudaStream_t stream) {
  switch (format) {
    case blas::element_format::fp32:
      launch_fill<std::uint32_t>(out, count, seed, blas::fp16_format, true, stream);
      break;
    case blas::element_format::fp16:
      launch_fill<std::uint16_t>(out, count, seed, blas::fp16_format, false, stream);
      break;
    case blas::element_format::bf16:
      launch_fill<std::uint16_t>(out, count, seed, blas::bf16_format, false, stream);
      break;
    case blas::element_format::e4m3fn:
      launch_fill<std::uint8_t>(out, count, seed, blas::e4m3fn_format, false, stream);
      break;
    case blas::element_format::e4m3fnuz:
      launch_fill<std::uint8_t>(out, count, seed, blas::e4m3fnuz_format, false, stream);
      break;
  }
}

void gpu_set_float(float* out, float value, cudaStream_t stream) {
  set_float_kernel<<<1, 1, 0, stream>>>(out, value);
  IRONBENCH_GPU_CHECK(cudaGetLastError());
}

}  // namespace ironbench::benchmarks
