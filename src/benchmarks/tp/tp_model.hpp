// The toy tensor-parallel inference model of dstack's "Benchmarking AMD GPUs: bare-metal,
// containers, partitions": Z = relu(X W1) W2 with W1 (H x F) split by columns over the ranks,
// the partial activations all-gathered, and W2 (F x H) replicated. F = 4 H. Every rank
// generates only its own shard (values depend only on the position), so any rank count gives
// the same model, and a single device runs the same one.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ironbench::benchmarks {

struct tp_shape {
  std::int64_t batch = 0;                                        ///< B: rows of X
  std::int64_t hidden = 0;                                       ///< H
  int ranks = 1;                                                 ///< n: F must divide by it
  [[nodiscard]] std::int64_t ffn() const { return 4 * hidden; }  ///< F
  [[nodiscard]] std::int64_t shard() const { return ffn() / ranks; }
  /// FLOPs of one forward pass over the whole model: 2 B H F twice.
  [[nodiscard]] double flops() const;
  /// Bytes each rank contributes to the all_gather (fp32).
  [[nodiscard]] double gather_bytes_per_rank() const;
};

/// Standard normal value number `index` of stream `seed` (counter-based: any element can be
/// generated on its own).
[[nodiscard]] double tp_normal(std::uint64_t seed, std::uint64_t index);

/// Element (row, column) of X, W1 and W2 (W1 scaled by 1/sqrt(H), W2 by 1/sqrt(F)).
[[nodiscard]] float tp_input(std::int64_t row, std::int64_t column, const tp_shape& s);
[[nodiscard]] float tp_w1(std::int64_t row, std::int64_t column, const tp_shape& s);
[[nodiscard]] float tp_w2(std::int64_t row, std::int64_t column, const tp_shape& s);

/// One rank's part of the model on the CPU (OpenBLAS fp32): X, its W1 columns, and W2.
class tp_cpu_rank {
 public:
  tp_cpu_rank(const tp_shape& shape, int rank);

  /// All-gathers `count` floats from every rank: rank r's block lands at r x count.
  using gather_function = std::function<void(const float* send, float* receive, std::size_t count)>;

  /// One forward pass; Z is left in output(). Returns the seconds spent in the gather.
  double forward(const gather_function& gather);

  [[nodiscard]] const std::vector<float>& output() const { return z_; }
  [[nodiscard]] const tp_shape& shape() const { return shape_; }

 private:
  tp_shape shape_;
  int rank_;
  std::vector<float> x_, w1_, w2_, partial_, gathered_, activations_, z_;
};

/// Checks rows `rows` of Z against an extended-precision reference of the whole model. An
/// element passes within (H + F) x 2^-23 x the sum of the magnitudes it is made of; a shard
/// in the wrong place or a wrong gather fails. Returns the number of wrong elements and sets
/// `detail` to the first.
[[nodiscard]] std::size_t tp_check_rows(const tp_shape& shape, const std::vector<float>& z,
                                        const std::vector<std::int64_t>& rows, std::string& detail);

}  // namespace ironbench::benchmarks
