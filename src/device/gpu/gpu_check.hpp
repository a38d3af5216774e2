// Checks of GPU runtime and GPU BLAS calls: a failed call throws ironbench::error carrying
// the file, the line, the call's text and the library's name for the status.
#pragma once

#include <string>

#include "core/error.hpp"
#include "device/gpu/vendor_runtime.hpp"

/// Throws when a runtime call (cudaMalloc, hipMemcpy ...) does not return success.
#define IRONBENCH_GPU_CHECK(call)                                                                            \
  do {                                                                                                       \
    const cudaError_t ironbench_status_ = (call);                                                            \
    if (ironbench_status_ != cudaSuccess) {                                                                  \
      throw ::ironbench::error(::ironbench::check_failure_message(                                           \
          __FILE__, __LINE__, #call,                                                                         \
          std::string(cudaGetErrorName(ironbench_status_)) + ": " + cudaGetErrorString(ironbench_status_))); \
    }                                                                                                        \
  } while (false)

/// Throws when a BLAS call (cublasLtMatmul, hipblasGemmEx ...) does not return success.
/// Needs device/gpu/vendor_blas.hpp.
#define IRONBENCH_BLAS_CHECK(call)                                                                             \
  do {                                                                                                         \
    const auto ironbench_status_ = (call);                                                                     \
    if (ironbench_status_ != CUBLAS_STATUS_SUCCESS) {                                                          \
      throw ::ironbench::error(                                                                                \
          ::ironbench::check_failure_message(__FILE__, __LINE__, #call, blas_status_name(ironbench_status_))); \
    }                                                                                                          \
  } while (false)
