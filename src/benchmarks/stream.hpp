// The `stream` benchmark (memory bandwidth). See docs/metrics.md for its formulas.
#pragma once

#include <cstdint>
#include <memory>

#include "core/benchmark.hpp"

namespace ironbench::benchmarks {

/// OpenMP kernels on the CPU (stream.cpp).
[[nodiscard]] std::unique_ptr<core::benchmark> make_cpu_stream();
/// GPU kernels (gpu/stream_gpu.cpp; GPU builds only).
[[nodiscard]] std::unique_ptr<core::benchmark> make_gpu_stream();

/// Default bytes per array on a host whose caches total `last_level_cache_bytes`: at least
/// 4x the last-level cache (STREAM's rule) and at least 64 MiB, rounded up to a power of two.
[[nodiscard]] std::int64_t default_stream_array_bytes(std::int64_t last_level_cache_bytes);

}  // namespace ironbench::benchmarks
