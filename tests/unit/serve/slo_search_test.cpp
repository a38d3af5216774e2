#include "serve/sweep/slo_search.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "serve/sweep/saturation.hpp"

namespace ironbench::serve {
namespace {

TEST(SloSpec, ParsesLimitsAndTheStatistic) {
  const auto slo = parse_slo("ttft:500,tpot:30,median");
  ASSERT_EQ(slo.limits.size(), 2U);
  EXPECT_EQ(slo.limits[1].metric, "tpot");
  EXPECT_EQ(slo.limits[1].max_ms, 30);
  EXPECT_EQ(slo.statistic, "median");
  EXPECT_EQ(slo.text(), "median ttft <= 500 ms, median tpot <= 30 ms");
  EXPECT_EQ(parse_slo("e2el:2000").statistic, "p99");
  EXPECT_EQ(parse_slo("itl:30,p99.9").statistic, "p99.9");
  for (const char* bad : {"", "ttft", "ttft:abc", "speed:3", "ttft:-1", "ttft:5,p100", "ttft:5,fast"}) {
    EXPECT_THROW((void)parse_slo(bad), usage_error) << bad;
  }
}

TEST(SloSpec, JudgesAPointOnItsStatisticAndFailures) {
  const auto slo = parse_slo("ttft:100,tpot:20,p99");
  metric_selection selection{{"ttft"}, {50}};
  require_slo_metrics(slo, selection);
  EXPECT_EQ(selection.metrics, (std::vector<std::string>{"ttft", "tpot"}));
  EXPECT_EQ(selection.percentiles, (std::vector<double>{50, 99}));
  json point = {{"completed", 10}, {"failed", 0}, {"p99_ttft_ms", 90.0}, {"p99_tpot_ms", 19.0}};
  EXPECT_TRUE(judge_slo(point, slo).met);
  point["p99_tpot_ms"] = 21.5;
  EXPECT_EQ(judge_slo(point, slo).why, "p99 tpot 21.50 ms > 20 ms");
  point["p99_tpot_ms"] = 1.0;
  point["failed"] = 2;
  EXPECT_EQ(judge_slo(point, slo).why, "2 request(s) failed");
  EXPECT_FALSE(judge_slo({{"completed", 3}, {"failed", 0}}, slo).met);  // no such percentile: not met
}

// A server whose objectives hold below `limit`: the search must bracket it.
probe_outcome below(double load, double limit) { return {true, load <= limit, load <= limit ? "" : "too slow"}; }

TEST(SloSearch, BracketsTheLimitWithinThePrecision) {
  for (double limit : {0.3, 1.0, 7.3, 41.7, 500.0}) {
    search_settings s;
    s.start = 8;
    const auto r = search_limit(s, [&](double load) { return below(load, limit); });
    ASSERT_TRUE(r.best) << limit << ": " << r.ended;
    EXPECT_LE(*r.best, limit);
    ASSERT_TRUE(r.lowest_failing) << limit;
    EXPECT_GT(*r.lowest_failing, limit);
    EXPECT_LE(*r.lowest_failing, *r.best * 1.05) << limit;
    EXPECT_LE(r.probes.size(), 16U);
  }
}

TEST(SloSearch, ConcurrencyEndsBetweenAdjacentWholeNumbers) {
  search_settings s;
  s.axis = search_axis::concurrency;
  const auto r = search_limit(s, [](double load) {
    EXPECT_EQ(load, std::floor(load));
    return below(load, 37);
  });
  EXPECT_EQ(*r.best, 37);
  EXPECT_EQ(*r.lowest_failing, 38);
  EXPECT_EQ(r.ended, "bracketed between adjacent concurrencies");
}

TEST(SloSearch, StopsAtItsBoundsAndAtAProbeItCannotJudge) {
  search_settings s;
  s.max = 20;
  auto r = search_limit(s, [](double load) { return below(load, 1000); });
  EXPECT_EQ(*r.best, 20);
  EXPECT_EQ(r.ended, "every probe up to --search-max met the objectives");
  r = search_limit(s, [](double load) { return below(load, 0); });
  EXPECT_FALSE(r.best);
  EXPECT_EQ(r.probes.size(), 7U);  // 1, 1/2 ... 1/64
  s.max_probes = 3;
  r = search_limit(s, [](double load) { return below(load, 100); });
  EXPECT_EQ(r.probes.size(), 3U);
  EXPECT_EQ(r.ended, "--search-max-probes reached before the limit was bracketed");
  EXPECT_EQ(r.verdict, search_verdict::found);
  r = search_limit(s, [](double load) { return load < 2 ? below(load, 0) : probe_outcome{false, false, "x", true}; });
  EXPECT_EQ(r.verdict, search_verdict::missed);  // 1 missed, 1/2 missed, 1/4 missed: out of probes
  r = search_limit(search_settings{}, [](double) { return probe_outcome{false, false, "stopped", true}; });
  EXPECT_EQ(r.verdict, search_verdict::interrupted);
  EXPECT_EQ(r.probes.size(), 1U);
  EXPECT_EQ(r.ended, "interrupted: stopped");
}

// A client that falls behind from `late` up: those probes cannot be judged.
probe_outcome behind_from(double load, double late, double limit) {
  return load >= late ? probe_outcome{false, false, "the client fell behind"} : below(load, limit);
}

TEST(SloSearch, AProbeItCannotJudgeIsBisectedAroundNotTakenForAMiss) {
  // Met at 1 and 2, unjudged from 4 up: the search bisects between 2 and 4 and its answer is
  // the highest load judged and met, the ceiling one it could not judge.
  auto r = search_limit(search_settings{}, [](double load) { return behind_from(load, 3, 10); });
  ASSERT_TRUE(r.best) << r.ended;
  EXPECT_EQ(r.verdict, search_verdict::found);
  EXPECT_LT(*r.best, 3);
  EXPECT_GE(*r.best, 3 / 1.05 / 1.05);
  EXPECT_FALSE(r.lowest_failing);
  ASSERT_TRUE(r.lowest_unjudged);
  EXPECT_GE(*r.lowest_unjudged, 3);
  EXPECT_EQ(r.ended, "bracketed within 5%; the load above could not be judged");
  // The start cannot be judged: the search goes down until it can, and finds the limit below.
  search_settings high;
  high.start = 16;
  r = search_limit(high, [](double load) { return behind_from(load, 5, 3); });
  ASSERT_TRUE(r.best) << r.ended;
  EXPECT_LE(*r.best, 3);
  ASSERT_TRUE(r.lowest_failing);
  EXPECT_GT(*r.lowest_failing, 3);
  EXPECT_EQ(r.probes.at(0).outcome.measured, false);
  // Missed below an unjudged load is a judged miss: nothing lower met.
  r = search_limit(high, [](double load) { return behind_from(load, 12, 0); });
  EXPECT_FALSE(r.best);
  EXPECT_EQ(r.verdict, search_verdict::missed);
  EXPECT_EQ(r.ended, "even 0.25 did not meet the objectives");
}

TEST(SloSearch, WhenTheLowestLoadCannotBeJudgedTheVerdictIsUnjudgedNeverMissed) {
  // Every probe unjudged: down to the lowest load, then "could not judge".
  auto r = search_limit(search_settings{}, [](double) {
    return probe_outcome{false, false, "the client fell behind"};
  });
  EXPECT_FALSE(r.best);
  EXPECT_FALSE(r.lowest_failing);
  EXPECT_EQ(r.verdict, search_verdict::unjudged);
  EXPECT_EQ(r.ended, "even 0.015625 could not be judged: the client fell behind");
  EXPECT_STREQ(to_string(r.verdict), "could not judge");
  // Misses above, unjudged below: still unjudged (the lower loads might meet).
  search_settings s;
  s.start = 8;
  s.max_probes = 3;
  r = search_limit(s, [](double load) {
    return load >= 8 ? below(load, 0) : probe_outcome{false, false, "the client fell behind"};
  });
  EXPECT_EQ(r.probes.size(), 3U);  // 8 missed, 4 and 2 unjudged
  EXPECT_EQ(*r.lowest_failing, 8);
  EXPECT_EQ(r.verdict, search_verdict::unjudged);
  // Concurrency: the same, in whole numbers.
  search_settings c;
  c.axis = search_axis::concurrency;
  c.start = 4;
  r = search_limit(c, [](double load) { return behind_from(load, 3, 10); });
  EXPECT_EQ(*r.best, 2);
  EXPECT_EQ(*r.lowest_unjudged, 3);
  EXPECT_EQ(r.ended, "bracketed between adjacent concurrencies; the load above could not be judged");
}

json point(double throughput, double ttft) { return {{"output_throughput", throughput}, {"median_ttft_ms", ttft}}; }

TEST(Saturation, ThroughputThatStopsRisingWhileTtftClimbs) {
  EXPECT_FALSE(detect_saturation({point(100, 50)}).saturated);
  EXPECT_FALSE(detect_saturation({point(100, 50), point(190, 60)}).saturated);   // still rising
  EXPECT_FALSE(detect_saturation({point(100, 50), point(102, 60)}).saturated);   // flat, TTFT steady
  EXPECT_FALSE(detect_saturation({point(100, 50), point(180, 200)}).saturated);  // slower, but more throughput
  const auto check = detect_saturation({point(100, 50), point(300, 80), point(305, 400)});
  EXPECT_TRUE(check.saturated);
  EXPECT_EQ(check.reason,
            "output 305 tok/s, +1.7% over the best before; median TTFT 400 ms, 5.0x the previous point's");
  // Against the best point before, not only the previous one.
  EXPECT_TRUE(detect_saturation({point(300, 50), point(250, 60), point(310, 120)}).saturated);
}

json pooling_point(double inputs_per_s, double latency) {
  return {{"request_throughput", inputs_per_s / 4}, {"inputs_throughput", inputs_per_s}, {"median_e2el_ms", latency}};
}

TEST(Saturation, APoolingPointIsJudgedOnInputsAndLatency) {
  EXPECT_FALSE(detect_saturation({pooling_point(1000, 5), pooling_point(1900, 6)}).saturated);
  EXPECT_FALSE(detect_saturation({pooling_point(1000, 5), pooling_point(1010, 6)}).saturated);  // latency steady
  const auto check = detect_saturation({pooling_point(1000, 5), pooling_point(2000, 8), pooling_point(2020, 40)});
  EXPECT_TRUE(check.saturated);
  EXPECT_EQ(check.reason, "2020 inputs/s, +1.0% over the best before; median latency 40 ms, 5.0x the previous point's");
}

}  // namespace
}  // namespace ironbench::serve
