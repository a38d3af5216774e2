#include "benchmarks/tp/tp_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace ironbench::benchmarks {
namespace {

// Two ranks simulated in one process: rank 1 runs first and leaves its shard, rank 0 gathers
// [its own, rank 1's] (or swapped, to simulate a broken gather).
std::vector<float> two_rank_output(const tp_shape& shape, bool swap_blocks) {
  tp_cpu_rank one(shape, 1);
  std::vector<float> shard_of_one;
  (void)one.forward([&](const float* send, float* receive, std::size_t count) {
    shard_of_one.assign(send, send + count);
    std::memset(receive, 0, 2 * count * sizeof(float));
  });
  tp_cpu_rank zero(shape, 0);
  (void)zero.forward([&](const float* send, float* receive, std::size_t count) {
    std::memcpy(receive + (swap_blocks ? count : 0), send, count * sizeof(float));
    std::memcpy(receive + (swap_blocks ? 0 : count), shard_of_one.data(), count * sizeof(float));
  });
  return zero.output();
}

TEST(TpModel, ShapesAndWork) {
  const tp_shape s{128, 1024, 4};
  EXPECT_EQ(s.ffn(), 4096);
  EXPECT_EQ(s.shard(), 1024);
  EXPECT_DOUBLE_EQ(s.flops(), 4.0 * 128 * 1024 * 4096);
  EXPECT_DOUBLE_EQ(s.gather_bytes_per_rank(), 4.0 * 128 * 1024);
}

TEST(TpModel, ShardedAndSingleDeviceOutputsAgreeAndVerify) {
  const tp_shape two{16, 64, 2};
  const tp_shape one{16, 64, 1};
  tp_cpu_rank alone(one, 0);
  (void)alone.forward(
      [](const float* send, float* receive, std::size_t count) { std::memcpy(receive, send, count * sizeof(float)); });
  const auto sharded = two_rank_output(two, false);
  ASSERT_EQ(sharded.size(), alone.output().size());
  double largest = 0;
  for (std::size_t i = 0; i < sharded.size(); ++i) {
    EXPECT_NEAR(sharded[i], alone.output()[i], 1e-4);
    largest = std::max(largest, std::fabs(static_cast<double>(sharded[i])));
  }
  EXPECT_GT(largest, 0.1);  // not a trivially zero model
  std::string detail;
  EXPECT_EQ(tp_check_rows(two, sharded, {0, 7, 15}, detail), 0u) << detail;
  EXPECT_EQ(tp_check_rows(one, alone.output(), {0, 15}, detail), 0u) << detail;
}

TEST(TpModel, AWrongGatherOrACorruptedElementFails) {
  const tp_shape two{8, 32, 2};
  const auto swapped = two_rank_output(two, true);
  std::string detail;
  EXPECT_GT(tp_check_rows(two, swapped, {0, 7}, detail), 10u);
  EXPECT_NE(detail.find("Z[0,"), std::string::npos) << detail;
  auto good = two_rank_output(two, false);
  good[3] += 0.05f;
  EXPECT_EQ(tp_check_rows(two, good, {0}, detail), 1u);
}

TEST(TpModel, CounterBasedValuesAreNormal) {
  double sum = 0, squares = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double v = tp_normal(5, static_cast<std::uint64_t>(i));
    sum += v;
    squares += v * v;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.01);
  EXPECT_NEAR(squares / n, 1.0, 0.02);
  EXPECT_EQ(tp_normal(5, 17), tp_normal(5, 17));
  EXPECT_NE(tp_normal(5, 17), tp_normal(6, 17));
}

}  // namespace
}  // namespace ironbench::benchmarks
