#include "serve/sweep/search_plan.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "core/error.hpp"
#include "serve/point/probe_deadline.hpp"
#include "serve/sweep/capacity_estimate.hpp"

namespace ironbench::serve {
namespace {

search_settings by_rate(double duration_s, std::int64_t floor, std::int64_t cap = 0) {
  search_settings s;
  s.probe_duration_s = duration_s;
  s.min_probe_requests = floor;
  s.max_probe_requests = cap;
  return s;
}

TEST(SearchPlan, AProbeIsItsDurationOfRequestsWithAFloorAndACap) {
  const auto s = by_rate(60, 50);
  EXPECT_EQ(probe_requests(s, 1), 60);                          // 1 request/s for 60 s
  EXPECT_EQ(probe_requests(s, 0.5), 50);                        // 30 requests in 60 s: the floor
  EXPECT_EQ(probe_requests(s, 10), 600);                        // 10 requests/s for 60 s
  EXPECT_EQ(probe_requests(s, 10.01), 601);                     // rounded up
  EXPECT_EQ(probe_requests(by_rate(60, 50, 1000), 100), 1000);  // an explicit --num-prompts caps it
  EXPECT_EQ(probe_requests(by_rate(60, 50, 20), 0.1), 20);      // even below the floor
  EXPECT_DOUBLE_EQ(probe_send_s(s, 10), 59.9);                  // 600 requests, 599 gaps of 0.1 s
  EXPECT_DOUBLE_EQ(probe_send_s(s, 0.5), 98);                   // the floor's 49 gaps of 2 s
}

search_plan plan_at(double start, double drain_s) {
  search_plan plan;
  plan.start = start;
  plan.start_basis = "test";
  plan.rate_at = [](double load) { return load; };
  plan.drain_s = drain_s;
  return plan;
}

TEST(SearchPlan, TheBoundIsTheWorstPathOfProbes) {
  // Rate from 80 with 60 s probes (floor 50): every load above 50/60 req/s sends for about
  // 60 s; with 4 probes at most the worst path is 4 probes of 60 + 10 + 1 s.
  auto s = by_rate(60, 50);
  s.max_probes = 4;
  EXPECT_DOUBLE_EQ(probes_time_bound_s(s, plan_at(80, 10)), 4 * 71.0);
  // From 1 req/s the descent reaches 1/64 req/s, where the floor's 49 gaps last 3136 s: the
  // worst path halves 3 times (1, 0.5, 0.25, 0.125) within 4 probes.
  EXPECT_DOUBLE_EQ(probes_time_bound_s(s, plan_at(1, 10)), (60 + 11) + (98 + 11) + (196 + 11) + (392 + 11));
  EXPECT_EQ(probe_time_limit_s(s, plan_at(80, 10), 80), probe_send_s(s, 80) + 10);
  const auto text = plan_text(s, plan_at(80, 10));
  EXPECT_NE(text.find("start at 80 requests/s (test); at most 4 probes, each about 60 s"), std::string::npos) << text;
  EXPECT_NE(text.find("at most 284 s in all"), std::string::npos) << text;
  EXPECT_EQ(text.find("caps each probe"), std::string::npos) << text;
  // An explicit --num-prompts below the duration's requests: the plan says the probes are short.
  s.max_probe_requests = 100;
  const auto capped = plan_text(s, plan_at(80, 10));
  EXPECT_NE(capped.find("--num-prompts 100 caps each probe: at 80 requests/s one sends for 1.24 s, not 60 s"),
            std::string::npos)
      << capped;
  s.max_probe_requests = 4800;  // 80 x 60: not shorter
  EXPECT_EQ(plan_text(s, plan_at(80, 10)).find("caps each probe"), std::string::npos);
}

// Every path search_limit takes stays within the bound: probes whose objectives break above
// a threshold, each taking its time limit.
TEST(SearchPlan, NoSearchPathTakesLongerThanTheBound) {
  for (const auto axis : {search_axis::rate, search_axis::concurrency}) {
    auto s = by_rate(30, 40);
    s.axis = axis;
    s.max_probes = 9;
    s.max = 4096;
    auto plan = plan_at(axis == search_axis::rate ? 37 : 16, 20);
    if (axis == search_axis::concurrency) plan.rate_at = [](double c) { return 3 * std::min(c, 32.0); };
    s.start = plan.start;
    const double bound = probes_time_bound_s(s, plan);
    for (double threshold : {0.0, 0.01, 0.3, 1.0, 5.0, 17.0, 36.9, 37.0, 80.0, 1000.0, 1e6}) {
      double spent = 0;
      const auto result = search_limit(s, [&](double load) {
        spent += probe_time_limit_s(s, plan, load) + probe_overhead_s;
        return probe_outcome{true, load <= threshold, ""};
      });
      EXPECT_LE(spent, bound * (1 + 1e-12)) << threshold << " " << result.ended;
      EXPECT_LE(static_cast<int>(result.probes.size()), s.max_probes);
    }
  }
}

TEST(SearchSettings, RefusesWhatCannotBeSearched) {
  EXPECT_NO_THROW(check_search_settings(search_settings{}));
  auto s = search_settings{};
  s.probe_duration_s = 0;
  EXPECT_THROW(check_search_settings(s), usage_error);
  s = {};
  s.min_probe_requests = 0;
  EXPECT_THROW(check_search_settings(s), usage_error);
  s = {};
  s.estimate_concurrency = 0;
  EXPECT_THROW(check_search_settings(s), usage_error);
  s = {};
  s.estimate_duration_s = -1;
  EXPECT_THROW(check_search_settings(s), usage_error);
}

request_record finished(double sent_s, double e2el_s) {
  request_record r;
  r.success = true;
  r.sent_s = sent_s;
  r.e2el_s = e2el_s;
  return r;
}

TEST(CapacityEstimate, IsTheSlopeOfCompletionsWhileEverySlotWasBusy) {
  // An engine of 4 slots finishing its sequences together every 40 ms, each completion
  // sending the next request: 100 requests/s, whatever the staircase.
  std::vector<request_record> records;
  for (int k = 0; k < 8; ++k) {
    for (int j = 0; j < 4; ++j) records.push_back(finished(0.04 * k, 0.04 + 0.0001 * j));
  }
  const auto e = estimate_capacity(records);
  ASSERT_TRUE(e.ok) << e.why;
  // The last send came with the seventh batch's first completion: the rest of that batch,
  // after it, is left out, which lowers the slope by a little (1.5 % here).
  EXPECT_NEAR(e.requests_per_s, 100, 2);
  EXPECT_LT(e.requests_per_s, 100);
  EXPECT_NEAR(e.max_e2el_s, 0.0403, 1e-9);
  EXPECT_EQ(e.completed, 32U);
  // Two completions only: all of them over the burst's time.
  const auto few = estimate_capacity({finished(0, 0.5), finished(0, 1)});
  ASSERT_TRUE(few.ok);
  EXPECT_DOUBLE_EQ(few.requests_per_s, 2);
  auto failed = finished(0, 1);
  failed.success = false;
  EXPECT_FALSE(estimate_capacity({failed}).ok);
  EXPECT_EQ(estimate_capacity({}).why, "no request was sent");
  EXPECT_EQ(estimate_requests(32), 256U);
}

TEST(ProbeDeadline, SetsTheFlagAtItsLimitOrWithTheUser) {
  // Waits for the flag (at most 30 s, a hang guard), not for a fixed time a loaded machine may
  // not give the deadline's thread.
  const auto wait_for_flag = [](const probe_deadline& d) {
    for (int i = 0; i < 3000 && !d.flag()->load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return d.flag()->load();
  };
  {
    const probe_deadline deadline(nullptr, 0.05);
    EXPECT_FALSE(deadline.flag()->load());
    EXPECT_TRUE(wait_for_flag(deadline));
    EXPECT_TRUE(deadline.expired());
  }
  std::atomic<bool> user{false};
  const probe_deadline deadline(&user, 100);
  user = true;
  EXPECT_TRUE(wait_for_flag(deadline));
  EXPECT_FALSE(deadline.expired());
}

}  // namespace
}  // namespace ironbench::serve
