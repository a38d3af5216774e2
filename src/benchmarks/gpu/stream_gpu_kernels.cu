#include "benchmarks/gpu/stream_gpu_kernels.hpp"

#include "device/gpu/gpu_check.hpp"

namespace ironbench::benchmarks {
namespace {

constexpr int threads = 256;

// 16-byte vectors and their element-wise arithmetic.
template <typename T>
struct vector16;
template <>
struct vector16<float> {
  using type = float4;
  static constexpr int width = 4;
};
template <>
struct vector16<double> {
  using type = double2;
  static constexpr int width = 2;
};

__device__ inline float4 operator+(float4 x, float4 y) { return {x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w}; }
__device__ inline float4 operator*(float s, float4 x) { return {s * x.x, s * x.y, s * x.z, s * x.w}; }
__device__ inline double2 operator+(double2 x, double2 y) { return {x.x + y.x, x.y + y.y}; }
__device__ inline double2 operator*(double s, double2 x) { return {s * x.x, s * x.y}; }

// Applies `op(i, a, b, c)` to the vector i of every array, then the scalar tail.
template <typename T, typename Op>
__global__ void elementwise(T* __restrict__ a, T* __restrict__ b, T* __restrict__ c, std::size_t n, Op op) {
  using V = typename vector16<T>::type;
  constexpr int width = vector16<T>::width;
  const std::size_t vectors = n / width;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < vectors) {
    op(reinterpret_cast<V*>(a) + i, reinterpret_cast<V*>(b) + i, reinterpret_cast<V*>(c) + i);
  }
  const std::size_t tail = vectors * width + i;
  if (i < static_cast<std::size_t>(width) && tail < n) op(a + tail, b + tail, c + tail);
}

template <typename T>
__global__ void initialize(T* a, T* b, T* c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    a[i] = stream_initial_a<T>(i);
    b[i] = stream_initial_b<T>(i);
    c[i] = stream_initial_c<T>(i);
  }
}

template <typename T>
__global__ void dot_partial(const T* __restrict__ a, const T* __restrict__ b, std::size_t n, double* partial) {
  __shared__ double sums[threads];
  using V = typename vector16<T>::type;
  constexpr int width = vector16<T>::width;
  const std::size_t vectors = n / width;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  double sum = 0.0;
  const V* va = reinterpret_cast<const V*>(a);
  const V* vb = reinterpret_cast<const V*>(b);
  for (std::size_t i = first; i < vectors; i += stride) {
    const V x = va[i];
    const V y = vb[i];
    if constexpr (width == 4) {
      sum += double(x.x) * y.x + double(x.y) * y.y + double(x.z) * y.z + double(x.w) * y.w;
    } else {
      sum += double(x.x) * y.x + double(x.y) * y.y;
    }
  }
  for (std::size_t i = vectors * width + first; i < n; i += stride) sum += double(a[i]) * b[i];
  sums[threadIdx.x] = sum;
  __syncthreads();
  for (int half = threads / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half) sums[threadIdx.x] += sums[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = sums[0];
}

__global__ void dot_final(const double* partial, unsigned count, double* result) {
  __shared__ double sums[threads];
  double sum = 0.0;
  for (unsigned i = threadIdx.x; i < count; i += blockDim.x) sum += partial[i];
  sums[threadIdx.x] = sum;
  __syncthreads();
  for (int half = threads / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half) sums[threadIdx.x] += sums[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) *result = sums[0];
}

template <typename T>
struct copy_op {
  template <typename P>
  __device__ void operator()(P a, P, P c) const {
    *c = *a;
  }
};
template <typename T>
struct mul_op {
  T s;
  template <typename P>
  __device__ void operator()(P, P b, P c) const {
    *b = s * *c;
  }
};
template <typename T>
struct add_op {
  template <typename P>
  __device__ void operator()(P a, P b, P c) const {
    *c = *a + *b;
  }
};
template <typename T>
struct triad_op {
  T s;
  template <typename P>
  __device__ void operator()(P a, P b, P c) const {
    *a = *b + s * *c;
  }
};
template <typename T>
struct nstream_op {
  T s;
  template <typename P>
  __device__ void operator()(P a, P b, P c) const {
    *a = *a + (*b + s * *c);
  }
};

template <typename T, typename Op>
void launch(T* a, T* b, T* c, std::size_t n, Op op, cudaStream_t stream) {
  const std::size_t vectors = n / vector16<T>::width;
  const std::size_t wanted = (std::max<std::size_t>(vectors, vector16<T>::width) + threads - 1) / threads;
  elementwise<<<static_cast<unsigned>(wanted), threads, 0, stream>>>(a, b, c, n, op);
  IRONBENCH_GPU_CHECK(cudaGetLastError());
}

}  // namespace

template <typename T>
void gpu_stream_initialize(T* a, T* b, T* c, std::size_t n, cudaStream_t stream) {
  initialize<<<4096, threads, 0, stream>>>(a, b, c, n);
  IRONBENCH_GPU_CHECK(cudaGetLastError());
}

template <typename T>
void gpu_stream_run(stream_kernel kernel, T* a, T* b, T* c, std::size_t n, double* partial, double* dot_sum,
                    cudaStream_t stream) {
  const T s = T(stream_scalar);
  switch (kernel) {
    case stream_kernel::copy: launch(a, b, c, n, copy_op<T>{}, stream); break;
    case stream_kernel::mul: launch(a, b, c, n, mul_op<T>{s}, stream); break;
    case stream_kernel::add: launch(a, b, c, n, add_op<T>{}, stream); break;
    case stream_kernel::triad: launch(a, b, c, n, triad_op<T>{s}, stream); break;
    case stream_kernel::nstream: launch(a, b, c, n, nstream_op<T>{s}, stream); break;
    case stream_kernel::dot:
      dot_partial<<<gpu_dot_blocks, threads, 0, stream>>>(a, b, n, partial);
      IRONBENCH_GPU_CHECK(cudaGetLastError());
      dot_final<<<1, threads, 0, stream>>>(partial, gpu_dot_blocks, dot_sum);
      IRONBENCH_GPU_CHECK(cudaGetLastError());
      break;
  }
}

template void gpu_stream_initialize<float>(float*, float*, float*, std::size_t, cudaStream_t);
template void gpu_stream_initialize<double>(double*, double*, double*, std::size_t, cudaStream_t);
template void gpu_stream_run<float>(stream_kernel, float*, float*, float*, std::size_t, double*, double*, cudaStream_t);
template void gpu_stream_run<double>(stream_kernel, double*, double*, double*, std::size_t, double*, double*,
                                     cudaStream_t);

}  // namespace ironbench::benchmarks
