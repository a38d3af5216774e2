// tp_infer's settings (sizes, iterations, the split over ranks) and the cases
// it reports, without MPI.
#include <gtest/gtest.h>

#include "benchmarks/tp/tp_infer_case.hpp"
#include "benchmarks/tp/tp_infer_settings.hpp"
#include "core/error.hpp"
#include "usage_message.hpp"

namespace ironbench::benchmarks {
namespace {

using testing::usage_message;

TEST(TpInferSettings, SizesFromListsAndRanges) {
  tp_infer_settings s;
  parse_tp_infer_sizes("128,512,2048", "1024", s);
  EXPECT_EQ(s.batches, (std::vector<std::int64_t>{128, 512, 2048}));
  EXPECT_EQ(s.hidden_sizes, (std::vector<std::int64_t>{1024}));
  parse_tp_infer_sizes("16:256:x4", "64,128", s);
  EXPECT_EQ(s.batches, (std::vector<std::int64_t>{16, 64, 256}));
  EXPECT_EQ(s.hidden_sizes, (std::vector<std::int64_t>{64, 128}));
  EXPECT_THROW(parse_tp_infer_sizes("abc", "64", s), usage_error);
}

TEST(TpInferSettings, IterationsAndSplitOverRanks) {
  tp_infer_settings s;
  EXPECT_NO_THROW(check_tp_iterations(s));
  s.iterations = 0;
  EXPECT_EQ(usage_message([&] { check_tp_iterations(s); }), "need --iters >= 1 and --warmup_iters >= 0");
  s.iterations = 1;
  s.warmup_iterations = -1;
  EXPECT_THROW(check_tp_iterations(s), usage_error);

  s.batches = {16};
  s.hidden_sizes = {6};
  EXPECT_NO_THROW(check_tp_sizes(s, 8));  // F = 24
  EXPECT_EQ(usage_message([&] { check_tp_sizes(s, 5); }), "F = 4 x hidden = 24 does not split over 5 ranks");
  s.batches = {0};
  EXPECT_EQ(usage_message([&] { check_tp_sizes(s, 1); }), "batch and hidden must be positive");
}

TEST(TpInferCase, TensorParallelCaseCarriesGatherAndSpeedup) {
  tp_timing t;
  t.samples_s = {0.002, 0.002};
  t.latency_s = 0.002;
  t.gather_s = 0.0005;
  auto c = tp_infer_case({64, 128, 2}, "tensor_parallel", t, {}, 2, "cpu");
  add_tp_speedup(c, 0.003, t.latency_s, 2);
  EXPECT_EQ(c.benchmark, "tp_infer");
  EXPECT_EQ(c.device, "2 ranks");
  EXPECT_EQ(c.status, core::case_status::valid);
  std::vector<std::string> names;
  for (const auto& m : c.metrics) names.push_back(m.name);
  EXPECT_EQ(names, (std::vector<std::string>{"latency_ms", "throughput", "tflops", "gather_ms", "gather_share",
                                             "speedup", "efficiency"}));
  EXPECT_DOUBLE_EQ(c.metrics[0].value, 2.0);
  EXPECT_DOUBLE_EQ(c.metrics[4].value, 0.25);
  EXPECT_DOUBLE_EQ(c.metrics[5].value, 1.5);
  EXPECT_DOUBLE_EQ(c.metrics[6].value, 0.75);
}

TEST(TpInferCase, SingleDeviceCaseHasNoGatherAndFailsOnWrongElements) {
  tp_timing t;
  t.samples_s = {0.001};
  t.latency_s = 0.001;
  const auto c = tp_infer_case({64, 128, 1}, "single_device", t, {3, "row 0 col 1"}, 1, "cpu");
  EXPECT_EQ(c.metrics.size(), 3u);
  EXPECT_EQ(c.status, core::case_status::invalid);
  EXPECT_EQ(c.reason, "3 wrong elements: row 0 col 1");
}

}  // namespace
}  // namespace ironbench::benchmarks
