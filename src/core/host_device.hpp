// IRONBENCH_HOST_DEVICE marks functions compiled for both the host and the GPU: it expands
// to __host__ __device__ under nvcc and hipcc and to nothing in plain C++.
#pragma once

#if defined(__CUDACC__) || defined(__HIPCC__)
#define IRONBENCH_HOST_DEVICE __host__ __device__
#else
#define IRONBENCH_HOST_DEVICE
#endif
