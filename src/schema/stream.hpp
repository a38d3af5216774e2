// The STREAM kernels as ironbench names them (McCalpin's copy, scale-as-mul, add, triad plus
// BabelStream's dot and nstream) and the arrays each reads and writes per element. The `stream`
// benchmark measures with these weights and the BabelStream importer converts with them, so a
// measured and an imported case count the same bytes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ironbench::schema {

/// One STREAM kernel: its name in results and the arrays it reads and writes per element.
/// Bytes moved per run = (arrays_read + arrays_written) x elements x element size; these are
/// BabelStream's weights (copy 2, mul 2, add 3, triad 3, dot 2, nstream 4).
struct stream_kernel_traffic {
  std::string_view name;  ///< "copy", "mul", "add", "triad", "dot", "nstream"
  int arrays_read;
  int arrays_written;
};

/// Every STREAM kernel, in the order the benchmark sweeps them (the `kernel` axis).
inline constexpr std::array<stream_kernel_traffic, 6> stream_kernels = {{
    {"copy", 1, 1},     // c = a
    {"mul", 1, 1},      // b = s * c (STREAM's "scale")
    {"add", 2, 1},      // c = a + b
    {"triad", 2, 1},    // a = b + s * c
    {"dot", 2, 0},      // sum(a * b)
    {"nstream", 3, 1},  // a += b + s * c
}};

/// The kernel named `name` (lowercase, as in results), or nullopt.
[[nodiscard]] constexpr std::optional<stream_kernel_traffic> find_stream_kernel(std::string_view name) {
  for (const auto& k : stream_kernels) {
    if (k.name == name) return k;
  }
  return std::nullopt;
}

/// The element types of a stream case's `dtype` parameter and their sizes in bytes.
struct stream_dtype {
  std::string_view name;  ///< "fp64", "fp32"
  int bytes;
};

/// fp64 (double, the default) and fp32 (float).
inline constexpr std::array<stream_dtype, 2> stream_dtypes = {{{"fp64", 8}, {"fp32", 4}}};

/// The dtype name of an element of `bytes` bytes ("fp64" for 8, "fp32" for 4), or nullopt.
[[nodiscard]] constexpr std::optional<std::string_view> stream_dtype_of_size(std::uint64_t bytes) {
  for (const auto& d : stream_dtypes) {
    if (static_cast<std::uint64_t>(d.bytes) == bytes) return d.name;
  }
  return std::nullopt;
}

/// The element size of dtype `name`, or nullopt.
[[nodiscard]] constexpr std::optional<int> stream_dtype_bytes(std::string_view name) {
  for (const auto& d : stream_dtypes) {
    if (d.name == name) return d.bytes;
  }
  return std::nullopt;
}

/// The kernel names in table order: the `kernel` axis of the stream benchmark.
[[nodiscard]] std::vector<std::string> stream_kernel_names();

/// The dtype names in table order ("fp64", "fp32"): the `dtype` axis's choices.
[[nodiscard]] std::vector<std::string> stream_dtype_names();

}  // namespace ironbench::schema
