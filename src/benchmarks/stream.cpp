// stream: sustained memory bandwidth of the STREAM kernels per array size (GB/s), every
// element verified against its analytic value. CPU: OpenMP.
#include "benchmarks/stream.hpp"

#include <fmt/format.h>
#include <omp.h>

#include "benchmarks/case_costs.hpp"
#include "benchmarks/host_buffer.hpp"
#include "benchmarks/stream_kernels.hpp"
#include "core/checked_bytes.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "schema/stream.hpp"

namespace ironbench::benchmarks {
namespace {

using core::case_state;
using core::device_info;

std::size_t element_bytes(const std::string& dtype) {
  return static_cast<std::size_t>(schema::stream_dtype_bytes(dtype).value_or(8));
}

template <typename T>
void run_stream(case_state& state, stream_kernel kernel, std::size_t n) {
  host_buffer<T> a(n), b(n), c(n);
  stream_initialize(a.data(), b.data(), c.data(), n);
  const auto traffic = traffic_of(kernel);
  const double array_bytes = static_cast<double>(n * sizeof(T));
  state.add_bytes_read(traffic.arrays_read * array_bytes);
  state.add_bytes_written(traffic.arrays_written * array_bytes);

  std::size_t iterations = 0;
  double dot_result = 0.0;
  state.measure_host([&] {
    dot_result = stream_run(kernel, a.data(), b.data(), c.data(), n);
    ++iterations;
  });
  const auto check = stream_check(kernel, a.data(), b.data(), c.data(), n, iterations, dot_result);
  state.note("verification", fmt::format("all {} elements of a, b, c after {} iterations", n, iterations));
  state.require(check.ok, "wrong result: " + check.detail);
}

class stream_benchmark final : public core::benchmark {
 public:
  std::string name() const override { return "stream"; }
  std::string summary() const override {
    return "Memory bandwidth of copy, mul, add, triad, dot, nstream (GB/s), verified per element";
  }

  std::string unsupported_reason(const device_info& device) const override {
    if (device.kind == core::device_kind::cpu) return {};
    return fmt::format("the OpenMP kernels run on the CPU, not on {} devices", core::to_string(device.kind));
  }

  std::vector<core::axis> axes(const device_info& device) const override {
    const auto llc = device.properties.value("last_level_cache_bytes", std::int64_t{0});
    const auto kernels = schema::stream_kernel_names();
    return {core::string_axis("dtype", {"fp64"}, "element type", schema::stream_dtype_names()),
            core::size_axis("size", {default_stream_array_bytes(llc)},
                            "bytes per array (default: >= 4x the last-level cache)"),
            core::string_axis("kernel", kernels, "STREAM kernel", kernels)};
  }

  void check_params(const core::parameter_set& params, const device_info&) const override {
    if (params.integer("size") < static_cast<std::int64_t>(element_bytes(params.string("dtype")))) {
      throw usage_error(fmt::format("stream: size must hold at least one element ({})", params.label()));
    }
  }

  core::case_cost cost(const core::parameter_set& params, const device_info& device) const override {
    return cpu_stream_cost(params, device);
  }

  std::uint64_t memory_required(const core::parameter_set& params, const device_info&) const override {
    return core::bytes_times(3, static_cast<std::uint64_t>(params.integer("size")));
  }

  void run(case_state& state) const override {
    const auto& params = state.params();
    const auto dtype = params.string("dtype");
    const auto kernel = stream_kernel_from_string(params.string("kernel"));
    IRONBENCH_CHECK(kernel.has_value(), "unknown kernel " + params.string("kernel"));
    const auto bytes = params.integer("size");
    const auto n = static_cast<std::size_t>(bytes) / element_bytes(dtype);
    const auto available = state.device().properties.value("available_memory_bytes", std::int64_t{0});
    if (available > 0 && 3 * bytes > available) {
      state.skip(fmt::format("needs {} but only {} is available now", format_bytes(3.0 * bytes),
                             format_bytes(static_cast<double>(available))));
    }
    state.note("threads", std::to_string(omp_get_max_threads()));
    state.note("elements", std::to_string(n));
    if (dtype == "fp32") {
      run_stream<float>(state, *kernel, n);
    } else {
      run_stream<double>(state, *kernel, n);
    }
  }
};

}  // namespace

std::int64_t default_stream_array_bytes(std::int64_t last_level_cache_bytes) {
  const std::int64_t wanted = std::max<std::int64_t>(4 * last_level_cache_bytes, std::int64_t{64} << 20);
  std::int64_t size = 1;
  while (size < wanted) size <<= 1;
  return size;
}

std::unique_ptr<core::benchmark> make_cpu_stream() { return std::make_unique<stream_benchmark>(); }

}  // namespace ironbench::benchmarks
