#include "serve/metrics/point_energy.hpp"

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

TEST(PointEnergy, OnlyCoveredTimeIsIntegratedAndTheVerdictSaysHowMuch) {
  // Power 100 W every 0.1 s over [0, 1], but no sample between 0.3 and 0.8: with a maximum gap
  // of 0.2 s that half second is not covered.
  std::vector<energy_sample> samples;
  for (const double t : {0.0, 0.1, 0.2, 0.3, 0.8, 0.9, 1.0}) samples.push_back({t, 100.0, std::nullopt});
  const auto e = estimate_energy(samples, 0, 1, 0.2);
  EXPECT_EQ(e.source, "power samples");
  EXPECT_NEAR(e.covered_s, 0.5, 1e-12);
  EXPECT_NEAR(e.coverage, 0.5, 1e-12);
  EXPECT_NEAR(e.covered_energy_j, 50, 1e-9);
  EXPECT_NEAR(e.energy_j, 100, 1e-9) << "the whole window at the covered mean power";
  EXPECT_NEAR(e.largest_gap_s, 0.5, 1e-12);
  EXPECT_FALSE(e.valid);
  EXPECT_NE(e.invalid_reason.find("samples cover 50%"), std::string::npos) << e.invalid_reason;
  // A ramp from 0 to 200 W integrates as trapezoids, clipped to the window [0.05, 0.15].
  const auto ramp = estimate_energy({{0, 0.0, {}}, {0.1, 100.0, {}}, {0.2, 200.0, {}}}, 0.05, 0.15, 1);
  EXPECT_NEAR(ramp.covered_energy_j, 10, 1e-9);
  EXPECT_TRUE(ramp.valid);
}

TEST(PointEnergy, TheCounterIsPreferredAndAResetIsNotCovered) {
  // The counter says 50 J per 0.1 s (500 W) though the power samples say 100 W; it wins.
  std::vector<energy_sample> samples;
  for (int i = 0; i <= 10; ++i) samples.push_back({0.1 * i, 100.0, 1000 + 50.0 * i});
  auto e = estimate_energy(samples, 0, 1, 0.2);
  EXPECT_EQ(e.source, "energy counter");
  EXPECT_NEAR(e.energy_j, 500, 1e-9);
  EXPECT_TRUE(e.valid);
  // The counter restarts after 0.5 s: that interval is unknown, the rest is counted.
  samples[6].energy_j = 3;
  for (int i = 7; i <= 10; ++i) samples[i].energy_j = 3 + 50.0 * (i - 6);
  e = estimate_energy(samples, 0, 1, 0.2);
  EXPECT_NEAR(e.coverage, 0.9, 1e-9);
  EXPECT_NEAR(e.covered_energy_j, 450, 1e-9);
  EXPECT_FALSE(estimate_energy({}, 0, 1, 0.2).valid);
  EXPECT_NE(estimate_energy({}, 0, 1, 0.2).invalid_reason.find("fewer than two"), std::string::npos);
}

TEST(PointEnergy, AWatchedGpuWithAStalledSamplerIsEnergyInvalid) {
  // Samples every 0.1 s, then none for 2 s: the median spacing sets the 0.2 s bound.
  json series = json::array();
  for (int i = 0; i <= 10; ++i) series.push_back({{"t_s", 0.1 * i}, {"power_w", 300.0}});
  series.push_back({{"t_s", 3.0}, {"power_w", 300.0}});
  std::vector<watched_gpu> gpus;
  gpus.push_back({"cuda:0", std::make_unique<seen_gpu>(json{{"power_w", {{"mean", 300.0}, {"max", 300.0}}}}, series)});
  const auto t = finish_gpu_watch(gpus, 100);
  EXPECT_FALSE(t.summary.at("energy_valid").get<bool>());
  EXPECT_NEAR(t.summary.at("energy_coverage").get<double>(), 1.0 / 3, 1e-9);
  EXPECT_NEAR(t.summary.at("energy_largest_gap_s").get<double>(), 2, 1e-9);
  EXPECT_FALSE(t.summary.contains("joules_per_output_token"));
  for (const auto& m : t.metrics) EXPECT_NE(m.name, "joules_per_output_token");
}

}  // namespace
}  // namespace ironbench::serve
