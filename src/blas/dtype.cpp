#include "blas/dtype.hpp"

#include <cmath>

namespace ironbench::blas {

const char* to_string(dtype type) {
  switch (type) {
    case dtype::fp64: return "fp64";
    case dtype::fp32: return "fp32";
    case dtype::bf16: return "bf16";
  }
  return "unknown";
}

std::optional<dtype> dtype_from_string(const std::string& name) {
  for (auto t : {dtype::fp64, dtype::fp32, dtype::bf16}) {
    if (name == to_string(t)) return t;
  }
  return std::nullopt;
}

std::size_t input_bytes(dtype type) {
  switch (type) {
    case dtype::fp64: return 8;
    case dtype::fp32: return 4;
    case dtype::bf16: return 2;
  }
  return 0;
}

std::size_t output_bytes(dtype type) { return type == dtype::fp64 ? 8 : 4; }

double accumulation_roundoff(dtype type) { return type == dtype::fp64 ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24); }

}  // namespace ironbench::blas
