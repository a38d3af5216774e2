#include "train/mlp_model.hpp"

#include <fmt/format.h>

namespace ironbench::train {

mlp_model_impl::mlp_model_impl(const std::vector<std::int64_t>& widths) {
  for (std::size_t i = 0; i + 1 < widths.size(); ++i) {
    layers_.push_back(register_module(fmt::format("linear{}", i), torch::nn::Linear(widths[i], widths[i + 1])));
  }
}

torch::Tensor mlp_model_impl::forward(torch::Tensor x) {
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    x = layers_[i]->forward(x);
    if (i + 1 < layers_.size()) x = torch::relu(x);
  }
  return x;
}

}  // namespace ironbench::train
