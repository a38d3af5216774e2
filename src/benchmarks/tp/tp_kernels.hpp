// Element-wise kernels of the tensor-parallel model.
#pragma once

#include <cstddef>

#include "device/gpu/vendor_runtime.hpp"

namespace ironbench::benchmarks {

/// data[i] = max(data[i], 0) for the first n floats, enqueued on `stream`.
void gpu_relu(float* data, std::size_t n, cudaStream_t stream);

}  // namespace ironbench::benchmarks
