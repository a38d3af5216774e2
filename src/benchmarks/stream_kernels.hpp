// The STREAM kernels (McCalpin's four plus BabelStream's dot and nstream) on the host with
// OpenMP and the analytic check of their results. Their names and byte weights are
// schema/stream.hpp's, shared with the BabelStream importer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "benchmarks/stream_values.hpp"
#include "schema/stream.hpp"

namespace ironbench::benchmarks {

/// The kernels in the order of schema::stream_kernels (the value indexes that table).
enum class stream_kernel { copy, mul, add, triad, dot, nstream };

/// The kernel's name in results ("copy", ...), from schema::stream_kernels.
[[nodiscard]] const char* to_string(stream_kernel kernel);
/// The kernel named `name`, or nullopt when schema::stream_kernels has no such name.
[[nodiscard]] std::optional<stream_kernel> stream_kernel_from_string(const std::string& name);

/// Arrays read and written per element: schema::stream_kernels' row of `kernel`.
[[nodiscard]] schema::stream_kernel_traffic traffic_of(stream_kernel kernel);

/// Writes the initial values in parallel (first touch by the threads that run the kernels).
template <typename T>
void stream_initialize(T* a, T* b, T* c, std::size_t n);

/// Runs `kernel` once over n elements: copy c=a; mul b=s*c; add c=a+b; triad a=b+s*c;
/// dot returns sum(a*b) accumulated in double; nstream a+=b+s*c. Returns 0 except for dot.
template <typename T>
double stream_run(stream_kernel kernel, T* a, T* b, T* c, std::size_t n);

struct stream_check_result {
  bool ok = true;
  std::string detail;  ///< the first wrong element or sum, when not ok
};

/// Checks every element of a, b and c (and the dot sum) against the values `kernel` must
/// produce from the initial arrays after `iterations` runs.
template <typename T>
[[nodiscard]] stream_check_result stream_check(stream_kernel kernel, const T* a, const T* b, const T* c, std::size_t n,
                                               std::size_t iterations, double dot_result);

}  // namespace ironbench::benchmarks
