// Random normal matrices generated on the GPU, stored in any GEMM element format.
#pragma once

#include <cstddef>
#include <cstdint>

#include "blas/gpu_gemm_types.hpp"
#include "device/gpu/vendor_runtime.hpp"

namespace ironbench::benchmarks {

/// Writes `count` standard normal values (counter-based hash + Box-Muller, so the values
/// depend only on `seed` and the position) rounded to `format` into `out`.
void gpu_fill_normal(blas::element_format format, void* out, std::size_t count, std::uint64_t seed,
                     cudaStream_t stream);

/// Writes `value` to one float in device memory (fp8 scales).
void gpu_set_float(float* out, float value, cudaStream_t stream);

}  // namespace ironbench::benchmarks
