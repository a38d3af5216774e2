// The libtorch side of training on the CPU: attention against a hand-written reference,
// activation checkpointing against plain back-propagation, LoRA leaving the base weights
// untouched, and the GPT, LoRA and MLP workloads learning (the loss falls) in fp32 and bf16.
#include <gtest/gtest.h>

#include <cmath>

#include "train/adamw_optimizer.hpp"
#include "train/gpt_model.hpp"
#include "train/gradient_reducer.hpp"
#include "train/synthetic_data.hpp"
#include "train/torch_compat.hpp"
#include "train/trainer.hpp"
#include "train/training_results.hpp"

namespace ironbench::train {
namespace {

gpt_shape tiny_gpt() {
  gpt_shape s;
  s.name = "tiny";
  s.layers = 2;
  s.heads = 2;
  s.d_model = 32;
  s.d_ff = 64;
  s.vocabulary = 97;
  s.seq_len = 16;
  return s;
}

TEST(TorchTraining, CausalAttentionMatchesReference) {
  torch::manual_seed(3);
  const auto q = torch::randn({2, 3, 5, 8}), k = torch::randn({2, 3, 5, 8}), v = torch::randn({2, 3, 5, 8});
  auto scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(8.0);
  const auto future = torch::ones({5, 5}, torch::kBool).triu(1);
  scores = scores.masked_fill(future, -std::numeric_limits<float>::infinity());
  const auto expected = torch::matmul(torch::softmax(scores, -1), v);
  EXPECT_TRUE(torch::allclose(compat::causal_attention(q, k, v), expected, 1e-5, 1e-6));
}

std::vector<torch::Tensor> gradients(bool checkpointing) {
  torch::manual_seed(7);
  gpt_model model(tiny_gpt());
  model->set_activation_checkpointing(checkpointing);
  const auto tokens = markov_token_batches(97, 16, 3, 1, 11).front();
  model->loss(tokens.narrow(1, 0, 16), tokens.narrow(1, 1, 16)).backward();
  std::vector<torch::Tensor> grads;
  for (const auto& p : model->parameters()) grads.push_back(p.grad().clone());
  return grads;
}

TEST(TorchTraining, ActivationCheckpointingGivesTheSameGradients) {
  const auto plain = gradients(false);
  const auto recomputed = gradients(true);
  ASSERT_EQ(plain.size(), recomputed.size());
  for (std::size_t i = 0; i < plain.size(); ++i) {
    ASSERT_TRUE(recomputed[i].defined()) << "parameter " << i << " got no gradient";
    EXPECT_TRUE(torch::allclose(plain[i], recomputed[i], 1e-4, 1e-6)) << "parameter " << i;
  }
}

TEST(TorchTraining, LoraLeavesBaseWeightsUnchanged) {
  torch::manual_seed(5);
  gpt_model model(tiny_gpt());
  lora_spec spec;
  spec.rank = 4;
  spec.targets = {lora_target::qkv, lora_target::proj, lora_target::fc1, lora_target::fc2};
  model->add_lora(spec);
  std::vector<torch::Tensor> frozen, frozen_before, adapters;
  for (const auto& item : model->named_parameters()) {
    if (item.value().requires_grad()) {
      EXPECT_NE(item.key().find("lora_"), std::string::npos) << item.key() << " should be frozen";
      adapters.push_back(item.value());
    } else {
      frozen.push_back(item.value());
      frozen_before.push_back(item.value().clone());
    }
  }
  EXPECT_EQ(static_cast<std::int64_t>(adapters.size()), 2 * 4 * tiny_gpt().layers);
  std::int64_t adapter_parameters = 0;
  for (const auto& a : adapters) adapter_parameters += a.numel();
  EXPECT_EQ(adapter_parameters, lora_trainable_parameters(tiny_gpt(), spec));
  adamw_optimizer optimizer(adapters, adamw_settings{}, torch::kCPU);
  const auto tokens = markov_token_batches(97, 16, 4, 1, 2).front();
  for (int step = 0; step < 3; ++step) {
    model->loss(tokens.narrow(1, 0, 16), tokens.narrow(1, 1, 16)).backward();
    optimizer.step();
    optimizer.zero_grad_to_none();
  }
  for (std::size_t i = 0; i < frozen.size(); ++i) EXPECT_TRUE(torch::equal(frozen[i], frozen_before[i])) << i;
  bool some_adapter_moved = false;
  for (const auto& a : adapters) some_adapter_moved |= a.abs().sum().item<double>() > 0 && a.dim() == 2;
  EXPECT_TRUE(some_adapter_moved);
}

// A transport standing in for `ranks` identical ranks: a sum multiplies by the ranks. It
// records when each sum starts: during the backward pass (from a gradient hook) or after.
class identical_ranks_transport final : public gradient_transport {
 public:
  explicit identical_ranks_transport(int ranks) : ranks_(ranks) {}
  int rank() const override { return 0; }
  int size() const override { return ranks_; }
  std::string description() const override { return "identical ranks (test)"; }
  void start_sum(torch::Tensor& flat) override {
    flat.mul_(ranks_);
    started.push_back(flat.numel());
    started_in_backward.push_back(in_backward);
  }
  void progress() override {}
  void wait_all() override { ++waits; }
  void broadcast(torch::Tensor&) override { ++broadcasts; }
  double sum(double value) override { return value * ranks_; }
  double max(double value) override { return value; }

