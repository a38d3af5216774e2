#include "benchmarks/builtin.hpp"

#include <memory>
#include <vector>

#include "benchmarks/copy.hpp"
#include "benchmarks/gemm.hpp"
#include "benchmarks/per_device_benchmark.hpp"
#include "benchmarks/stream.hpp"

namespace ironbench::benchmarks {
namespace {

using implementations = std::vector<std::unique_ptr<core::benchmark>>;

template <typename... Makers>
implementations make_all(Makers... makers) {
  implementations all;
  (all.push_back(makers()), ...);
  return all;
}

}  // namespace

void register_builtin_benchmarks(core::registry& registry) {
#if IRONBENCH_WITH_GPU
  auto stream = make_all(make_cpu_stream, make_gpu_stream);
  auto gemm = make_all(make_cpu_gemm, make_gpu_gemm);
  auto copy = make_all(make_gpu_copy);
  auto p2p = make_all(make_gpu_p2p);
#else
  auto stream = make_all(make_cpu_stream);
  auto gemm = make_all(make_cpu_gemm);
  implementations copy;
  implementations p2p;
#endif
  registry.add(std::make_unique<per_device_benchmark>(
      "stream", "Memory bandwidth of copy, mul, add, triad, dot, nstream (GB/s), verified per element",
      std::move(stream)));
  registry.add(std::make_unique<per_device_benchmark>(
      "gemm", "Matrix multiply: TFLOPS per shape, dtype and library, verified on sampled elements", std::move(gemm)));
  registry.add(std::make_unique<per_device_benchmark>(
      "copy", "Host<->GPU and on-GPU copy bandwidth (copy engines and kernels, pinned and pageable), verified",
      std::move(copy)));
  registry.add(std::make_unique<per_device_benchmark>(
      "p2p", "GPU-to-GPU bandwidth matrix over every pair (copy engines and kernels), verified", std::move(p2p)));
}

}  // namespace ironbench::benchmarks
