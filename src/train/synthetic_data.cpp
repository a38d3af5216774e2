#include "train/synthetic_data.hpp"

#include <ATen/CPUGeneratorImpl.h>

#include <random>

namespace ironbench::train {

std::vector<torch::Tensor> markov_token_batches(std::int64_t vocabulary, std::int64_t seq_len, std::int64_t rows,
                                                int count, std::uint64_t seed) {
  constexpr int successors = 4;
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::int64_t> any_token(0, vocabulary - 1);
  std::uniform_int_distribution<int> any_successor(0, successors - 1);
  std::vector<std::int64_t> table(static_cast<std::size_t>(vocabulary * successors));
  for (auto& t : table) t = any_token(random);
  std::vector<torch::Tensor> batches;
  for (int b = 0; b < count; ++b) {
    auto tokens = torch::empty({rows, seq_len + 1}, torch::kLong);
    auto* out = tokens.data_ptr<std::int64_t>();
    for (std::int64_t r = 0; r < rows; ++r) {
      std::int64_t token = any_token(random);
      for (std::int64_t t = 0; t <= seq_len; ++t) {
        *out++ = token;
        token = table[static_cast<std::size_t>(token * successors + any_successor(random))];
      }
    }
    batches.push_back(tokens);
  }
  return batches;
}

std::vector<std::pair<torch::Tensor, torch::Tensor>> regression_batches(std::int64_t in, std::int64_t out,
                                                                        std::int64_t rows, int count,
                                                                        std::uint64_t seed) {
  auto generator = at::detail::createCPUGenerator(seed);
  std::vector<std::pair<torch::Tensor, torch::Tensor>> batches;
  for (int b = 0; b < count; ++b) {
    auto x = torch::randn({rows, in}, generator, torch::kFloat);
    auto y = torch::randn({rows, out}, generator, torch::kFloat);
    batches.emplace_back(x, y);
  }
  return batches;
}

}  // namespace ironbench::train
