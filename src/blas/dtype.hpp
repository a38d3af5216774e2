// Element types of matrix multiplications, with their names on the command line.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace ironbench::blas {

/// fp64/fp32: IEEE binary64/32. bf16: bfloat16 inputs with fp32 accumulation and output.
enum class dtype { fp64, fp32, bf16 };

[[nodiscard]] const char* to_string(dtype type);
[[nodiscard]] std::optional<dtype> dtype_from_string(const std::string& name);

/// Bytes of one input element.
[[nodiscard]] std::size_t input_bytes(dtype type);
/// Bytes of one output element (bf16 GEMMs write fp32).
[[nodiscard]] std::size_t output_bytes(dtype type);
/// Unit roundoff of the accumulation (2^-53 for fp64, 2^-24 for fp32 and bf16), which bounds
/// the rounding error a correct GEMM may make.
[[nodiscard]] double accumulation_roundoff(dtype type);

}  // namespace ironbench::blas
