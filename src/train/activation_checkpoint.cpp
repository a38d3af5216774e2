#include "train/activation_checkpoint.hpp"

#include "train/gpt_model.hpp"
#include "train/torch_compat.hpp"

namespace ironbench::train {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

constexpr std::int64_t no_autocast = -1;

struct checkpoint_function : public torch::autograd::Function<checkpoint_function> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor x, gpt_block_impl* block) {
    const auto autocast = compat::current_autocast(x.device());
    ctx->saved_data["block"] = reinterpret_cast<std::int64_t>(block);
    ctx->saved_data["autocast"] = autocast ? static_cast<std::int64_t>(*autocast) : no_autocast;
    ctx->save_for_backward({x});
    torch::NoGradGuard no_grad;
    return block->forward(x);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    auto* block = reinterpret_cast<gpt_block_impl*>(ctx->saved_data["block"].toInt());
    const auto autocast_code = ctx->saved_data["autocast"].toInt();
    const std::optional<torch::ScalarType> autocast =
        autocast_code == no_autocast ? std::nullopt : std::optional(static_cast<torch::ScalarType>(autocast_code));
    auto x = ctx->get_saved_variables()[0].detach().requires_grad_(true);
    torch::Tensor y;
    {
      torch::AutoGradMode grad_on(true);
      compat::autocast_scope mixed(x.device(), autocast);
      y = block->forward(x);
    }
    torch::autograd::backward({y}, {grad_outputs[0]});
    return {x.grad(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor checkpointed_forward(gpt_block_impl& block, const torch::Tensor& x) {
  return checkpoint_function::apply(x, &block);
}

}  // namespace ironbench::train
