#include "benchmarks/host_random.hpp"

#include <algorithm>
#include <random>

namespace ironbench::benchmarks {

void fill_standard_normal(std::span<double> values, std::uint64_t seed) {
  constexpr std::size_t chunk = 1 << 16;  // each chunk has its own generator: thread-count free
  const auto chunks = static_cast<std::int64_t>((values.size() + chunk - 1) / chunk);
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < chunks; ++c) {
    std::mt19937_64 generator(seed ^ (0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(c + 1)));
    std::normal_distribution<double> normal(0.0, 1.0);
    const auto begin = static_cast<std::size_t>(c) * chunk;
    const auto end = std::min(values.size(), begin + chunk);
    for (auto i = begin; i < end; ++i) values[i] = normal(generator);
  }
}

}  // namespace ironbench::benchmarks
