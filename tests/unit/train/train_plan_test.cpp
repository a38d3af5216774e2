// Planning a training run without libtorch: the device choice and its fallback, the
// workload's settings from a request, the batch and scaling checks.
#include <gtest/gtest.h>

#include <functional>

#include "core/error.hpp"
#include "train/train_plan.hpp"
#include "usage_message.hpp"

namespace ironbench::train {
namespace {

using testing::usage_message;

TEST(TrainPlan, AutoTakesThisRanksGpuOrFallsBackToTheCpu) {
  const auto none = choose_train_device("auto", 0, 0, "libtorch 2.5, a CPU-only build");
  EXPECT_FALSE(none.gpu);
  const auto some = choose_train_device("auto", 4, 3, "");
  EXPECT_TRUE(some.gpu);
  EXPECT_EQ(some.index, 3);
  EXPECT_FALSE(choose_train_device("cpu", 4, 3, "").gpu);
}

TEST(TrainPlan, NamedGpus) {
  EXPECT_EQ(choose_train_device("cuda", 2, 1, "").index, 1);
  EXPECT_EQ(choose_train_device("gpu", 2, 0, "").index, 0);
  EXPECT_EQ(choose_train_device("cuda:1", 2, 0, "").index, 1);
  EXPECT_EQ(choose_train_device("hip:1", 2, 0, "").index, 1);
  EXPECT_EQ(usage_message([] { (void)choose_train_device("cuda", 0, 0, "libtorch 2.5, a CPU-only build"); }),
            "--device cuda: libtorch sees no GPU here (libtorch 2.5, a CPU-only build)");
  EXPECT_EQ(usage_message([] { (void)choose_train_device("cuda:2", 2, 0, ""); }), "--device cuda:2: there are 2 GPUs");
  EXPECT_EQ(usage_message([] { (void)choose_train_device("tpu", 2, 0, ""); }),
            "unknown --device 'tpu' (use auto, cpu, cuda or cuda:N)");
}

TEST(TrainPlan, MeasuredDeviceFromTheEnumerationOrItsOwn) {
  core::device_info cpu;
  cpu.id = "cpu";
  cpu.name = "Some CPU";
  cpu.kind = core::device_kind::cpu;
  core::device_info gpu;
  gpu.id = "cuda:1";
  gpu.name = "Some GPU";
  gpu.kind = core::device_kind::cuda;
  gpu.index = 1;
  const std::vector<core::device_info> devices = {cpu, gpu};
  EXPECT_EQ(measured_device(devices, {}, false).name, "Some CPU");
  EXPECT_EQ(measured_device(devices, {true, 1}, false).name, "Some GPU");
  const auto missing = measured_device(devices, {true, 0}, true);
  EXPECT_EQ(missing.id, "hip:0");
  EXPECT_EQ(missing.kind, core::device_kind::cuda);
  EXPECT_EQ(measured_device({}, {}, false).id, "cpu");
}

TEST(TrainPlan, SettingsOfEachWorkload) {
  train_request r;
  r.workload = "mlp";
  r.widths = "16-32-8";
  auto s = settings_for(r, false);
  EXPECT_EQ(s.kind, workload::mlp);
  EXPECT_EQ(s.mlp_widths, (std::vector<std::int64_t>{16, 32, 8}));
  EXPECT_EQ(s.dtype, "fp32");
  EXPECT_TRUE(s.fused_optimizer);

  r.workload = "gpt";
  r.layers = 2;
  s = settings_for(r, true);
  EXPECT_EQ(s.kind, workload::gpt);
  EXPECT_EQ(s.shape.name, "small+custom");
  EXPECT_EQ(s.shape.layers, 2);
  EXPECT_EQ(s.dtype, "bf16");

  r.workload = "lora";
  r.lora_rank = 4;
  r.dtype = "fp32";
  s = settings_for(r, true);
  EXPECT_EQ(s.kind, workload::lora);
  EXPECT_EQ(s.lora.rank, 4);
  EXPECT_EQ(s.dtype, "fp32");

  r.workload = "cnn";
  EXPECT_EQ(usage_message([&] { (void)settings_for(r, false); }), "unknown workload 'cnn' (use mlp, gpt or lora)");
  r.workload = "gpt";
  r.model = "huge";
  EXPECT_THROW((void)settings_for(r, false), usage_error);
}

TEST(TrainPlan, BatchesScalingAndDtype) {
  EXPECT_EQ(parse_train_counts("batch", "1,16,64"), (std::vector<std::int64_t>{1, 16, 64}));
  EXPECT_EQ(parse_train_counts("scaling", "1:8:x2"), (std::vector<std::int64_t>{1, 2, 4, 8}));
  EXPECT_EQ(usage_message([] { check_batches({4, 0}); }), "--batch must be >= 1 (got 0)");
  EXPECT_NO_THROW(check_scaling({1, 2}, 2));
  EXPECT_EQ(usage_message([] {
              check_scaling({1, 2, 4}, 2);
            }),
            "--scaling 4: the job has 2 ranks (start it with mpirun -np 4)");
  EXPECT_EQ(usage_message([] { check_scaling({2}, 1); }),
            "--scaling 2: the job has 1 rank (start it with mpirun -np 2)");
  train_settings s;
  s.dtype = "fp16";
  EXPECT_EQ(usage_message([&] { check_dtype(s, {}); }), "--dtype fp16 needs a GPU; use bf16 on CPUs");
  EXPECT_NO_THROW(check_dtype(s, {true, 0}));
}

}  // namespace
}  // namespace ironbench::train
