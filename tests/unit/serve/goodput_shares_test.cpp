// SLO attainment (every SLO, each alone) and token goodput on hand-computed records.
#include "serve/measures/goodput_shares.hpp"

#include <gtest/gtest.h>

namespace ironbench::serve {
namespace {

request_record slo_record(double ttft_s, double e2el_s, std::int64_t output_len) {
  request_record r;
  r.success = true;
  r.prompt_len = 10;
  r.output_len = output_len;
  r.ttft_s = ttft_s;
  r.e2el_s = e2el_s;
  return r;
}

// Five requests sent; TPOT = (E2EL - TTFT) / (out - 1):
//   a: TTFT 100 ms, TPOT 10 ms, E2EL 1090 ms, 100 tokens  -> meets ttft, tpot, not e2el (1000)
//   b: TTFT 300 ms, TPOT 5 ms,  E2EL 545 ms,  50 tokens   -> misses ttft (200) only
//   c: TTFT 50 ms,  TPOT 30 ms, E2EL 650 ms,  21 tokens   -> misses tpot (20) only
//   d: TTFT 150 ms, one token,  E2EL 150 ms,  1 token     -> meets all (no TPOT: counts as 0)
//   e: failed                                             -> meets none
std::vector<request_record> five_records() {
  request_record failed;
  failed.error_class = "http_5xx";
  return {slo_record(0.1, 1.09, 100), slo_record(0.3, 0.545, 50), slo_record(0.05, 0.65, 21), slo_record(0.15, 0.15, 1),
          failed};
}

TEST(GoodputShares, EverySloAndEachAloneOverAllRequestsSent) {
  const auto m = goodput_shares(five_records(), 2.0, {200.0, 20.0, 1000.0});
  EXPECT_DOUBLE_EQ(m.at("slo_attainment").get<double>(), 1.0 / 5);       // d
  EXPECT_DOUBLE_EQ(m.at("slo_attainment_ttft").get<double>(), 3.0 / 5);  // a c d
  EXPECT_DOUBLE_EQ(m.at("slo_attainment_tpot").get<double>(), 3.0 / 5);  // a b d
  EXPECT_DOUBLE_EQ(m.at("slo_attainment_e2el").get<double>(), 3.0 / 5);  // b c d
  EXPECT_EQ(m.at("goodput_requests"), 1);
  EXPECT_DOUBLE_EQ(m.at("token_goodput").get<double>(), 1.0 / 2.0);  // d's one token in 2 s
}

TEST(GoodputShares, OnlyTheSlosSetAreJudgedAndReported) {
  // TTFT alone: a, c and d meet it; their tokens 100 + 21 + 1 over 2 s.
  const auto m = goodput_shares(five_records(), 2.0, {200.0, std::nullopt, std::nullopt});
  EXPECT_DOUBLE_EQ(m.at("slo_attainment").get<double>(), 3.0 / 5);
  EXPECT_DOUBLE_EQ(m.at("slo_attainment_ttft").get<double>(), 3.0 / 5);
  EXPECT_FALSE(m.contains("slo_attainment_tpot"));
  EXPECT_FALSE(m.contains("slo_attainment_e2el"));
  EXPECT_DOUBLE_EQ(m.at("token_goodput").get<double>(), 122.0 / 2.0);
  // At the boundary a request meets its SLO (<=, as vLLM judges).
  const auto edge = goodput_shares({slo_record(0.2, 0.2, 1)}, 1.0, {200.0, std::nullopt, std::nullopt});
  EXPECT_DOUBLE_EQ(edge.at("slo_attainment").get<double>(), 1.0);
}

TEST(GoodputShares, AgreesWithVllmsRequestGoodput) {
  const goodput_slo slo{200.0, 20.0, 1000.0};
  const auto vllm = serving_metrics(five_records(), 2.0, slo, {});
  const auto shares = goodput_shares(five_records(), 2.0, slo);
  EXPECT_DOUBLE_EQ(vllm.at("request_goodput").get<double>(), shares.at("goodput_requests").get<double>() / 2.0);
}

TEST(GoodputShares, NothingWithoutAnSloAndZerosWithoutRequests) {
  EXPECT_TRUE(goodput_shares(five_records(), 2.0, {}).empty());
  const auto none = goodput_shares({}, 0.0, {100.0, std::nullopt, std::nullopt});
  EXPECT_DOUBLE_EQ(none.at("slo_attainment").get<double>(), 0);
  EXPECT_DOUBLE_EQ(none.at("token_goodput").get<double>(), 0);
}

}  // namespace
}  // namespace ironbench::serve
