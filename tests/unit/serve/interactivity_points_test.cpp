// A point's interactivity and per-GPU throughput, and a sweep's curve with the reading at one
// interactivity, on hand-made records and cases.
#include "serve/sweep/interactivity_points.hpp"

#include <gtest/gtest.h>

#include "schema/interactivity_curve.hpp"

namespace ironbench::serve {
namespace {

request_record record_with_tpot(double tpot_s, int tokens) {
  request_record r;
  r.success = true;
  r.output_len = tokens;
  r.ttft_s = 0.1;
  r.e2el_s = 0.1 + tpot_s * (tokens - 1);
  return r;
}

TEST(InteractivityPoints, MedianAndP90TpotAndPerGpuThroughput) {
  // TPOTs 10, 20, 30, 40, 50 ms (and a one-token request, which has none): median 30 ms, p90
  // 46 ms (linear interpolation).
  std::vector<request_record> records;
  for (int i = 1; i <= 5; ++i) records.push_back(record_with_tpot(0.01 * i, 11));
  records.push_back(record_with_tpot(0, 1));
  const json metrics = {{"output_throughput", 800.0}, {"total_token_throughput", 1000.0}};
  auto m = interactivity_metrics(records, metrics, 8);
  EXPECT_NEAR(m.at("median_interactivity").get<double>(), 1000.0 / 30, 1e-9);
  EXPECT_NEAR(m.at("interactivity_at_p90_tpot").get<double>(), 1000.0 / 46, 1e-9);
  EXPECT_EQ(m.at("gpus"), 8);
  EXPECT_DOUBLE_EQ(m.at("output_throughput_per_gpu").get<double>(), 100);
  EXPECT_DOUBLE_EQ(m.at("total_token_throughput_per_gpu").get<double>(), 125);
  EXPECT_EQ(interactivity_case_metrics(m).size(), 4u);
  // Without --gpus: no per-GPU figure; without a request of 2 tokens or more: no interactivity.
  m = interactivity_metrics(records, metrics, std::nullopt);
  EXPECT_FALSE(m.contains("output_throughput_per_gpu"));
  EXPECT_FALSE(m.contains("gpus"));
  EXPECT_TRUE(interactivity_metrics({record_with_tpot(0, 1)}, metrics, std::nullopt).empty());
}

core::case_result curve_case(int concurrency, double interactivity, double per_gpu) {
  core::case_result c;
  c.benchmark = "serve";
  c.device = "http://127.0.0.1:8000";
  c.params.set("max_concurrency", std::int64_t{concurrency});
  c.params.set("request_rate", std::string("inf"));
  c.metrics.push_back({schema::interactivity_key::median, interactivity, "tok/s/user", ""});
  c.metrics.push_back({schema::interactivity_key::output_per_gpu, per_gpu, "tok/s", ""});
  c.metrics.push_back({"output_throughput", per_gpu * 4, "tok/s", ""});
  return c;
}

TEST(InteractivityPoints, CurveFrontierAndReadingOfASweep) {
  std::vector<core::case_result> cases = {curve_case(1, 100, 50), curve_case(4, 80, 120), curve_case(8, 40, 200),
                                          curve_case(16, 50, 260), curve_case(32, 20, 400)};
  auto out = interactivity_curve(cases, 4, 35.0);
  ASSERT_TRUE(out.settings.is_object());
  EXPECT_EQ(out.settings.at("throughput"), "output_throughput_per_gpu");
  EXPECT_EQ(out.settings.at("points").size(), 5u);
  ASSERT_EQ(out.settings.at("frontier").size(), 4u);  // max concurrency 8 is beaten by 16
  EXPECT_EQ(out.settings.at("frontier")[0].at("case"), 4);
  EXPECT_EQ(out.settings.at("at").at("status"), "interpolated");
  ASSERT_TRUE(out.at_case);
  EXPECT_EQ(out.at_case->benchmark, "serve_at_interactivity");
  EXPECT_EQ(out.at_case->status, core::case_status::valid);
  ASSERT_EQ(out.at_case->metrics.size(), 1u);
  EXPECT_DOUBLE_EQ(out.at_case->metrics[0].value, 330);  // 400 + 0.5 x (260 - 400)
  EXPECT_EQ(out.at_case->notes.at("interpolated"), "true");
  EXPECT_NE(out.console.find("interpolated between max concurrency 32, rate inf"), std::string::npos) << out.console;
  EXPECT_NE(out.console.find("and max concurrency 16, rate inf"), std::string::npos) << out.console;

  // Beyond the frontier: said, not extrapolated; the run stays valid (the case is skipped).
  out = interactivity_curve(cases, 4, 500.0);
  ASSERT_TRUE(out.at_case);
  EXPECT_EQ(out.at_case->status, core::case_status::skipped);
  EXPECT_TRUE(out.at_case->metrics.empty());
  EXPECT_NE(out.at_case->reason.find("not extrapolated"), std::string::npos) << out.at_case->reason;
  EXPECT_EQ(out.settings.at("at").at("status"), "above_range");

  // The GPU count in the heading: "4 GPUs", but "1 GPU".
  EXPECT_NE(out.console.find("median tok/s/user, 4 GPUs)"), std::string::npos) << out.console;
  const auto one = interactivity_curve(cases, 1, std::nullopt);
  EXPECT_NE(one.console.find("median tok/s/user, 1 GPU)"), std::string::npos) << one.console;

  // No --at-interactivity: the curve alone; no serve point: nothing.
  EXPECT_FALSE(interactivity_curve(cases, 4, std::nullopt).at_case);
  EXPECT_TRUE(interactivity_curve({}, std::nullopt, std::nullopt).settings.is_null());
}

}  // namespace
}  // namespace ironbench::serve
