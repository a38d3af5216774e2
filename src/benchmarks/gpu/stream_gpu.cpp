// stream on a GPU: the CPU's kernels and byte weights, 16-byte accesses, every element of
// every array verified against its analytic value, GB/s and % of the HBM datasheet bandwidth.
#include <fmt/format.h>

#include <vector>

#include "benchmarks/case_costs.hpp"
#include "benchmarks/gpu/gpu_timing.hpp"
#include "benchmarks/gpu/stream_gpu_kernels.hpp"
#include "benchmarks/stream.hpp"
#include "benchmarks/stream_gpu_axes.hpp"
#include "core/checked_bytes.hpp"
#include "core/error.hpp"
#include "device/gpu/gpu_memory.hpp"
#include "device/gpu/gpu_stream.hpp"
#include "schema/stream.hpp"

namespace ironbench::benchmarks {
namespace {

using core::case_state;
using core::device_info;

template <typename T>
void run_gpu_stream(case_state& state, stream_kernel kernel, std::size_t n) {
  device::gpu_stream stream;
  device::device_buffer<T> a(n), b(n), c(n);
  device::device_buffer<double> partial(gpu_dot_blocks), dot_sum(1);
  gpu_stream_initialize(a.data(), b.data(), c.data(), n, stream.get());
  stream.synchronize();
  const auto traffic = traffic_of(kernel);
  const double array_bytes = static_cast<double>(n * sizeof(T));
  state.add_bytes_read(traffic.arrays_read * array_bytes);
  state.add_bytes_written(traffic.arrays_written * array_bytes);

  std::size_t iterations = 0;
  state.measure(gpu_event_timed(stream.get(), {}, [&] {
    gpu_stream_run(kernel, a.data(), b.data(), c.data(), n, partial.data(), dot_sum.data(), stream.get());
    ++iterations;
  }));
  stream.synchronize();

  std::vector<T> host_a(n), host_b(n), host_c(n);
  double dot_result = 0;
  IRONBENCH_GPU_CHECK(cudaMemcpy(host_a.data(), a.data(), a.bytes(), cudaMemcpyDeviceToHost));
  IRONBENCH_GPU_CHECK(cudaMemcpy(host_b.data(), b.data(), b.bytes(), cudaMemcpyDeviceToHost));
  IRONBENCH_GPU_CHECK(cudaMemcpy(host_c.data(), c.data(), c.bytes(), cudaMemcpyDeviceToHost));
  IRONBENCH_GPU_CHECK(cudaMemcpy(&dot_result, dot_sum.data(), sizeof dot_result, cudaMemcpyDeviceToHost));
  const auto check = stream_check(kernel, host_a.data(), host_b.data(), host_c.data(), n, iterations, dot_result);
  state.note("verification", fmt::format("all {} elements of a, b, c after {} iterations", n, iterations));
  state.require(check.ok, "wrong result: " + check.detail);
}

class gpu_stream_benchmark final : public core::benchmark {
 public:
  std::string name() const override { return "stream"; }
  std::string summary() const override { return "STREAM on a GPU"; }
  std::string unsupported_reason(const device_info& device) const override {
    if (core::is_gpu(device)) return {};
    return "the GPU kernels run on GPUs";
  }
  std::vector<core::axis> axes(const device_info& device) const override { return gpu_stream_axes(device); }
  void check_params(const core::parameter_set& params, const device_info&) const override {
    check_gpu_stream_params(params);
  }
  std::uint64_t memory_required(const core::parameter_set& params, const device_info&) const override {
    return core::bytes_times(3, static_cast<std::uint64_t>(params.integer("size")));
  }
  bool in_first_look(const core::parameter_set& params, const device_info& device) const override {
    return gpu_stream_in_first_look(params, device);
  }
  std::string first_look_summary(const device_info& device) const override {
    return gpu_stream_first_look_summary(device);
  }
  core::case_cost cost(const core::parameter_set& params, const device_info& device) const override {
    return gpu_stream_cost(params, device);
  }

  void run(case_state& state) const override {
    const auto& params = state.params();
    const auto kernel = stream_kernel_from_string(params.string("kernel"));
    IRONBENCH_CHECK(kernel.has_value(), "unknown kernel " + params.string("kernel"));
    const bool fp32 = params.string("dtype") == "fp32";
    const auto element = schema::stream_dtype_bytes(params.string("dtype")).value_or(8);
    const auto n = static_cast<std::size_t>(params.integer("size")) / static_cast<std::size_t>(element);
    device::use_gpu(state.device().index);
    const auto& peak = state.device().properties.value("peak_bandwidth", json::object());
    if (peak.contains("bytes_per_second") && peak.at("bytes_per_second").is_number()) {
      state.set_peak_bandwidth({peak.at("bytes_per_second").get<double>(), peak.value("source", std::string())});
    }
    state.note("elements", std::to_string(n));
    state.note("access", "16-byte vectors, one per thread; dot: double partial sums per block");
    if (fp32) {
      run_gpu_stream<float>(state, *kernel, n);
    } else {
      run_gpu_stream<double>(state, *kernel, n);
    }
  }
};

}  // namespace

std::unique_ptr<core::benchmark> make_gpu_stream() { return std::make_unique<gpu_stream_benchmark>(); }

}  // namespace ironbench::benchmarks
