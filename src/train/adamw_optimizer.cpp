#include "train/adamw_optimizer.hpp"

#include "train/torch_compat.hpp"

namespace ironbench::train {

adamw_optimizer::adamw_optimizer(std::vector<torch::Tensor> params, const adamw_settings& s, torch::Device device)
    : params_(std::move(params)), settings_(s), fused_(s.fused && compat::fused_adamw_available(device)) {
  if (fused_) {
    for (const auto& p : params_) {
      exp_avgs_.push_back(torch::zeros_like(p, torch::MemoryFormat::Preserve));
      exp_avg_sqs_.push_back(torch::zeros_like(p, torch::MemoryFormat::Preserve));
      steps_.push_back(torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat).device(device)));
    }
  } else {
    fallback_ = std::make_unique<torch::optim::AdamW>(
        params_, torch::optim::AdamWOptions(s.lr).betas({s.beta1, s.beta2}).eps(s.eps).weight_decay(s.weight_decay));
  }
}

void adamw_optimizer::step() {
  torch::NoGradGuard no_grad;
  if (!fused_) {
    fallback_->step();
    return;
  }
  std::vector<torch::Tensor> params, grads, exp_avgs, exp_avg_sqs, steps;
  for (std::size_t i = 0; i < params_.size(); ++i) {
    if (!params_[i].grad().defined()) continue;
    params.push_back(params_[i]);
    grads.push_back(params_[i].grad());
    exp_avgs.push_back(exp_avgs_[i]);
    exp_avg_sqs.push_back(exp_avg_sqs_[i]);
    steps.push_back(steps_[i]);
  }
  if (params.empty()) return;
  compat::fused_adamw_step(params, grads, exp_avgs, exp_avg_sqs, steps, settings_.lr, settings_.beta1, settings_.beta2,
                           settings_.weight_decay, settings_.eps);
}

void adamw_optimizer::zero_grad_to_none() {
  for (auto& p : params_) p.mutable_grad() = torch::Tensor();
}

std::string adamw_optimizer::description() const {
  return fused_ ? "fused AdamW (at::_fused_adamw_)" : "torch::optim::AdamW (a loop over the parameters)";
}

}  // namespace ironbench::train
