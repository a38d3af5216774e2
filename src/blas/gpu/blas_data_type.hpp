// The vendor library's data type of each element format.
#pragma once

#include "blas/gpu_gemm_types.hpp"
#include "core/error.hpp"
#include "device/gpu/vendor_blas.hpp"

namespace ironbench::blas {

inline cudaDataType_t blas_data_type(element_format format) {
  switch (format) {
    case element_format::fp32: return CUDA_R_32F;
    case element_format::fp16: return CUDA_R_16F;
    case element_format::bf16: return CUDA_R_16BF;
#if defined(IRONBENCH_GPU_HIP)
#if HIP_VERSION >= 60300000  // the OCP fp8 data types (gfx950) arrived in ROCm 6.3
    case element_format::e4m3fn: return HIP_R_8F_E4M3;
#else
    case element_format::e4m3fn: break;
#endif
    case element_format::e4m3fnuz: return HIP_R_8F_E4M3_FNUZ;
#else
    case element_format::e4m3fn: return CUDA_R_8F_E4M3;
    case element_format::e4m3fnuz: break;
#endif
  }
  throw error(std::string("no ") + IRONBENCH_BLASLT_NAME + " data type for " + to_string(format));
}

inline cublasComputeType_t blas_compute_type(const gpu_gemm_types& types) {
  return types.tf32_math ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

}  // namespace ironbench::blas
