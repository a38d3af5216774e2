#include "train/trainer.hpp"

#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>

#include "train/adamw_optimizer.hpp"
#include "train/gpt_model.hpp"
#include "train/gradient_reducer.hpp"
#include "train/mlp_model.hpp"
#include "train/synthetic_data.hpp"

namespace ironbench::train {

namespace {

std::optional<torch::ScalarType> autocast_dtype(const std::string& dtype) {
  if (dtype == "bf16") return torch::kBFloat16;
  if (dtype == "fp16") return torch::kHalf;
  return std::nullopt;
}

/// Linux: clears the peak resident set size (VmHWM) so that the next reading is this run's.
void reset_host_peak() {
  std::ofstream clear("/proc/self/clear_refs");
  if (clear) clear << "5";
}

double host_peak_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) {
      std::istringstream in(line.substr(6));
      double kib = 0;
      in >> kib;
      return kib * 1024;
    }
  }
  return 0;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

/// GradScaler's dynamic loss scale for fp16: scale up after 2000 clean steps, halve and skip
/// the update on overflow.
class loss_scaler {
 public:
  explicit loss_scaler(torch::Device device)
      : found_inf_(torch::zeros({1}, torch::TensorOptions().dtype(torch::kFloat).device(device))),
        inv_scale_(torch::zeros({1}, torch::TensorOptions().dtype(torch::kFloat).device(device))) {}
  [[nodiscard]] double scale() const { return scale_; }
  /// Unscales the gradients in place; false when one of them is not finite (skip the step).
  bool unscale(const std::vector<torch::Tensor>& params) {
    std::vector<torch::Tensor> grads;
    for (const auto& p : params) {
      if (p.grad().defined()) grads.push_back(p.grad());
    }
    found_inf_.zero_();
    inv_scale_.fill_(1.0 / scale_);
    at::_amp_foreach_non_finite_check_and_unscale_(grads, found_inf_, inv_scale_);
    const bool finite = found_inf_.item<float>() == 0.0F;
    if (!finite) {
      scale_ /= 2;
      clean_steps_ = 0;
    } else if (++clean_steps_ == 2000) {
      scale_ *= 2;
      clean_steps_ = 0;
    }
    return finite;
  }

 private:
  double scale_ = 65536;
  int clean_steps_ = 0;
  torch::Tensor found_inf_, inv_scale_;
};

class training_session {
 public:
  training_session(const train_settings& s, torch::Device device, gradient_transport* transport)
      : settings_(s), device_(device), transport_(transport), mixed_(autocast_dtype(s.dtype)) {
    if (s.dtype == "fp16" && device.is_cpu())
      throw std::invalid_argument("fp16 autocast needs a GPU; use bf16 on CPUs");
    torch::manual_seed(s.seed);
    const int ranks = transport != nullptr ? transport->size() : 1;
    rank_ = transport != nullptr ? transport->rank() : 0;
    const auto global_rows = s.batch * ranks;
    if (s.kind == workload::mlp) {
      mlp_ = mlp_model(s.mlp_widths);
      mlp_->to(device);
      module_ = mlp_.ptr().get();
      regression_ = regression_batches(s.mlp_widths.front(), s.mlp_widths.back(), global_rows, s.data_batches, s.seed);
      for (auto& [x, y] : regression_) {
        x = this_ranks_rows(x, device);
        y = this_ranks_rows(y, device);
      }
    } else {
      gpt_ = gpt_model(s.shape);
      if (s.kind == workload::lora) gpt_->add_lora(s.lora);
      gpt_->set_activation_checkpointing(s.activation_checkpointing);
      gpt_->to(device);
      module_ = gpt_.ptr().get();
      tokens_ = markov_token_batches(s.shape.vocabulary, s.shape.seq_len, global_rows, s.data_batches, s.seed);
      for (auto& rows : tokens_) rows = this_ranks_rows(rows, device);
    }
    for (const auto& p : module_->parameters()) {
      parameters_ += p.numel();
      if (p.requires_grad()) {
        trainable_.push_back(p);
        trainable_parameters_ += p.numel();
      } else {
        frozen_.push_back(p);
      }
    }
    if (transport_ != nullptr) {
      reducer_ = std::make_unique<gradient_reducer>(trainable_, *transport_, s.bucket_megabytes);
      reducer_->broadcast_parameters();
    }
    adamw_settings optimizer_settings;
    optimizer_settings.lr = s.lr;
    optimizer_settings.weight_decay = s.weight_decay;
    optimizer_settings.fused = s.fused_optimizer;
    optimizer_ = std::make_unique<adamw_optimizer>(trainable_, optimizer_settings, device);
    if (s.dtype == "fp16") scaler_ = std::make_unique<loss_scaler>(device);
    frozen_checksum_ = checksum(frozen_);
  }

