// The training workloads' arithmetic: preset shapes, parameter counts, the FLOPs formula
// against hand counts, LoRA adapter sizes and targets, MFU and scaling efficiency, and the
// results built from a training outcome.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "train/gpt_shape.hpp"
#include "train/lora_spec.hpp"
#include "train/train_settings.hpp"
#include "train/training_flops.hpp"
#include "train/training_results.hpp"

namespace ironbench::train {
namespace {

TEST(GptShape, EightPresetsFromTheReport) {
  const auto& presets = gpt_presets();
  ASSERT_EQ(presets.size(), 8u);
  const auto small = find_gpt_preset("Small");
  ASSERT_TRUE(small.has_value());
  EXPECT_EQ(small->layers, 6);
  EXPECT_EQ(small->heads, 6);
  EXPECT_EQ(small->d_model, 384);
  EXPECT_EQ(small->d_ff, 1536);
  EXPECT_EQ(small->head_dim(), 64);
  const auto b13 = find_gpt_preset("13b");
  ASSERT_TRUE(b13.has_value());
  EXPECT_EQ(b13->layers, 40);
  EXPECT_EQ(b13->d_model, 5120);
  EXPECT_EQ(b13->d_ff, 13824);
  EXPECT_EQ(b13->seq_len, 1024);
  EXPECT_FALSE(find_gpt_preset("huge").has_value());
}

TEST(GptShape, ParameterCountsMatchTheReportsTable) {
  // The report's table: 30M, 124M, 354M, 773M, 1.44B, 2.65B, 5.24B, 10.12B.
  const std::vector<double> published = {30e6, 124e6, 354e6, 773e6, 1.44e9, 2.65e9, 5.24e9, 10.12e9};
  for (std::size_t i = 0; i < published.size(); ++i) {
    const auto& shape = gpt_presets()[i];
    const double counted = static_cast<double>(non_embedding_position_parameters(shape));
    EXPECT_NEAR(counted / published[i], 1.0, 0.02) << shape.name << ": " << counted;
  }
}

TEST(GptShape, BlockParametersByHand) {
  gpt_shape s;
  s.d_model = 4;
  s.d_ff = 8;
  // LayerNorms 2x(4+4); qkv 4x12+12; proj 4x4+4; fc1 4x8+8; fc2 8x4+4.
  EXPECT_EQ(block_parameters(s), 16 + 60 + 20 + 40 + 36);
}

TEST(GptShape, InvalidShapesAreNamed) {
  gpt_shape s;
  s.heads = 5;
  EXPECT_NE(s.invalid_reason().find("not a multiple of heads"), std::string::npos);
  s.heads = 0;
  EXPECT_FALSE(s.invalid_reason().empty());
  EXPECT_TRUE(gpt_shape{}.invalid_reason().empty());
}

TEST(TrainingFlops, SmallPresetByHand) {
  // N = 6 blocks x (4 d^2 + 2 d ff + 9 d + ff) + 2 d + V d with d = 384, ff = 1536, V = 50257.
  const double d = 384, ff = 1536, v = 50257, layers = 6, t = 512;
  const double block = 4 * d * d + 2 * d * ff + 9 * d + ff;
  const double n = layers * block + 2 * d + v * d;
  EXPECT_DOUBLE_EQ(static_cast<double>(non_embedding_position_parameters(*find_gpt_preset("small"))), n);
  // 6 N + 12 L H Q T with H Q = d.
  EXPECT_DOUBLE_EQ(gpt_flops_per_token(*find_gpt_preset("small")), 6 * n + 12 * layers * d * t);
  EXPECT_NEAR(gpt_flops_per_token(*find_gpt_preset("small")), 6 * 29.94e6 + 12 * 6 * 384 * 512.0, 1e6);
}

TEST(TrainingFlops, ThirteenBPresetByHand) {
  const double d = 5120, ff = 13824, v = 50257, layers = 40, t = 1024;
  const double n = layers * (4 * d * d + 2 * d * ff + 9 * d + ff) + 2 * d + v * d;
  EXPECT_DOUBLE_EQ(gpt_flops_per_token(*find_gpt_preset("13b")), 6 * n + 12 * layers * d * t);
  // About 62 GFLOP per token: 6 x 10.12e9 + 12 x 40 x 5120 x 1024.
  EXPECT_NEAR(gpt_flops_per_token(*find_gpt_preset("13b")) / 1e9, (6 * 10.12e9 + 12 * 40 * 5120 * 1024.0) / 1e9, 0.5);
}

TEST(TrainingFlops, LoraCountsFrozenWeightsTwiceAndAdaptersSixTimes) {
  const auto s = *find_gpt_preset("small");
  lora_spec spec;
  spec.rank = 8;
  spec.targets = {lora_target::qkv, lora_target::proj};
  // Per block: qkv r (d + 3d), proj r (d + d).
  const std::int64_t adapters = 6 * (8 * (384 + 3 * 384) + 8 * (384 + 384));
  EXPECT_EQ(lora_trainable_parameters(s, spec), adapters);
  const double n = static_cast<double>(non_embedding_position_parameters(s));
  EXPECT_DOUBLE_EQ(lora_flops_per_token(s, spec), 4 * n + 6.0 * adapters + 12.0 * 6 * 384 * 512);
  EXPECT_LT(lora_flops_per_token(s, spec), gpt_flops_per_token(s));
}

TEST(TrainingFlops, MlpOfTheReport) {
  const std::vector<std::int64_t> widths = {4096, 8192, 8192, 4096};
  EXPECT_DOUBLE_EQ(mlp_flops_per_sample(widths), 6.0 * (4096.0 * 8192 + 8192.0 * 8192 + 8192.0 * 4096));
  // The report's "134M parameters".
  EXPECT_NEAR(static_cast<double>(mlp_parameters(widths)) / 1e6, 134.2, 0.1);
}

TEST(TrainingFlops, UtilisationAndScaling) {
  EXPECT_DOUBLE_EQ(model_flops_utilisation(500e12, 1000e12), 0.5);
  EXPECT_DOUBLE_EQ(model_flops_utilisation(1, 0), 0);
  // The MI350X training report: 28,451 tokens/s on 2 GPUs against 18,324 on one is 77.6 %.
  EXPECT_NEAR(100 * scaling_efficiency(28451, 2, 18324), 77.6, 0.05);
  EXPECT_NEAR(100 * scaling_efficiency(70763, 8, 18324), 48.3, 0.05);
}

TEST(LoraSpec, TargetsParseWithHuggingFaceNames) {
  EXPECT_EQ(parse_lora_targets("q_proj,v_proj,o_proj"),
            (std::vector<lora_target>{lora_target::qkv, lora_target::proj}));
  EXPECT_EQ(parse_lora_targets("all").size(), 4u);
  EXPECT_EQ(parse_lora_targets("up_proj,down_proj"), (std::vector<lora_target>{lora_target::fc1, lora_target::fc2}));
  EXPECT_THROW((void)parse_lora_targets("attention"), usage_error);
  EXPECT_THROW((void)parse_lora_targets(""), usage_error);
  lora_spec spec;
  spec.alpha = 32;
  spec.rank = 16;
  EXPECT_DOUBLE_EQ(spec.scale(), 2.0);
  EXPECT_EQ(spec.targets_text(), "qkv,proj");
}

TEST(TrainSettings, ChecksNameTheFlag) {
  train_settings s;
  EXPECT_TRUE(s.invalid_reason().empty());
  s.dtype = "fp8";
  EXPECT_NE(s.invalid_reason().find("--dtype"), std::string::npos);
  s = {};
  s.steps = 1;
  EXPECT_NE(s.invalid_reason().find("--steps"), std::string::npos);
  s = {};
  s.kind = workload::mlp;
  s.mlp_widths = {4096};
  EXPECT_NE(s.invalid_reason().find("--widths"), std::string::npos);
  s = {};
  s.kind = workload::lora;
  s.lora.rank = 0;
  EXPECT_NE(s.invalid_reason().find("--lora-rank"), std::string::npos);
}

TEST(TrainingResults, LossMustFall) {
  std::string why;
  EXPECT_TRUE(loss_fell({{0.1, 10}, {0.1, 9}, {0.1, 8}, {0.1, 7}}, why));
  EXPECT_FALSE(loss_fell({{0.1, 10}, {0.1, 10}, {0.1, 10}, {0.1, 10}}, why));
  EXPECT_NE(why.find("did not fall"), std::string::npos);
  EXPECT_FALSE(loss_fell({{0.1, 10}, {0.1, std::nan("")}}, why));
  EXPECT_NE(why.find("not finite"), std::string::npos);
  EXPECT_FALSE(loss_fell({{0.1, 10}}, why));
}

core::device_info cpu_with_peak(double fp32_peak) {
  core::device_info d;
  d.id = "cpu";
  d.name = "Test CPU";
  d.kind = core::device_kind::cpu;
  d.properties = {{"peak_flops", {{"fp32", {{"flops_per_second", fp32_peak}, {"source", "test"}}}}}};
  return d;
}

TEST(TrainingResults, CaseMetricsFromOutcome) {
  training_case_context context;
  context.settings.kind = workload::gpt;
  context.settings.shape = *find_gpt_preset("small");
  context.settings.batch = 2;
  context.settings.warmup_steps = 1;
  context.device = cpu_with_peak(1e12);
  training_outcome outcome;
  outcome.warmup_steps = 1;
  outcome.steps = {{5.0, 11}, {0.5, 10}, {0.5, 9}, {1.0, 8}};
  outcome.parameters = 123;
  outcome.trainable_parameters = 123;
  const auto c = training_case(context, outcome, 1);
  EXPECT_EQ(c.benchmark, "train_gpt");
  EXPECT_EQ(c.status, core::case_status::valid) << c.reason;
  EXPECT_EQ(c.params.string("model"), "small");
  EXPECT_EQ(c.params.integer("seq_len"), 512);
  // 3 timed steps of 2 x 512 tokens in 2 s.
  ASSERT_NE(c.find_metric("tokens_per_s"), nullptr);
  EXPECT_DOUBLE_EQ(c.find_metric("tokens_per_s")->value, 3 * 1024 / 2.0);
  EXPECT_DOUBLE_EQ(c.find_metric("step_time_ms")->value, 500);
  const double flops_per_s = 3 * 1024 * gpt_flops_per_token(context.settings.shape) / 2.0;
  EXPECT_DOUBLE_EQ(c.find_metric("tflops")->value, flops_per_s / 1e12);
  EXPECT_DOUBLE_EQ(c.find_metric("mfu_percent")->value, 100 * flops_per_s / 1e12);
  EXPECT_NE(c.notes.at("mfu_peak").find("fp32 dense peak 1.000 TFLOP/s"), std::string::npos);
  EXPECT_EQ(c.series.at("loss").size(), 4u);
  ASSERT_TRUE(c.timing.has_value());
  EXPECT_EQ(c.timing->samples_s.size(), 3u);
}

TEST(TrainingResults, OutOfMemoryIsASkippedPoint) {
  training_case_context context;
  context.settings.batch = 128;
  context.device = cpu_with_peak(1e12);
  training_outcome outcome;
  outcome.out_of_memory = true;
  outcome.out_of_memory_message = "CUDA out of memory. Tried to allocate 2.00 GiB";
  const auto c = training_case(context, outcome, 1);
  EXPECT_EQ(c.status, core::case_status::skipped);
  EXPECT_NE(c.reason.find("out of memory at batch 128"), std::string::npos);
  EXPECT_EQ(c.notes.at("outcome"), "out_of_memory");
}

TEST(TrainingResults, FailedChecksMakeTheCaseInvalid) {
  training_case_context context;
  context.settings.kind = workload::lora;
  context.device = cpu_with_peak(0);
  training_outcome outcome;
  outcome.warmup_steps = 0;
  outcome.steps = {{1, 5}, {1, 4}, {1, 3}};
  outcome.frozen_unchanged = false;
  outcome.replicas_identical = false;
  const auto c = training_case(context, outcome, 2);
  EXPECT_EQ(c.status, core::case_status::invalid);
  EXPECT_NE(c.reason.find("frozen base weights changed"), std::string::npos);
  EXPECT_NE(c.reason.find("different parameters"), std::string::npos);
  EXPECT_EQ(c.params.integer("ranks"), 2);
  EXPECT_NE(c.notes.at("mfu_peak").find("no MFU"), std::string::npos);
}

TEST(TrainingResults, ScalingEfficiencyAgainstOneRank) {
  training_case_context context;
  context.scaling_sweep = true;
  context.settings.shape = *find_gpt_preset("small");
  context.device = cpu_with_peak(1e12);
  training_outcome one, two;
  one.steps = {{1.0, 3}, {1.0, 2}};
  two.steps = {{1.5, 3}, {1.5, 2}};
  std::vector<core::case_result> cases = {training_case(context, one, 1), training_case(context, two, 2)};
  add_scaling_efficiency(cases);
  EXPECT_EQ(cases[0].benchmark, "ddp_scaling");
  ASSERT_NE(cases[1].find_metric("scaling_efficiency"), nullptr);
  // Two ranks do twice the tokens in 1.5x the time: 2 / 1.5 / 2 = 66.7 %.
  EXPECT_NEAR(cases[1].find_metric("scaling_efficiency")->value, 100.0 * (2 / 1.5) / 2, 1e-9);
  EXPECT_NEAR(cases[0].find_metric("scaling_efficiency")->value, 100.0, 1e-9);
}

}  // namespace
}  // namespace ironbench::train
