// A point's verdict from its own requests: too many failed, or interrupted.
#include "serve/point/point_verdict.hpp"

#include <gtest/gtest.h>

namespace ironbench::serve {
namespace {

load_result with_requests(int completed, int failed) {
  load_result r;
  request_record ok;
  ok.success = true;
  for (int i = 0; i < completed; ++i) r.records.push_back(ok);
  for (int i = 0; i < failed; ++i) {
    request_record f;
    f.error_class = "http_5xx";
    f.error = "HTTP 500: simulated failure";
    r.records.push_back(f);
  }
  return r;
}

TEST(PointVerdict, MoreFailedThanTheShareAllowsIsInvalid) {
  auto most_failed = with_requests(7, 13);  // 13 of 20
  judge_point(most_failed, default_max_failed_share);
  EXPECT_FALSE(most_failed.valid);
  EXPECT_EQ(most_failed.invalid_reason,
            "13 of 20 requests failed (65 %), more than --max-failed-share 0.5; the first: http_5xx: HTTP 500: "
            "simulated failure");
  auto half = with_requests(10, 10);
  judge_point(half, default_max_failed_share);
  EXPECT_TRUE(half.valid) << half.invalid_reason;
  auto one = with_requests(19, 1);
  judge_point(one, 0);
  EXPECT_FALSE(one.valid);
  auto all_ok = with_requests(20, 0);
  judge_point(all_ok, 0);
  EXPECT_TRUE(all_ok.valid);
}

TEST(PointVerdict, TheReasonIsAddedToTheClientsOwn) {
  auto r = with_requests(1, 3);
  r.valid = false;
  r.invalid_reason = "the client fell behind its schedule";
  judge_point(r, 0.5);
  EXPECT_EQ(r.invalid_reason.rfind("the client fell behind its schedule; 3 of 4 requests failed", 0), 0u)
      << r.invalid_reason;
}

TEST(PointVerdict, AnInterruptedPointIsNeverValid) {
  auto r = with_requests(5, 2);
  r.interrupted = true;
  r.not_sent = 13;
  judge_point(r, 1);
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.invalid_reason, "interrupted (Ctrl-C) with 5 of 20 requests completed");
  load_result nothing_sent;
  nothing_sent.interrupted = true;
  nothing_sent.not_sent = 20;
  judge_point(nothing_sent, 1);
  EXPECT_FALSE(nothing_sent.valid);
}

}  // namespace
}  // namespace ironbench::serve
