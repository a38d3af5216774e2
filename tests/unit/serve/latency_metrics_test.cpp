// The latency metric table: its rows cover vLLM's four metrics, the names users may give each
// flag come from it, and the time to the second token is computed, selected, reported and
// judged as one of its rows.
#include "serve/measures/latency_metrics.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sstream>

#include "core/error.hpp"
#include "schema/serving.hpp"
#include "serve/point/serve_report.hpp"
#include "serve/sweep/slo_search.hpp"
#include "serve/workload/endpoint_kinds.hpp"
#include "serve/workload/request_kinds.hpp"

namespace ironbench::serve {
namespace {

request_record streamed(double ttft_s, std::vector<double> itl_s, std::int64_t output_len) {
  request_record r;
  r.success = true;
  r.prompt_len = 10;
  r.output_len = output_len;
  r.ttft_s = ttft_s;
  r.itl_s = std::move(itl_s);
  r.e2el_s = ttft_s;
  for (double gap : r.itl_s) r.e2el_s += gap;
  return r;
}

TEST(LatencyMetrics, VllmsFourAreRowsWrittenWhateverTheSelection) {
  for (const auto& name : schema::latency_metrics()) {
    const auto* row = find_latency_metric(name);
    ASSERT_NE(row, nullptr) << name;
    EXPECT_TRUE(row->always) << name;
    EXPECT_STREQ(row->unit, "ms");
  }
  EXPECT_EQ(find_latency_metric("ttlt"), nullptr);
  EXPECT_EQ(latency_metric_names(metric_use::any, ", "), "ttft, tpot, itl, e2el, ttst");
  EXPECT_EQ(latency_metric_names(metric_use::slo, ",", ":MS"), "ttft:MS,tpot:MS,itl:MS,e2el:MS,ttst:MS");
  EXPECT_EQ(latency_metric_names(metric_use::goodput, " ", ":MS"), "ttft:MS tpot:MS e2el:MS");
}

TEST(LatencyMetrics, TimeToSecondTokenIsTtftPlusTheFirstGap) {
  EXPECT_DOUBLE_EQ(*time_to_second_token(streamed(0.2, {0.03, 0.05}, 3)), 0.23);
  // One token event (even one carrying the whole answer) has no second one.
  EXPECT_FALSE(time_to_second_token(streamed(0.2, {}, 5)).has_value());
  const auto* ttst = find_latency_metric("ttst");
  ASSERT_NE(ttst, nullptr);
  std::vector<double> values;
  ttst->collect(streamed(0.1, {0.02, 0.5}, 3), values);
  ttst->collect(streamed(0.4, {}, 1), values);
  EXPECT_EQ(values, (std::vector<double>{0.1 + 0.02}));
}

TEST(LatencyMetrics, TimeToSecondTokenIsWrittenAndReportedOnlyWhenSelected) {
  const std::vector<request_record> records = {streamed(0.1, {0.02, 0.5}, 3), streamed(0.3, {0.04}, 2),
                                               streamed(0.4, {}, 1)};
  const auto plain = serving_metrics(records, 1.0, {}, {});
  EXPECT_FALSE(plain.contains("mean_ttst_ms"));
  EXPECT_TRUE(plain.contains("mean_ttft_ms"));
  metric_selection selection{{"ttft", "ttst"}, {50, 99}};
  const auto m = serving_metrics(records, 1.0, {}, selection);
  EXPECT_DOUBLE_EQ(m.at("mean_ttst_ms").get<double>(), (120.0 + 340.0) / 2);
  EXPECT_DOUBLE_EQ(m.at("median_ttst_ms").get<double>(), 230.0);
  EXPECT_DOUBLE_EQ(m.at("p50_ttst_ms").get<double>(), 230.0);
  EXPECT_TRUE(m.contains("p99_ttst_ms"));
  EXPECT_FALSE(m.contains("p99_tpot_ms"));  // written but not selected: no percentiles
  load_result load;
  std::ostringstream with, without;
  write_serving_summary(with, m, load, selection);
  write_serving_summary(without, plain, load, metric_selection{});
  EXPECT_NE(with.str().find("Time to Second Token"), std::string::npos);
  EXPECT_NE(with.str().find(fmt::format("{:<40}{:<10}\n", "Median TTST (ms):", "230.00")), std::string::npos)
      << with.str();
  EXPECT_EQ(without.str().find("TTST"), std::string::npos);
}

TEST(LatencyMetrics, TimeToSecondTokenIsAnSloButNoGoodputObjective) {
  const auto slo = parse_slo("ttst:300,p99");
  metric_selection selection;
  require_slo_metrics(slo, selection);
  EXPECT_EQ(selection.metrics.back(), "ttst");
  const std::vector<request_record> fast = {streamed(0.1, {0.02}, 2), streamed(0.2, {0.03}, 2)};
  const std::vector<request_record> slow = {streamed(0.1, {0.02}, 2), streamed(0.2, {0.3}, 2)};
  EXPECT_TRUE(judge_slo(serving_metrics(fast, 1.0, {}, selection), slo).met);
  const auto missed = judge_slo(serving_metrics(slow, 1.0, {}, selection), slo);
  EXPECT_FALSE(missed.met);
  EXPECT_NE(missed.why.find("p99 ttst"), std::string::npos) << missed.why;
  try {
    (void)parse_goodput({"ttst:300"});
    ADD_FAILURE() << "--goodput ttst accepted";
  } catch (const usage_error& e) {
    EXPECT_STREQ(e.what(), "--goodput: unknown metric 'ttst' (ttft, tpot, e2el)");
  }
}

TEST(LatencyMetrics, RepliesWithoutTokensTakeOnlyTheObjectivesThatNeedNone) {
  sweep_settings s;
  s.load.kind = endpoint_kind::embeddings;
  const auto message = [&] {
    try {
      check_request_kind(s, {});
    } catch (const usage_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  s.slo.e2el_ms = 500;
  s.objectives = parse_slo("e2el:500");
  EXPECT_EQ(message(), "accepted");
  s.slo.tpot_ms = 20;
  EXPECT_EQ(message(), "--goodput: openai-embeddings replies have no TTFT or TPOT (e2el applies)");
  s.slo.tpot_ms.reset();
  s.objectives = parse_slo("e2el:500,ttst:100");
  EXPECT_EQ(message(), "--slo: openai-embeddings replies have no ttst (e2el applies)");
}

}  // namespace
}  // namespace ironbench::serve