  /// Order-sensitive sums of the tensors' values and squares (verification only).
  static std::pair<double, double> checksum(const std::vector<torch::Tensor>& tensors) {
    torch::NoGradGuard no_grad;
    double sum = 0, squares = 0;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      const auto values = tensors[i].to(torch::kDouble);
      sum += static_cast<double>(i + 1) * values.sum().item<double>();
      squares += values.square().sum().item<double>();
    }
    return {sum, squares};
  }

  [[nodiscard]] bool frozen_unchanged() const { return checksum(frozen_) == frozen_checksum_; }
  [[nodiscard]] bool has_frozen() const { return !frozen_.empty(); }
  [[nodiscard]] std::pair<double, double> trainable_checksum() const { return checksum(trainable_); }

  /// One forward and backward pass without an update or a gradient exchange: touches the
  /// memory a step needs, so that running out of it shows before any collective starts.
  void probe() {
    if (reducer_) reducer_->set_reduce(false);
    micro_step(0).backward();
    clear_gradients();
  }

  step_record step() {
    const auto start = std::chrono::steady_clock::now();
    auto loss_total = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat).device(device_));
    for (int micro = 0; micro < settings_.grad_accum; ++micro) {
      if (reducer_) reducer_->set_reduce(micro + 1 == settings_.grad_accum);
      auto loss = micro_step(micro_counter_++) / settings_.grad_accum;
      loss_total += loss.detach().to(torch::kFloat);
      if (scaler_) loss = loss * scaler_->scale();
      loss.backward();
    }
    if (reducer_) reducer_->finish();
    bool update = true;
    if (scaler_) update = scaler_->unscale(trainable_);
    if (update) optimizer_->step();
    clear_gradients();
    compat::synchronize(device_);
    const auto end = std::chrono::steady_clock::now();
    step_record record;
    record.seconds = std::chrono::duration<double>(end - start).count();
    record.loss = loss_total.item<double>();
    record.skipped = !update;
    if (transport_ != nullptr) record.loss = transport_->sum(record.loss) / transport_->size();
    return record;
  }

  [[nodiscard]] std::int64_t parameters() const { return parameters_; }
  [[nodiscard]] std::int64_t trainable_parameters() const { return trainable_parameters_; }
  [[nodiscard]] std::string optimizer() const { return optimizer_->description(); }
  [[nodiscard]] std::size_t buckets() const { return reducer_ ? reducer_->bucket_count() : 0; }

 private:
  torch::Tensor micro_step(std::int64_t index) {
    const auto pool = static_cast<std::size_t>(index % settings_.data_batches);
    compat::autocast_scope mixed(device_, mixed_);
    if (mlp_) {
      const auto& [input, target] = regression_[pool];
      return torch::mse_loss(mlp_->forward(input), target);
    }
    const auto& rows = tokens_[pool];
    const auto seq = settings_.shape.seq_len;
    return gpt_->loss(rows.narrow(1, 0, seq), rows.narrow(1, 1, seq));
  }

  /// This rank's rows of a global micro-batch, placed on the device once, so that a step
  /// copies no data from the host (as a prefetching data loader would have it ready).
  torch::Tensor this_ranks_rows(const torch::Tensor& global, torch::Device device) const {
    return global.narrow(0, rank_ * settings_.batch, settings_.batch).to(device).contiguous();
  }

  void clear_gradients() {
    if (reducer_) {
      reducer_->zero_grad();
    } else {
      optimizer_->zero_grad_to_none();
    }
  }

  train_settings settings_;
  torch::Device device_;
  gradient_transport* transport_;
  std::optional<torch::ScalarType> mixed_;
  std::int64_t rank_ = 0;
  mlp_model mlp_{nullptr};
  gpt_model gpt_{nullptr};
  torch::nn::Module* module_ = nullptr;
  std::vector<std::pair<torch::Tensor, torch::Tensor>> regression_;
  std::vector<torch::Tensor> tokens_;
  std::vector<torch::Tensor> trainable_, frozen_;
  std::pair<double, double> frozen_checksum_;
  std::int64_t parameters_ = 0, trainable_parameters_ = 0;
  std::unique_ptr<gradient_reducer> reducer_;
  std::unique_ptr<adamw_optimizer> optimizer_;
  std::unique_ptr<loss_scaler> scaler_;
  std::int64_t micro_counter_ = 0;
};

}  // namespace

