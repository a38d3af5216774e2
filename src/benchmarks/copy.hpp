// The `copy` and `p2p` benchmarks (GPU data movement, as nvbandwidth and TransferBench
// measure it). See docs/metrics.md for what their bandwidth counts.
#pragma once

#include <memory>

#include "core/benchmark.hpp"

namespace ironbench::benchmarks {

/// Host<->device and device-local copies (gpu/copy_gpu.cpp; GPU builds only).
[[nodiscard]] std::unique_ptr<core::benchmark> make_gpu_copy();
/// Copies between every pair of GPUs (gpu/p2p_gpu.cpp; GPU builds only).
[[nodiscard]] std::unique_ptr<core::benchmark> make_gpu_p2p();

}  // namespace ironbench::benchmarks
