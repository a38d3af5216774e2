#include "comm/collective_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "blas/float_formats.hpp"
#include "schema/collective_kinds.hpp"

namespace ironbench::comm {
namespace {

// Inputs are made and outputs checked on the host, element by element: from this many
// elements on, by every core (a 1 GiB all_reduce's fill and check took about a second each
// on one core, most of a 1 GiB sweep's time).
constexpr std::size_t parallel_elements = std::size_t{1} << 22;

bool is_float(element_type type) { return type != element_type::int8 && type != element_type::int32; }

double ulp_of(element_type type, double value) {
  const double magnitude = std::max(std::fabs(value), 1e-30);
  int exponent = 0;
  std::frexp(magnitude, &exponent);
  int mantissa_bits = 52;
  if (type == element_type::fp32) mantissa_bits = 23;
  if (type == element_type::fp16) mantissa_bits = 10;
  if (type == element_type::bf16) mantissa_bits = 7;
  return std::ldexp(1.0, exponent - 1 - mantissa_bits);
}

void store(element_type type, void* buffer, std::size_t index, double value) {
  auto* bytes = static_cast<unsigned char*>(buffer);
  switch (type) {
    case element_type::int8: {
      const auto v = static_cast<std::int8_t>(value);
      std::memcpy(bytes + index, &v, 1);
      break;
    }
    case element_type::int32: {
      const auto v = static_cast<std::int32_t>(value);
      std::memcpy(bytes + 4 * index, &v, 4);
      break;
    }
    case element_type::fp16:
    case element_type::bf16: {
      const auto v = static_cast<std::uint16_t>(blas::encode_small_float(
          static_cast<float>(value), type == element_type::fp16 ? blas::fp16_format : blas::bf16_format));
      std::memcpy(bytes + 2 * index, &v, 2);
      break;
    }
    case element_type::fp32: {
      const auto v = static_cast<float>(value);
      std::memcpy(bytes + 4 * index, &v, 4);
      break;
    }
    case element_type::fp64: std::memcpy(bytes + 8 * index, &value, 8); break;
  }
}

}  // namespace

double input_value(collective c, reduce_op op, int rank, std::size_t index) {
  return schema::kind_of(c).input(op, rank, index);
}

double expected_output(collective c, reduce_op op, element_type type, const call_shape& shape, int rank, int ranks,
                       int root, std::size_t index) {
  return schema::expected_values_of(c, {shape, type, op, rank, ranks, root})(index);
}

void fill_input(collective c, reduce_op op, element_type type, int rank, void* buffer, std::size_t count) {
  const auto input = schema::kind_of(c).input;
  const auto n = static_cast<std::ptrdiff_t>(count);
#pragma omp parallel for schedule(static) if (count >= parallel_elements)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const auto index = static_cast<std::size_t>(i);
    store(type, buffer, index, input(op, rank, index));
  }
}

double element_at(element_type type, const void* buffer, std::size_t index) {
  const auto* bytes = static_cast<const unsigned char*>(buffer);
  switch (type) {
    case element_type::int8: {
      std::int8_t v = 0;
      std::memcpy(&v, bytes + index, 1);
      return v;
    }
    case element_type::int32: {
      std::int32_t v = 0;
      std::memcpy(&v, bytes + 4 * index, 4);
      return v;
    }
    case element_type::fp16:
    case element_type::bf16: {
      std::uint16_t v = 0;
      std::memcpy(&v, bytes + 2 * index, 2);
      return blas::decode_small_float(v, type == element_type::fp16 ? blas::fp16_format : blas::bf16_format);
    }
    case element_type::fp32: {
      float v = 0;
      std::memcpy(&v, bytes + 4 * index, 4);
      return v;
    }
    case element_type::fp64: {
      double v = 0;
      std::memcpy(&v, bytes + 8 * index, 8);
      return v;
    }
  }
  return 0.0;
}

std::size_t count_wrong(collective c, reduce_op op, element_type type, const call_shape& shape, int rank, int ranks,
                        int root, const void* output) {
  const auto& kind = schema::kind_of(c);
  if (kind.output_at_root_only && rank != root) return 0;
  const bool tolerant = op == reduce_op::avg && kind.reduces && is_float(type);
  const auto expected = schema::expected_values_of(c, {shape, type, op, rank, ranks, root});
  // A reduction's inputs repeat with the index (period 5, 3 or 7), so its results do too:
  // computed once per phase, not once per element and rank.
  std::vector<double> by_phase(kind.period);
  for (std::size_t phase = 0; phase < kind.period; ++phase) by_phase[phase] = expected(phase);
  std::size_t wrong = 0;
  const auto n = static_cast<std::ptrdiff_t>(shape.recv_count);
#pragma omp parallel for schedule(static) reduction(+ : wrong) if (shape.recv_count >= parallel_elements)
  for (std::ptrdiff_t signed_i = 0; signed_i < n; ++signed_i) {
    const auto i = static_cast<std::size_t>(signed_i);
    const double want = kind.period > 0 ? by_phase[i % kind.period] : expected(i);
    const double value = element_at(type, output, i);
    const bool ok = tolerant ? std::fabs(value - want) <= 2 * ulp_of(type, want) : value == want;
    if (!ok) ++wrong;
  }
  return wrong;
}

}  // namespace ironbench::comm
