// The STREAM kernels on a GPU: 16-byte loads and stores (float4 / double2), one vector per
// thread so that every SM has many bytes in flight; dot reduces per block in double, then in
// one block, all on the device.
#pragma once

#include <cstddef>

#include "benchmarks/stream_kernels.hpp"
#include "device/gpu/vendor_runtime.hpp"

namespace ironbench::benchmarks {

/// Blocks of the dot kernel's first pass (partial sums to hold: this many doubles).
inline constexpr unsigned gpu_dot_blocks = 1024;

/// Writes the initial values of a, b and c (see stream_values.hpp).
template <typename T>
void gpu_stream_initialize(T* a, T* b, T* c, std::size_t n, cudaStream_t stream);

/// Enqueues one run of `kernel` over n elements (same semantics as stream_run). dot writes
/// its sum to *dot_sum, using `partial` (gpu_dot_blocks doubles) as scratch.
template <typename T>
void gpu_stream_run(stream_kernel kernel, T* a, T* b, T* c, std::size_t n, double* partial, double* dot_sum,
                    cudaStream_t stream);

}  // namespace ironbench::benchmarks
