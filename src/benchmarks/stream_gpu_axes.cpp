#include "benchmarks/stream_gpu_axes.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "schema/stream.hpp"

namespace ironbench::benchmarks {

std::vector<std::int64_t> default_gpu_stream_sizes(std::uint64_t device_memory_bytes) {
  std::vector<std::int64_t> sizes;
  for (std::int64_t size = std::int64_t{1} << 20; size <= (std::int64_t{4} << 30); size *= 4) {
    if (device_memory_bytes > 0 && 4 * static_cast<std::uint64_t>(size) > device_memory_bytes) break;
    sizes.push_back(size);
  }
  return sizes;
}

std::vector<core::axis> gpu_stream_axes(const core::device_info& device) {
  const auto kernels = schema::stream_kernel_names();
  return {core::string_axis("dtype", {"fp64"}, "element type", schema::stream_dtype_names()),
          core::size_axis("size", default_gpu_stream_sizes(device.memory_bytes), "bytes per array"),
          core::string_axis("kernel", kernels, "STREAM kernel", kernels)};
}

void check_gpu_stream_params(const core::parameter_set& params) {
  const auto element = schema::stream_dtype_bytes(params.string("dtype")).value_or(8);
  if (params.integer("size") < element) {
    throw usage_error(fmt::format("stream: size must hold at least one element ({})", params.label()));
  }
}

}  // namespace ironbench::benchmarks