  bool in_backward = false;
  std::vector<std::int64_t> started;
  std::vector<bool> started_in_backward;
  int waits = 0, broadcasts = 0;

 private:
  int ranks_;
};

TEST(GradientReducer, BucketsStartDuringBackwardAndAverage) {
  const auto tokens = markov_token_batches(97, 16, 3, 1, 11).front();
  const auto input = tokens.narrow(1, 0, 16), target = tokens.narrow(1, 1, 16);
  torch::manual_seed(7);
  gpt_model reference(tiny_gpt());
  reference->loss(input, target).backward();

  torch::manual_seed(7);
  gpt_model model(tiny_gpt());
  identical_ranks_transport transport(4);
  // ~40 KB buckets: several of them for this model.
  gradient_reducer reducer(model->parameters(), transport, 0.04);
  ASSERT_GT(reducer.bucket_count(), 2u);
  reducer.broadcast_parameters();
  EXPECT_EQ(transport.broadcasts, static_cast<int>(model->parameters().size()));

  transport.in_backward = true;
  model->loss(input, target).backward();
  transport.in_backward = false;
  // Every bucket was started by the gradient hooks, before backward() returned.
  ASSERT_EQ(transport.started.size(), reducer.bucket_count());
  for (const bool during : transport.started_in_backward) EXPECT_TRUE(during);
  reducer.finish();
  EXPECT_EQ(transport.waits, 1);
  // Sum over 4 identical ranks, divided by 4: the single-process gradient.
  const auto params = model->parameters();
  const auto expected = reference->parameters();
  for (std::size_t i = 0; i < params.size(); ++i) {
    EXPECT_TRUE(torch::allclose(params[i].grad(), expected[i].grad(), 1e-6, 1e-7)) << i;
  }

  // Accumulation: no exchange until the last micro-batch.
  reducer.zero_grad();
  transport.started.clear();
  reducer.set_reduce(false);
  model->loss(input, target).backward();
  EXPECT_TRUE(transport.started.empty());
  reducer.set_reduce(true);
  model->loss(input, target).backward();
  reducer.finish();
  EXPECT_EQ(transport.started.size(), reducer.bucket_count());
  for (std::size_t i = 0; i < params.size(); ++i) {
    EXPECT_TRUE(torch::allclose(params[i].grad(), 2 * expected[i].grad(), 1e-5, 1e-6)) << i;
  }
}

training_outcome train_tiny(workload kind, const std::string& dtype, bool checkpointing = false,
                            torch::Device device = torch::kCPU) {
  train_settings s;
  s.kind = kind;
  s.shape = tiny_gpt();
  s.mlp_widths = {32, 64, 16};
  s.batch = 4;
  s.steps = 12;
  s.warmup_steps = 2;
  s.dtype = dtype;
  s.lr = 3e-3;
  s.activation_checkpointing = checkpointing;
  s.lora.targets = {lora_target::qkv, lora_target::fc1};
  return run_training(s, device, nullptr, nullptr);
}

void expect_learns(const training_outcome& outcome) {
  ASSERT_FALSE(outcome.out_of_memory) << outcome.out_of_memory_message;
  ASSERT_EQ(outcome.steps.size(), 14u);
  std::string why;
  EXPECT_TRUE(loss_fell(outcome.steps, why)) << why;
  EXPECT_EQ(outcome.timed().size(), 12u);
  for (const auto& step : outcome.steps) EXPECT_GT(step.seconds, 0);
}

TEST(TorchTraining, GptLossFalls) {
  const auto outcome = train_tiny(workload::gpt, "fp32");
  expect_learns(outcome);
  EXPECT_EQ(outcome.trainable_parameters, outcome.parameters);
  EXPECT_EQ(outcome.parameters, total_parameters(tiny_gpt()));
}

TEST(TorchTraining, GptLossFallsWithBf16AutocastAndCheckpointing) {
  expect_learns(train_tiny(workload::gpt, "bf16", true));
}

TEST(TorchTraining, LoraLossFallsWithTheBaseFrozen) {
  const auto outcome = train_tiny(workload::lora, "fp32");
  expect_learns(outcome);
  ASSERT_TRUE(outcome.frozen_unchanged.has_value());
  EXPECT_TRUE(*outcome.frozen_unchanged);
  EXPECT_LT(outcome.trainable_parameters, outcome.parameters / 4);
}

TEST(TorchTraining, MlpLossFalls) { expect_learns(train_tiny(workload::mlp, "fp32")); }

TEST(TorchTraining, SameSeedSameLossCurve) {
  const auto a = train_tiny(workload::gpt, "fp32");
  const auto b = train_tiny(workload::gpt, "fp32");
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (std::size_t i = 0; i < a.steps.size(); ++i) EXPECT_DOUBLE_EQ(a.steps[i].loss, b.steps[i].loss) << i;
}

// Skips a test where this libtorch has no GPU to run on.
#define REQUIRE_TORCH_GPU()                                                       \
  if (compat::gpu_count() == 0) {                                                 \
    GTEST_SKIP() << "libtorch " << compat::torch_version()                        \
                 << " sees no GPU (a CPU-only libtorch, or no device or driver)"; \
  }

// On a GPU (where this libtorch has CUDA or ROCm and sees a device): bf16 autocast, fused
// AdamW, flash / memory-efficient attention and the caching allocator's peaks.
TEST(TorchTrainingGpu, Bf16GptLearnsWithMemoryPeaks) {
  REQUIRE_TORCH_GPU();
  const auto outcome = train_tiny(workload::gpt, "bf16", false, torch::Device(torch::kCUDA, 0));
  expect_learns(outcome);
  ASSERT_TRUE(outcome.gpu_memory.has_value());
  EXPECT_GT(outcome.gpu_memory->peak_allocated_bytes, 0);
  EXPECT_GE(outcome.gpu_memory->peak_reserved_bytes, outcome.gpu_memory->peak_allocated_bytes);
  EXPECT_NE(outcome.optimizer.find("fused"), std::string::npos);
}

TEST(TorchTrainingGpu, Fp16LossScalingLearns) {
  REQUIRE_TORCH_GPU();
  expect_learns(train_tiny(workload::gpt, "fp16", true, torch::Device(torch::kCUDA, 0)));
}

TEST(TorchTrainingGpu, Bf16LoraLearnsWithTheBaseFrozen) {
  REQUIRE_TORCH_GPU();
  const auto outcome = train_tiny(workload::lora, "bf16", false, torch::Device(torch::kCUDA, 0));
  expect_learns(outcome);
  ASSERT_TRUE(outcome.frozen_unchanged.has_value());
  EXPECT_TRUE(*outcome.frozen_unchanged);
  ASSERT_TRUE(outcome.gpu_memory.has_value());
  EXPECT_GT(outcome.gpu_memory->peak_allocated_bytes, 0);
}

TEST(TorchTrainingGpu, MlpLearns) {
  REQUIRE_TORCH_GPU();
  expect_learns(train_tiny(workload::mlp, "fp32", false, torch::Device(torch::kCUDA, 0)));
}

}  // namespace
}  // namespace ironbench::train
