#include "benchmarks/builtin.hpp"

#include <memory>
#include <vector>

#include "benchmarks/copy.hpp"
#include "benchmarks/gemm.hpp"
#include "benchmarks/per_device_benchmark.hpp"
#include "benchmarks/stand_in_benchmark.hpp"
#include "benchmarks/stream.hpp"
#include "device/stand_in_gpus.hpp"

namespace ironbench::benchmarks {
namespace {

using factory = std::unique_ptr<core::benchmark> (*)();

// A GPU implementation's factory where the build has a GPU runtime (gpu/*.cpp is compiled), else none.
#if IRONBENCH_WITH_GPU
#define IRONBENCH_GPU_FACTORY(make) make
#else
#define IRONBENCH_GPU_FACTORY(make) nullptr
#endif

// One benchmark: its name, its summary for `ironbench list`, and its implementations, tried in
// order for each device (the CPU one, then the GPU one).
struct builtin_benchmark {
  const char* name;
  const char* summary;
  factory cpu;
  factory gpu;
};

// Every built-in benchmark, in the order the default suite runs them.
const builtin_benchmark builtin_benchmarks[] = {
    {"stream", "Memory bandwidth of copy, mul, add, triad, dot, nstream (GB/s), verified per element", make_cpu_stream,
     IRONBENCH_GPU_FACTORY(make_gpu_stream)},
    {"gemm", "Matrix multiply: TFLOPS per shape, dtype and library, verified on sampled elements", make_cpu_gemm,
     IRONBENCH_GPU_FACTORY(make_gpu_gemm)},
    {"copy", "Host<->GPU and on-GPU copy bandwidth (copy engines and kernels, pinned and pageable), verified", nullptr,
     IRONBENCH_GPU_FACTORY(make_gpu_copy)},
    {"p2p", "GPU-to-GPU bandwidth matrix over every pair (copy engines and kernels), verified", nullptr,
     IRONBENCH_GPU_FACTORY(make_gpu_p2p)},
};

}  // namespace

void register_builtin_benchmarks(core::registry& registry) {
  const bool stand_ins = device::stand_in_gpus_from_environment().has_value();
  for (const auto& b : builtin_benchmarks) {
    std::vector<std::unique_ptr<core::benchmark>> implementations;
    if (stand_ins) {
      if (auto stand_in = make_stand_in(b.name)) implementations.push_back(std::move(stand_in));
    }
    for (const factory make : {b.cpu, b.gpu}) {
      if (make != nullptr) implementations.push_back(make());
    }
    registry.add(std::make_unique<per_device_benchmark>(b.name, b.summary, std::move(implementations)));
  }
}

}  // namespace ironbench::benchmarks
