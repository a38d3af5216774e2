// The predictable inputs against a plain simulation of each collective over n ranks: a
// correct result has no wrong element, and any corrupted element is counted.
#include "comm/collective_data.hpp"

#include "blas/float_formats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace ironbench::comm {
namespace {

using bytes = std::vector<unsigned char>;

// Writes `value` into element `index` of a buffer of `type` (rounded to nearest for fp16/bf16).
void put(element_type type, bytes& buffer, std::size_t index, double value);

double combine(reduce_op op, double a, double b) {
  switch (op) {
    case reduce_op::sum:
    case reduce_op::avg: return a + b;
    case reduce_op::prod: return a * b;
    case reduce_op::max: return std::max(a, b);
    case reduce_op::min: return std::min(a, b);
  }
  return 0;
}

// alltoallv's documented pattern, spelled out: of each rank's C elements, s sends d
// u(k + 1), k = (s + d) mod n, u = C / (n(n+1)/2) rounded down, and the k = 0 pair also the rest.
std::size_t alltoallv_count(std::size_t c, int s, int d, int n) {
  const std::size_t shares = static_cast<std::size_t>(n * (n + 1) / 2);
  const std::size_t u = c / shares;
  const auto k = static_cast<std::size_t>((s + d) % n);
  return u * (k + 1) + (k == 0 ? c - u * shares : 0);
}

// Rank r's output of collective c, computed from every rank's input buffer.
bytes simulate(collective c, reduce_op op, element_type type, const call_shape& s, int r, int n, int root,
               const std::vector<bytes>& inputs) {
  bytes out(s.recv_count * element_size(type));
  const auto in = [&](int rank, std::size_t i) { return element_at(type, inputs[rank].data(), i); };
  for (std::size_t i = 0; i < s.recv_count; ++i) {
    double v = 0;
    switch (c) {
      case collective::all_reduce:
      case collective::reduce:
      case collective::reduce_scatter: {
        const std::size_t j = c == collective::reduce_scatter ? static_cast<std::size_t>(r) * s.recv_count + i : i;
        v = in(0, j);
        for (int k = 1; k < n; ++k) v = combine(op, v, in(k, j));
        if (op == reduce_op::avg) {
          v /= n;
          if (type == element_type::int8 || type == element_type::int32) v = std::trunc(v);
        }
        break;
      }
      case collective::all_gather: v = in(static_cast<int>(i / s.send_count), i % s.send_count); break;
      case collective::broadcast: v = in(root, i); break;
      case collective::alltoall: {
        const std::size_t block = s.send_count / static_cast<std::size_t>(n);
        v = in(static_cast<int>(i / block), static_cast<std::size_t>(r) * block + i % block);
        break;
      }
      case collective::sendrecv: v = in((r - 1 + n) % n, i); break;
      case collective::alltoallv: {
        // Peer blocks in rank order, each read where the sender's block for r starts.
        std::size_t from = i;
        int src = 0;
        while (from >= alltoallv_count(s.send_count, src, r, n)) from -= alltoallv_count(s.send_count, src++, r, n);
        std::size_t at = 0;
        for (int d = 0; d < r; ++d) at += alltoallv_count(s.send_count, src, d, n);
        v = in(src, at + from);
        break;
      }
    }
    put(type, out, i, v);
  }
  return out;
}

void put(element_type type, bytes& buffer, std::size_t index, double value) {
  const std::size_t size = element_size(type);
  unsigned char* p = buffer.data() + index * size;
  switch (type) {
    case element_type::int8: {
      auto v = static_cast<std::int8_t>(value);
      std::memcpy(p, &v, 1);
      break;
    }
    case element_type::int32: {
      auto v = static_cast<std::int32_t>(value);
      std::memcpy(p, &v, 4);
      break;
    }
    case element_type::fp32: {
      auto v = static_cast<float>(value);
      std::memcpy(p, &v, 4);
      break;
    }
    case element_type::fp64: std::memcpy(p, &value, 8); break;
    case element_type::fp16:
    case element_type::bf16: {
      const auto v = static_cast<std::uint16_t>(blas::encode_small_float(
          static_cast<float>(value), type == element_type::fp16 ? blas::fp16_format : blas::bf16_format));
      std::memcpy(p, &v, 2);
      break;
    }
  }
}

TEST(CollectiveData, SimulatedResultsHaveNoWrongElementAndCorruptionIsCounted) {
  for (int n : {1, 2, 3, 4, 8}) {
    for (auto c : all_collectives()) {
      for (auto type : all_element_types()) {
        for (auto op : reduces(c) ? all_reduce_ops() : std::vector<reduce_op>{reduce_op::sum}) {
          const auto s = shape_of(c, 96 * element_size(type) * static_cast<std::size_t>(n), type, n);
          const int root = n - 1;
          std::vector<bytes> inputs(n, bytes(s.send_count * element_size(type)));
          for (int r = 0; r < n; ++r) fill_input(c, op, type, r, inputs[r].data(), s.send_count);
          for (int r = 0; r < n; ++r) {
            auto out = simulate(c, op, type, s, r, n, root, inputs);
            ASSERT_EQ(count_wrong(c, op, type, s, r, n, root, out.data()), 0u)
                << to_string(c) << " " << to_string(type) << " " << to_string(op) << " n=" << n << " rank " << r;
            if (c == collective::reduce && r != root) continue;
            put(type, out, 7, element_at(type, out.data(), 7) + 1);
            put(type, out, s.recv_count - 1, element_at(type, out.data(), s.recv_count - 1) - 1);
            EXPECT_EQ(count_wrong(c, op, type, s, r, n, root, out.data()), 2u)
                << to_string(c) << " " << to_string(type) << " " << to_string(op) << " n=" << n;
          }
        }
      }
    }
  }
}

TEST(CollectiveData, AnEvenSplitIsWrongForAlltoallvAndItsOwnPatternIsRight) {
  for (int n : {2, 3, 5}) {
    const auto s = shape_of(collective::alltoallv, 960 * 4, element_type::fp32, n);
    std::vector<bytes> inputs(n, bytes(s.send_count * 4));
    for (int r = 0; r < n; ++r)
      fill_input(collective::alltoallv, reduce_op::sum, element_type::fp32, r, inputs[r].data(), s.send_count);
    for (int r = 0; r < n; ++r) {
      const auto uneven = simulate(collective::alltoallv, reduce_op::sum, element_type::fp32, s, r, n, 0, inputs);
      EXPECT_EQ(count_wrong(collective::alltoallv, reduce_op::sum, element_type::fp32, s, r, n, 0, uneven.data()), 0u);
      const auto even = simulate(collective::alltoall, reduce_op::sum, element_type::fp32, s, r, n, 0, inputs);
      EXPECT_GE(count_wrong(collective::alltoallv, reduce_op::sum, element_type::fp32, s, r, n, 0, even.data()),
                s.recv_count / 2)
          << "n=" << n << " rank " << r;
    }
  }
}

// `value` rounded to the nearest value of a floating-point `type`.
double rounded(element_type type, double value) {
  bytes one(element_size(type));
  put(type, one, 0, value);
  return element_at(type, one.data(), 0);
}

TEST(CollectiveData, FloatAveragesAsNcclComputesThemCountNoWrongElementForAnyRankCount) {
  // NCCL's float avg: every rank's value times 1/n (rounded to the type), then summed in the
  // ring's order from any starting rank, rounding after every addition.
  for (int n = 1; n <= 24; ++n) {
    for (auto type : {element_type::fp16, element_type::bf16, element_type::fp32, element_type::fp64}) {
      const auto s = shape_of(collective::all_reduce, 60 * element_size(type), type, n);
      std::vector<bytes> inputs(n, bytes(s.send_count * element_size(type)));
      for (int r = 0; r < n; ++r)
        fill_input(collective::all_reduce, reduce_op::avg, type, r, inputs[r].data(), s.send_count);
      const double scale = rounded(type, 1.0 / n);
      for (int start = 0; start < n; ++start) {
        bytes out(s.recv_count * element_size(type));
        for (std::size_t i = 0; i < s.recv_count; ++i) {
          double sum = 0;
          for (int k = 0; k < n; ++k) {
            const int r = (start + k) % n;
            sum = rounded(type, sum + rounded(type, element_at(type, inputs[r].data(), i) * scale));
          }
          put(type, out, i, sum);
        }
        EXPECT_EQ(count_wrong(collective::all_reduce, reduce_op::avg, type, s, 0, n, 0, out.data()), 0u)
            << to_string(type) << " n=" << n << " ring from rank " << start;
      }
    }
  }
}

TEST(CollectiveData, ReducedValuesRepeatEvery105ElementsWhichTheCheckReliesOn) {
  for (auto op : all_reduce_ops()) {
    for (int n : {1, 2, 5, 16}) {
      const auto s = shape_of(collective::all_reduce, 4096 * 4, element_type::fp32, n);
      for (std::size_t i = 105; i < s.recv_count; ++i) {
        ASSERT_EQ(expected_output(collective::all_reduce, op, element_type::fp32, s, 0, n, 0, i),
                  expected_output(collective::all_reduce, op, element_type::fp32, s, 0, n, 0, i % 105))
            << to_string(op) << " n=" << n << " i=" << i;
      }
    }
  }
}

TEST(CollectiveData, InputsAreSmallIntegersThatDifferByRankAndPosition) {
  for (auto c : all_collectives()) {
    for (auto op : all_reduce_ops()) {
      bool varies_by_rank = false, varies_by_index = false;
      for (int r = 0; r < 63; ++r) {
        for (std::size_t i = 0; i < 64; ++i) {
          const double v = input_value(c, op, r, i);
          EXPECT_EQ(v, std::trunc(v));
          EXPECT_LE(std::fabs(v), 30);
          varies_by_rank = varies_by_rank || v != input_value(c, op, 0, i);
          varies_by_index = varies_by_index || v != input_value(c, op, r, 0);
        }
      }
      EXPECT_TRUE(varies_by_rank && varies_by_index) << to_string(c) << " " << to_string(op);
    }
  }
}

}  // namespace
}  // namespace ironbench::comm
