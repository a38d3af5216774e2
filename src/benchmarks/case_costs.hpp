// What one case of each built-in benchmark costs in wall time (core/case_cost.hpp), from its
// parameters and its device's peaks. Calibrated on the H200 run of 2026-11-28 (the default
// suite's per-case times, docs/what-it-measures.md#how-long-the-default-suite-takes): each
// model errs long, so that the run's estimate is an upper bound. Pure C++: tested everywhere,
// and what the stand-in GPUs sleep for.
#pragma once

#include "core/case_cost.hpp"
#include "core/device_info.hpp"
#include "core/parameter_set.hpp"

namespace ironbench::benchmarks {

/// The calibration (seconds, shares of the datasheet peak).
struct cost_calibration {
  /// GEMM through cuBLASLt reaches 0.65-0.70 of the dense peak on the H200 (bf16, fp8): at 0.6
  /// the modelled repetition is longer than the measured one.
  static constexpr double gpu_gemm_peak_share = 0.6;
  /// Rate assumed for a dtype whose peak the device does not list.
  static constexpr double gpu_unknown_flops = 50e12;
  /// STREAM reaches 0.85-0.92 of the HBM datasheet bandwidth from 64 MiB arrays up.
  static constexpr double gpu_stream_peak_share = 0.85;
  /// Bandwidth assumed for a GPU whose peak is not listed.
  static constexpr double gpu_unknown_bandwidth = 1e12;
  /// The shortest GPU kernel: its launch.
  static constexpr double gpu_launch_s = 5e-6;
  /// Recording and reading the events of one sample, synchronizing.
  static constexpr double gpu_sample_s = 100e-6;
  /// Allocation, streams, library handles: every GPU case.
  static constexpr double gpu_setup_s = 0.05;
  /// Copying a GPU result back into pageable memory and checking it on the host, per byte (the
  /// H200 run: 3 GiB of STREAM arrays took 2.4 s).
  static constexpr double gpu_host_check_s_per_byte = 0.8 / (1 << 30);
  /// Repetitions the Lt provider times per candidate algorithm (2 warm-up, a median of 10).
  static constexpr double gpu_gemm_search_reps = 12;
  /// OpenBLAS reaches 0.3-0.4 of the host's FMA peak on the H200's host (its Prescott kernels).
  static constexpr double cpu_gemm_peak_share = 0.25;
  /// Rate assumed for a dtype whose host peak is unknown (and fp32's too; else half fp32's).
  static constexpr double cpu_unknown_flops = 50e9;
  /// One standard normal value, on one thread.
  static constexpr double cpu_random_value_s = 30e-9;
  /// Allocating and first touching host arrays, per byte per thread (2 GiB STREAM arrays on a
  /// 2-vCPU VM: 9-13 s a case, 3 s of them timed).
  static constexpr double cpu_first_touch_s_per_byte_thread = 1.5e-9;
  /// Checking every element of host arrays, per byte per thread.
  static constexpr double cpu_check_s_per_byte_thread = 1e-9;
  /// Pinning, filling and checking a copy's host buffer, per byte.
  static constexpr double host_buffer_s_per_byte = 1.0 / (1 << 30);
};

[[nodiscard]] core::case_cost gpu_gemm_cost(const core::parameter_set& params, const core::device_info& device);
[[nodiscard]] core::case_cost cpu_gemm_cost(const core::parameter_set& params, const core::device_info& device);
[[nodiscard]] core::case_cost gpu_stream_cost(const core::parameter_set& params, const core::device_info& device);
[[nodiscard]] core::case_cost cpu_stream_cost(const core::parameter_set& params, const core::device_info& device);
/// Host<->device copies have an unknown link speed: their timed part is bounded by max_time.
[[nodiscard]] core::case_cost copy_cost(const core::parameter_set& params, const core::device_info& device);
[[nodiscard]] core::case_cost p2p_cost(const core::parameter_set& params, const core::device_info& device);

/// A case the benchmark skips when it runs (an unsupported dtype, engine or path): nothing.
[[nodiscard]] core::case_cost skipped_case_cost();

}  // namespace ironbench::benchmarks
