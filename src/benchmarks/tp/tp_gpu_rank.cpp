#include "benchmarks/tp/tp_gpu_rank.hpp"

#include <chrono>

#include "benchmarks/tp/tp_kernels.hpp"
#include "blas/gpu/gpu_gemm.hpp"
#include "device/gpu/gpu_check.hpp"
#include "device/gpu/gpu_memory.hpp"
#include "device/gpu/gpu_stream.hpp"

namespace ironbench::benchmarks {

struct tp_gpu_rank::state {
  tp_shape shape;
  int gpu;
  device::gpu_stream stream;
  // Row-major device matrices. The GEMMs take their right-hand side stored transposed
  // (N x K, as nn.Linear keeps weights): W1's shard as w x H, W2 as H x F.
  device::device_buffer<float> x, w1_t, w2_t, partial, gathered, activations, z;
  std::unique_ptr<blas::gpu_gemm> first, second;

  state(const tp_shape& s, int rank, int device_index)
      : shape(s),
        gpu(device_index),
        x(static_cast<std::size_t>(s.batch * s.hidden)),
        w1_t(static_cast<std::size_t>(s.shard() * s.hidden)),
        w2_t(static_cast<std::size_t>(s.hidden * s.ffn())),
        partial(static_cast<std::size_t>(s.batch * s.shard())),
        gathered(static_cast<std::size_t>(s.batch * s.ffn())),
        activations(static_cast<std::size_t>(s.batch * s.ffn())),
        z(static_cast<std::size_t>(s.batch * s.hidden)) {
    const auto b = s.batch, h = s.hidden, f = s.ffn(), w = s.shard();
    std::vector<float> host(static_cast<std::size_t>(b * h));
    for (std::int64_t i = 0; i < b; ++i) {
      for (std::int64_t j = 0; j < h; ++j) host[static_cast<std::size_t>(i * h + j)] = tp_input(i, j, s);
    }
    upload(x, host);
    host.assign(static_cast<std::size_t>(w * h), 0.0f);
    for (std::int64_t j = 0; j < w; ++j) {
      for (std::int64_t i = 0; i < h; ++i) {
        host[static_cast<std::size_t>(j * h + i)] = tp_w1(i, static_cast<std::int64_t>(rank) * w + j, s);
      }
    }
    upload(w1_t, host);
    host.assign(static_cast<std::size_t>(h * f), 0.0f);
    for (std::int64_t c = 0; c < h; ++c) {
      for (std::int64_t j = 0; j < f; ++j) host[static_cast<std::size_t>(c * f + j)] = tp_w2(j, c, s);
    }
    upload(w2_t, host);
    // A copy from pageable memory may return before it lands; the GEMMs' stream does not wait.
    IRONBENCH_GPU_CHECK(cudaDeviceSynchronize());
    first = prepared(b, w, h, x.data(), w1_t.data(), partial.data());
    second = prepared(b, h, f, activations.data(), w2_t.data(), z.data());
  }

  static void upload(device::device_buffer<float>& to, const std::vector<float>& from) {
    IRONBENCH_GPU_CHECK(cudaMemcpy(to.data(), from.data(), from.size() * sizeof(float), cudaMemcpyHostToDevice));
  }

  static std::unique_ptr<blas::gpu_gemm> prepared(std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                                                  const float* b_t, float* c) {
    blas::gpu_gemm_problem p;
    p.type = blas::gpu_dtype::fp32;
    p.types = blas::gpu_gemm_types_for(blas::gpu_dtype::fp32, false);
    p.m = m;
    p.n = n;
    p.k = k;
    p.a = a;
    p.b = b_t;
    p.c = c;
    auto gemm = blas::make_blas_gemm();
    (void)gemm->prepare(p);
    return gemm;
  }
};

tp_gpu_rank::tp_gpu_rank(const tp_shape& shape, int rank, int gpu) {
  device::use_gpu(gpu);
  state_ = std::make_unique<state>(shape, rank, gpu);
}

tp_gpu_rank::~tp_gpu_rank() = default;

double tp_gpu_rank::forward(const gather_function& gather) {
  auto& s = *state_;
  const auto b = s.shape.batch, f = s.shape.ffn(), w = s.shape.shard();
  cudaStream_t stream = s.stream.get();
  s.first->run(stream);
  gpu_relu(s.partial.data(), s.partial.size(), stream);  // element-wise: before the gather
  s.stream.synchronize();
  const auto start = std::chrono::steady_clock::now();
  gather(s.partial.data(), s.gathered.data(), s.partial.size());
  const double gather_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Rank-major blocks [n][B][F/n] to row-major [B][F].
  for (int r = 0; r < s.shape.ranks; ++r) {
    IRONBENCH_GPU_CHECK(cudaMemcpy2DAsync(
        s.activations.data() + static_cast<std::int64_t>(r) * w, static_cast<std::size_t>(f) * sizeof(float),
        s.gathered.data() + static_cast<std::size_t>(r) * s.partial.size(), static_cast<std::size_t>(w) * sizeof(float),
        static_cast<std::size_t>(w) * sizeof(float), static_cast<std::size_t>(b), cudaMemcpyDeviceToDevice, stream));
  }
  s.second->run(stream);
  s.stream.synchronize();
  return gather_s;
}

std::vector<float> tp_gpu_rank::output() const {
  std::vector<float> host(state_->z.size());
  IRONBENCH_GPU_CHECK(cudaMemcpy(host.data(), state_->z.data(), state_->z.bytes(), cudaMemcpyDeviceToHost));
  return host;
}

tp_gpu_rank::gather_function tp_gpu_rank::local_gather() {
  return [](const float* send, float* receive, std::size_t count) {
    IRONBENCH_GPU_CHECK(cudaMemcpy(receive, send, count * sizeof(float), cudaMemcpyDeviceToDevice));
    IRONBENCH_GPU_CHECK(cudaDeviceSynchronize());  // a device copy does not wait for itself
  };
}

std::string tp_gpu_rank::description() { return blas::blas_gemm_description() + ", fp32 (FP32 compute, no TF32)"; }

}  // namespace ironbench::benchmarks
