#include "benchmarks/case_costs.hpp"

#include <algorithm>
#include <string>

#include "benchmarks/copy_axes.hpp"
#include "benchmarks/gemm_gpu_axes.hpp"
#include "benchmarks/stream_kernels.hpp"
#include "blas/gpu_gemm_types.hpp"
#include "schema/stream.hpp"

namespace ironbench::benchmarks {
namespace {

using calibration = cost_calibration;

double peak_flops(const core::device_info& device, const std::string& dtype, double unknown) {
  const auto& props = device.properties;
  if (!props.contains("peak_flops") || !props.at("peak_flops").contains(dtype)) return unknown;
  const auto& value = props.at("peak_flops").at(dtype).value("flops_per_second", json());
  return value.is_number() && value.get<double>() > 0 ? value.get<double>() : unknown;
}

double peak_bandwidth(const core::device_info& device) {
  const auto& value = device.properties.value("peak_bandwidth", json::object()).value("bytes_per_second", json());
  return value.is_number() && value.get<double>() > 0 ? value.get<double>() : calibration::gpu_unknown_bandwidth;
}

double bytes_of(const core::parameter_set& params) {
  return static_cast<double>(std::max<std::int64_t>(params.integer("size"), 0));
}

// Bytes read and written per repetition of a STREAM kernel over arrays of `array_bytes`.
core::work_declaration stream_work(const core::parameter_set& params, double array_bytes) {
  core::work_declaration work;
  const auto kernel = stream_kernel_from_string(params.string("kernel"));
  if (!kernel) return work;
  const auto traffic = traffic_of(*kernel);
  work.bytes_read = traffic.arrays_read * array_bytes;
  work.bytes_written = traffic.arrays_written * array_bytes;
  return work;
}

}  // namespace

core::case_cost skipped_case_cost() {
  core::case_cost cost;
  cost.setup_s = 0.01;
  cost.measures = false;
  return cost;
}

core::case_cost gpu_gemm_cost(const core::parameter_set& params, const core::device_info& device) {
  if (!gpu_gemm_case_unsupported(params, device).empty()) return skipped_case_cost();
  const double m = static_cast<double>(params.integer("M"));
  const double n = static_cast<double>(params.integer("N"));
  const double k = static_cast<double>(params.integer("K"));
  core::case_cost cost;
  cost.work.flops = 2 * m * n * k;
  const double rate = peak_flops(device, params.string("dtype"), calibration::gpu_unknown_flops);
  const double bandwidth = peak_bandwidth(device);
  cost.repetition_s = std::max(cost.work.flops / (rate * calibration::gpu_gemm_peak_share), calibration::gpu_launch_s);
  // The cache flush before every repetition (a memset of the flush buffer), outside the timing.
  cost.untimed_per_sample_s = static_cast<double>(gpu_cache_flush_bytes(device)) / bandwidth;
  cost.setup_s = calibration::gpu_setup_s;
  if (const auto candidates = gpu_gemm_provider_of(params).candidates; candidates > 1) {
    cost.setup_s += static_cast<double>(candidates) * calibration::gpu_gemm_search_reps *
                    (cost.repetition_s + cost.untimed_per_sample_s);
  }
  cost.verify_s = 0.05;
  cost.aimed_reps = gpu_gemm_min_reps;
  cost.batched = false;
  return cost;
}

core::case_cost cpu_gemm_cost(const core::parameter_set& params, const core::device_info& device) {
  const double m = static_cast<double>(params.integer("M"));
  const double n = static_cast<double>(params.integer("N"));
  const double k = static_cast<double>(params.integer("K"));
  const double threads = std::max(1, device.properties.value("threads", 1));
  core::case_cost cost;
  cost.work.flops = 2 * m * n * k;
  // A dtype without a listed peak (bf16 where the CPU has no bf16 FMA) at half the fp32 rate.
  const double rate =
      peak_flops(device, params.string("dtype"), peak_flops(device, "fp32", 2 * calibration::cpu_unknown_flops) / 2);
  cost.repetition_s = cost.work.flops / (rate * calibration::cpu_gemm_peak_share);
  cost.setup_s = 0.02 + (m * k + k * n) * calibration::cpu_random_value_s / threads;
  cost.verify_s = 0.02;
  return cost;
}

core::case_cost gpu_stream_cost(const core::parameter_set& params, const core::device_info& device) {
  const double array = bytes_of(params);
  const double bandwidth = peak_bandwidth(device);
  core::case_cost cost;
  cost.work = stream_work(params, array);
  cost.repetition_s =
      std::max(cost.work.bytes() / (bandwidth * calibration::gpu_stream_peak_share), calibration::gpu_launch_s);
  cost.untimed_per_sample_s = calibration::gpu_sample_s;
  cost.setup_s = calibration::gpu_setup_s + 3 * array / bandwidth;
  cost.verify_s = 0.05 + 3 * array * calibration::gpu_host_check_s_per_byte;
  return cost;
}

core::case_cost cpu_stream_cost(const core::parameter_set& params, const core::device_info& device) {
  const double array = bytes_of(params);
  const double threads = std::max(1, device.properties.value("threads", 1));
  core::case_cost cost;
  cost.work = stream_work(params, array);
  cost.repetition_s = 0;  // the host's memory bandwidth is not known before it is measured
  cost.setup_s = 0.02 + 3 * array * calibration::cpu_first_touch_s_per_byte_thread / threads;
  cost.verify_s = 3 * array * calibration::cpu_check_s_per_byte_thread / threads;
  return cost;
}

core::case_cost copy_cost(const core::parameter_set& params, const core::device_info& device) {
  if (!copy_case_unsupported(params).empty()) return skipped_case_cost();
  const double bytes = bytes_of(params);
  const auto& path = params.string("path");
  const bool to_device = path.rfind("h2d", 0) == 0 || path.rfind("bidir", 0) == 0;
  const bool to_host = path.rfind("d2h", 0) == 0 || path.rfind("bidir", 0) == 0;
  const int host_buffers = (to_device ? 1 : 0) + (to_host ? 1 : 0);
  const int directions = path == "d2d" ? 1 : host_buffers;
  core::case_cost cost;
  cost.work.bytes_written = directions * bytes;
  cost.setup_s = calibration::gpu_setup_s + host_buffers * bytes * calibration::host_buffer_s_per_byte;
  cost.verify_s = 0.05 + (to_host ? bytes * calibration::host_buffer_s_per_byte : 0.0);
  if (path == "d2d") {
    cost.repetition_s = 2 * bytes / (peak_bandwidth(device) * calibration::gpu_stream_peak_share);
    cost.untimed_per_sample_s = calibration::gpu_sample_s;
  }
  return cost;
}

core::case_cost p2p_cost(const core::parameter_set& params, const core::device_info& device) {
  if (!p2p_case_unsupported(params, device).empty()) return skipped_case_cost();
  const double bytes = bytes_of(params);
  core::case_cost cost;
  cost.work.bytes_written = (params.string("direction") == "bidir" ? 2 : 1) * bytes;
  cost.setup_s = 0.2 + 4 * bytes / peak_bandwidth(device);  // peer access, two buffers on each GPU
  cost.verify_s = 0.05;
  return cost;
}

}  // namespace ironbench::benchmarks
