#include "serve/point_energy.hpp"

#include <gtest/gtest.h>

namespace ironbench::serve {
namespace {

// A GPU that "saw" the given samples, with or without an energy counter.
class seen_gpu final : public core::case_monitor {
 public:
  seen_gpu(json summary, json series) : summary_(std::move(summary)), series_(std::move(series)) {}
  core::case_observation finish() override { return {summary_, series_, {}, {}}; }

 private:
  json summary_, series_;
};

json power_samples(double watts, int count) {
  json samples = json::array();
  for (int i = 0; i < count; ++i) samples.push_back({{"t_s", 0.5 * i}, {"power_w", watts}});
  return samples;
}

TEST(PointEnergy, PowerSamplesIntegrateToJoulesPerToken) {
  // 300 W for 2 s (five samples 0.5 s apart) and 200 W for 2 s: 1000 J; 2000 tokens.
  std::vector<watched_gpu> gpus;
  gpus.push_back(
      {"cuda:0", std::make_unique<seen_gpu>(json{{"power_w", {{"mean", 300.0}, {"max", 300.0}}},
                                                 {"utilization_percent", {{"mean", 80.0}, {"max", 100.0}}},
                                                 {"memory_used_bytes", {{"mean", 1.0}, {"max", 2.0 * (1 << 30)}}}},
                                            power_samples(300, 5))});
  gpus.push_back(
      {"cuda:1", std::make_unique<seen_gpu>(json{{"power_w", {{"mean", 200.0}, {"max", 200.0}}},
                                                 {"utilization_percent", {{"mean", 60.0}, {"max", 90.0}}},
                                                 {"memory_used_bytes", {{"mean", 1.0}, {"max", 1.0 * (1 << 30)}}}},
                                            power_samples(200, 5))});
  const auto t = finish_gpu_watch(gpus, 2000);
  EXPECT_DOUBLE_EQ(t.summary.at("energy_j").get<double>(), 1000);
  EXPECT_EQ(t.summary.at("energy_source"), "power samples");
  EXPECT_DOUBLE_EQ(t.summary.at("joules_per_output_token").get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(t.summary.at("output_tokens_per_joule").get<double>(), 2);
  std::map<std::string, double> metrics;
  for (const auto& m : t.metrics) metrics[m.name] = m.value;
  EXPECT_DOUBLE_EQ(metrics.at("gpu_power_w"), 500);
  EXPECT_DOUBLE_EQ(metrics.at("gpu_utilization_percent"), 70);
  EXPECT_DOUBLE_EQ(metrics.at("gpu_memory_used_max_gib"), 3);
  EXPECT_DOUBLE_EQ(metrics.at("joules_per_output_token"), 0.5);
  ASSERT_EQ(t.series.size(), 2U);
  EXPECT_EQ(t.series[1].at("device"), "cuda:1");
  EXPECT_TRUE(t.summary.at("devices").contains("cuda:0"));
}

TEST(PointEnergy, TheEnergyCounterWinsAndUnreadablePowerGivesNoEnergy) {
  core::case_observation counted{json{{"energy_used_j", 123.0}}, power_samples(1000, 5), {}, {}};
  bool counter = false;
  EXPECT_EQ(*energy_of(counted, &counter), 123.0);
  EXPECT_TRUE(counter);
  EXPECT_FALSE(energy_of({json{{"available", false}}, nullptr, {}, {}}));
  std::vector<watched_gpu> gpus;
  gpus.push_back({"cuda:0", std::make_unique<seen_gpu>(json{{"available", false}, {"reason", "no NVML"}}, nullptr)});
  const auto t = finish_gpu_watch(gpus, 100);
  EXPECT_FALSE(t.summary.contains("energy_j"));
  EXPECT_TRUE(t.metrics.empty()) << "nothing readable, nothing reported";
  EXPECT_EQ(t.summary.at("devices").at("cuda:0").at("reason"), "no NVML");
  std::vector<watched_gpu> none;
  EXPECT_TRUE(finish_gpu_watch(none, 100).metrics.empty());
}

}  // namespace
}  // namespace ironbench::serve
