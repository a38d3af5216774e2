// Synthetic training data with a fixed seed, identical on every rank and every libtorch: the
// same global micro-batches, of which each data-parallel rank takes its own rows.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace ironbench::train {

/// Token sequences [rows, seq_len + 1] from a random Markov chain over `vocabulary` tokens in
/// which each token has 4 possible successors: learnable (the loss can fall towards ln 4), and
/// generated with std::mt19937_64 so the tokens do not depend on the libtorch version.
[[nodiscard]] std::vector<torch::Tensor> markov_token_batches(std::int64_t vocabulary, std::int64_t seq_len,
                                                              std::int64_t rows, int count, std::uint64_t seed);

/// Inputs and targets for the MLP: pairs of N(0, 1) matrices [rows, in] and [rows, out].
[[nodiscard]] std::vector<std::pair<torch::Tensor, torch::Tensor>> regression_batches(std::int64_t in, std::int64_t out,
                                                                                      std::int64_t rows, int count,
                                                                                      std::uint64_t seed);

}  // namespace ironbench::train
