// The serving case every serve result becomes: its headline metrics carry their units.
#include <gtest/gtest.h>

#include "schema/serving.hpp"

namespace ironbench::schema {
namespace {

TEST(ServingSchema, EveryHeadlineMetricHasItsUnit) {
  serving_point point;
  point.device = "http://127.0.0.1:8000";
  point.max_concurrency = 8;
  point.request_rate = "inf";
  point.num_prompts = 100;
  for (const auto& name : serving_headline_metrics()) point.values[name] = 1.5;
  point.failed = 0;
  const auto c = serving_case(point);
  ASSERT_EQ(c.metrics.size(), serving_headline_metrics().size() + 1);
  for (const auto& m : c.metrics) {
    const auto expected = m.name == "request_throughput"                                        ? "req/s"
                          : m.name == "output_throughput" || m.name == "total_token_throughput" ? "tok/s"
                          : m.name == "failed"                                                  ? "requests"
                                                                                                : "ms";
    EXPECT_EQ(m.unit, expected) << m.name;
  }
  EXPECT_EQ(serving_metric_unit("p99_itl_ms"), "ms");
  EXPECT_EQ(serving_metric_unit("something_else"), "");
}

}  // namespace
}  // namespace ironbench::schema
