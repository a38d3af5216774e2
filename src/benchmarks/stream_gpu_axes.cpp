#include "benchmarks/stream_gpu_axes.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/units.hpp"
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

std::vector<std::int64_t> gpu_stream_first_look_sizes(const core::device_info& device) {
  const auto sizes = default_gpu_stream_sizes(device.memory_bytes);
  if (sizes.empty()) return {};
  const auto l2 = std::max<std::int64_t>(device.properties.value("l2_cache_bytes", std::int64_t{0}), 0);
  std::int64_t cache = sizes.front();
  for (const auto s : sizes) {
    if (3 * s <= l2) cache = s;
  }
  const std::int64_t wanted = std::max<std::int64_t>(4 * l2, std::int64_t{1} << 30);
  const auto first_large = std::find_if(sizes.begin(), sizes.end(), [&](std::int64_t s) { return s >= wanted; });
  const std::int64_t hbm = first_large != sizes.end() ? *first_large : sizes.back();
  if (hbm == cache) return {hbm};
  return {cache, hbm};
}

bool gpu_stream_in_first_look(const core::parameter_set& params, const core::device_info& device) {
  const auto sizes = gpu_stream_first_look_sizes(device);
  return std::find(sizes.begin(), sizes.end(), params.integer("size")) != sizes.end();
}

std::string gpu_stream_first_look_summary(const core::device_info& device) {
  std::vector<std::string> sizes;
  for (const auto s : gpu_stream_first_look_sizes(device)) sizes.push_back(format_size_label(s));
  return fmt::format(
      "every kernel at size {} (in the L2 cache, then in HBM; any --axis of stream runs the whole product)",
      fmt::join(sizes, " and "));
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
