// What `ironbench validate` measures at each level, per device: GEMM of the dtypes the table
// has expectations for and STREAM triad, at sizes and times that keep quick under a minute,
// standard under five and long under thirty on one GPU (docs/validate.md).
#pragma once

#include <string>
#include <vector>

#include "core/device_info.hpp"
#include "core/registry.hpp"
#include "core/runner.hpp"

namespace ironbench::validate {

/// burn_in: the devices kept busy for a duration, judged per interval (burn_in.hpp).
enum class level { quick, standard, long_run, burn_in };

/// "quick", "standard", "long" or "burn-in"; usage_error otherwise.
[[nodiscard]] level parse_level(const std::string& text);
[[nodiscard]] const char* to_string(level l);

/// The measurement settings of `l` (shared by every case).
[[nodiscard]] core::measurement_settings settings_of(level l);

/// The side of the square CPU GEMM of a level whose base size is `base`, for a CPU of `threads`
/// threads: doubled (up to 8192) while every thread would get under an eighth of a 1024^3
/// product's rows, so that a many-core CPU is judged on its arithmetic, not on its threads'
/// start-up (16 threads reached 0.48 TFLOP/s fp64 at 1024^3 and 0.55 at 2048^3 on an H200 node).
[[nodiscard]] std::int64_t cpu_gemm_size(std::int64_t base, int threads);

/// The CPU STREAM array size of a level: `wanted` (the level's, or the benchmark's default of at
/// least 4x the last-level cache), halved until its three arrays fit in 80 % of `memory_bytes`
/// (the memory this rank may use: a share when ranks share the host), but never below 64 MiB.
[[nodiscard]] std::int64_t cpu_stream_size(std::int64_t wanted, std::uint64_t memory_bytes);

/// The cases of `l` on every device: per device, gemm at the level's shape (cpu_gemm_size on
/// CPUs) in the dtypes both the device's gemm and the table know, and stream at the level's
/// kernels.
[[nodiscard]] std::vector<core::planned_case> plan_validation(level l, const core::registry& benchmarks,
                                                              const std::vector<core::device_info>& devices);

}  // namespace ironbench::validate
