#include "benchmarks/builtin.hpp"

#include "benchmarks/gemm.hpp"
#include "benchmarks/stream.hpp"

namespace ironbench::benchmarks {

void register_builtin_benchmarks(core::registry& registry) {
  registry.add(make_stream_benchmark());
  registry.add(make_gemm_benchmark());
}

}  // namespace ironbench::benchmarks
