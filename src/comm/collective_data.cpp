#include "comm/collective_data.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "blas/float_formats.hpp"

namespace ironbench::comm {
namespace {

// Inputs are made and outputs checked on the host, element by element: from this many
// elements on, by every core (a 1 GiB all_reduce's fill and check took about a second each
// on one core, most of a 1 GiB sweep's time).
constexpr std::size_t parallel_elements = std::size_t{1} << 22;

double reduction_input(reduce_op op, int rank, std::size_t index) {
  const auto r = static_cast<std::size_t>(rank);
  switch (op) {
    case reduce_op::sum: return static_cast<double>((r + 2 * index) % 5) - 2.0;
    // NCCL averages floats by multiplying each rank's value by 1/n (rounded) before summing,
    // so for n not a power of two partial sums round. As in nccl-tests, only two ranks
    // contribute, which keeps the error within the tolerance whatever the rank count.
    case reduce_op::avg: return rank < 2 ? static_cast<double>((r + 2 * index) % 5) - 2.0 : 0.0;
    case reduce_op::prod: return (r + index) % 3 == 0 ? -1.0 : 1.0;
    case reduce_op::max:
    case reduce_op::min: return static_cast<double>((3 * r + index) % 7) - 3.0;
  }
  return 0.0;
}

double reduced(reduce_op op, element_type type, int ranks, std::size_t index) {
  double value = reduction_input(op, 0, index);
  for (int r = 1; r < ranks; ++r) {
    const double v = reduction_input(op, r, index);
    switch (op) {
      case reduce_op::sum:
      case reduce_op::avg: value += v; break;
      case reduce_op::prod: value *= v; break;
      case reduce_op::max: value = std::max(value, v); break;
      case reduce_op::min: value = std::min(value, v); break;
    }
  }
  if (op == reduce_op::avg) {
    value /= ranks;
    if (type == element_type::int8 || type == element_type::int32) value = std::trunc(value);
  }
  return value;
}

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
  if (reduces(c)) return reduction_input(op, rank, index);
  return static_cast<double>((static_cast<std::size_t>(rank) * 131 + index * 7) % 61) - 30.0;
}

double expected_output(collective c, reduce_op op, element_type type, const call_shape& shape, int rank, int ranks,
                       int root, std::size_t index) {
  switch (c) {
    case collective::all_reduce:
    case collective::reduce: return reduced(op, type, ranks, index);
    case collective::reduce_scatter:
      return reduced(op, type, ranks, static_cast<std::size_t>(rank) * shape.recv_count + index);
    case collective::all_gather: {
      const std::size_t per_rank = shape.send_count;
      return input_value(c, op, static_cast<int>(index / per_rank), index % per_rank);
    }
    case collective::broadcast: return input_value(c, op, root, index);
    case collective::alltoall: {
      const std::size_t block = shape.send_count / static_cast<std::size_t>(ranks);
      const auto source = static_cast<int>(index / block);
      return input_value(c, op, source, static_cast<std::size_t>(rank) * block + index % block);
    }
    case collective::sendrecv: return input_value(c, op, (rank - 1 + ranks) % ranks, index);
  }
  return 0.0;
}

void fill_input(collective c, reduce_op op, element_type type, int rank, void* buffer, std::size_t count) {
  const auto n = static_cast<std::ptrdiff_t>(count);
#pragma omp parallel for schedule(static) if (count >= parallel_elements)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const auto index = static_cast<std::size_t>(i);
    store(type, buffer, index, input_value(c, op, rank, index));
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
  if (c == collective::reduce && rank != root) return 0;
  const bool tolerant = op == reduce_op::avg && reduces(c) && is_float(type);
  // A reduction's inputs repeat with the index (period 5, 3 or 7), so its results do too:
  // computed once per phase, not once per element and rank.
  constexpr std::size_t period = 5 * 3 * 7;
  std::vector<double> reduced_by_phase;
  if (reduces(c)) {
    reduced_by_phase.resize(period);
    for (std::size_t phase = 0; phase < period; ++phase) reduced_by_phase[phase] = reduced(op, type, ranks, phase);
  }
  const std::size_t first = c == collective::reduce_scatter ? static_cast<std::size_t>(rank) * shape.recv_count : 0;
  std::size_t wrong = 0;
  const auto n = static_cast<std::ptrdiff_t>(shape.recv_count);
#pragma omp parallel for schedule(static) reduction(+ : wrong) if (shape.recv_count >= parallel_elements)
  for (std::ptrdiff_t signed_i = 0; signed_i < n; ++signed_i) {
    const auto i = static_cast<std::size_t>(signed_i);
    const double expected =
        reduces(c) ? reduced_by_phase[(first + i) % period] : expected_output(c, op, type, shape, rank, ranks, root, i);
    const double value = element_at(type, output, i);
    const bool ok = tolerant ? std::fabs(value - expected) <= 2 * ulp_of(type, expected) : value == expected;
    if (!ok) ++wrong;
  }
  return wrong;
}

}  // namespace ironbench::comm