training_outcome run_training(const train_settings& settings, torch::Device device, gradient_transport* transport,
                              const step_callback& on_step, const std::atomic<bool>* cancel) {
  training_outcome outcome;
  outcome.warmup_steps = settings.warmup_steps;
  outcome.libtorch = compat::torch_version();
  outcome.attention = settings.kind == workload::mlp ? "" : compat::attention_implementation();
  compat::release_cached_memory(device);
  compat::reset_peak_memory(device);
  reset_host_peak();
  std::unique_ptr<training_session> session;
  std::string failure;
  try {
    session = std::make_unique<training_session>(settings, device, transport);
    session->probe();
  } catch (const std::exception& e) {
    if (!compat::is_out_of_memory(e)) throw;
    failure = first_line(e.what());
    session.reset();
    compat::release_cached_memory(device);
  }
  // Every rank learns whether any rank ran out of memory (no collective is in flight here).
  const double failed_ranks =
      transport != nullptr ? transport->sum(failure.empty() ? 0 : 1) : (failure.empty() ? 0 : 1);
  if (failed_ranks > 0) {
    outcome.out_of_memory = true;
    outcome.out_of_memory_message = failure.empty() ? "out of memory on another rank" : failure;
    return outcome;
  }
  outcome.parameters = session->parameters();
  outcome.trainable_parameters = session->trainable_parameters();
  outcome.optimizer = session->optimizer();
  outcome.gradient_buckets = session->buckets();
  const int total = settings.warmup_steps + settings.steps;
  try {
    for (int i = 0; i < total; ++i) {
      bool stop = cancel != nullptr && cancel->load();
      if (transport != nullptr) stop = transport->max(stop ? 1 : 0) > 0;  // every rank stops at the same step
      if (stop) {
        outcome.interrupted = true;
        break;
      }
      outcome.steps.push_back(session->step());
      if (on_step) on_step(i, outcome.steps.back());
    }
  } catch (const std::exception& e) {
    // With other ranks waiting in a collective this rank cannot recover.
    if (transport != nullptr || !compat::is_out_of_memory(e)) throw;
    outcome.out_of_memory = true;
    outcome.out_of_memory_message = first_line(e.what());
  }
  if (session->has_frozen()) outcome.frozen_unchanged = session->frozen_unchanged();
  outcome.final_checksum = session->trainable_checksum();
  if (transport != nullptr) {
    const double mine = outcome.final_checksum->first;
    outcome.replicas_identical = transport->max(mine) == -transport->max(-mine);
  }
  outcome.gpu_memory = compat::peak_memory(device);
  outcome.host_peak_rss_bytes = host_peak_bytes();
  session.reset();
  compat::release_cached_memory(device);
  return outcome;
}

}  // namespace ironbench::train
