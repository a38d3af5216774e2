// GPU BLAS libraries under one set of names: sources use cuBLASLt and cuBLAS names; with
// IRONBENCH_GPU_HIP they map onto hipBLASLt and hipBLAS (whose GemmEx runs rocBLAS), with the
// ROCm 6 "v2" API where data types are hipDataType and compute types hipblasComputeType_t.
#pragma once

#include "device/gpu/vendor_runtime.hpp"

#if defined(IRONBENCH_GPU_HIP)

#ifndef HIPBLAS_V2
#define HIPBLAS_V2
#endif
#include <hipblas/hipblas.h>
#include <hipblaslt/hipblaslt.h>

#define IRONBENCH_BLASLT_NAME "hipblaslt"
#define IRONBENCH_BLAS_NAME "rocblas"

#define CUBLASLT_MATMUL_DESC_A_SCALE_POINTER HIPBLASLT_MATMUL_DESC_A_SCALE_POINTER
#define CUBLASLT_MATMUL_DESC_B_SCALE_POINTER HIPBLASLT_MATMUL_DESC_B_SCALE_POINTER
#define CUBLASLT_MATMUL_DESC_TRANSA HIPBLASLT_MATMUL_DESC_TRANSA
#define CUBLASLT_MATMUL_DESC_TRANSB HIPBLASLT_MATMUL_DESC_TRANSB
#define CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES
#define CUBLAS_COMPUTE_32F HIPBLAS_COMPUTE_32F
#define CUBLAS_COMPUTE_32F_FAST_TF32 HIPBLAS_COMPUTE_32F_FAST_TF32
#define CUBLAS_GEMM_DEFAULT HIPBLAS_GEMM_DEFAULT
#define CUBLAS_OP_N HIPBLAS_OP_N
#define CUBLAS_OP_T HIPBLAS_OP_T
#define CUBLAS_STATUS_SUCCESS HIPBLAS_STATUS_SUCCESS
#define CUBLAS_STATUS_NOT_SUPPORTED HIPBLAS_STATUS_NOT_SUPPORTED
#define CUDA_R_16BF HIP_R_16BF
#define CUDA_R_16F HIP_R_16F
#define CUDA_R_32F HIP_R_32F
#define cublasComputeType_t hipblasComputeType_t
#define cublasCreate hipblasCreate
#define cublasDestroy hipblasDestroy
#define cublasGemmEx hipblasGemmEx
#define cublasHandle_t hipblasHandle_t
#define cublasLtCreate hipblasLtCreate
#define cublasLtDestroy hipblasLtDestroy
#define cublasLtHandle_t hipblasLtHandle_t
#define cublasLtMatmul hipblasLtMatmul
#define cublasLtMatmulAlgoGetHeuristic hipblasLtMatmulAlgoGetHeuristic
#define cublasLtMatmulDescCreate hipblasLtMatmulDescCreate
#define cublasLtMatmulDescDestroy hipblasLtMatmulDescDestroy
#define cublasLtMatmulDescSetAttribute hipblasLtMatmulDescSetAttribute
#define cublasLtMatmulDesc_t hipblasLtMatmulDesc_t
#define cublasLtMatmulHeuristicResult_t hipblasLtMatmulHeuristicResult_t
#define cublasLtMatmulPreferenceCreate hipblasLtMatmulPreferenceCreate
#define cublasLtMatmulPreferenceDestroy hipblasLtMatmulPreferenceDestroy
#define cublasLtMatmulPreferenceSetAttribute hipblasLtMatmulPreferenceSetAttribute
#define cublasLtMatmulPreference_t hipblasLtMatmulPreference_t
#define cublasLtMatrixLayoutCreate hipblasLtMatrixLayoutCreate
#define cublasLtMatrixLayoutDestroy hipblasLtMatrixLayoutDestroy
#define cublasLtMatrixLayout_t hipblasLtMatrixLayout_t
#define cublasOperation_t hipblasOperation_t
#define cublasSetStream hipblasSetStream
#define cublasStatus_t hipblasStatus_t
#define cudaDataType_t hipDataType

/// Name of a BLAS status code.
inline const char* blas_status_name(hipblasStatus_t status) { return hipblasStatusToString(status); }

#else

#include <cublasLt.h>
#include <cublas_v2.h>

#define IRONBENCH_BLASLT_NAME "cublaslt"
#define IRONBENCH_BLAS_NAME "cublas"

/// Name of a BLAS status code.
inline const char* blas_status_name(cublasStatus_t status) { return cublasGetStatusString(status); }

#endif
