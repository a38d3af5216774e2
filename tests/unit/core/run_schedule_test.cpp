// The schedule of a plan (stages, devices, cases alone), the dispatcher's rules, and the time
// estimate built on them: the case cost model, the simulated run, the --time-limit check.
#include <gtest/gtest.h>

#include "core/case_cost.hpp"
#include "core/error.hpp"
#include "core/run_estimate.hpp"
#include "core/run_schedule.hpp"

namespace ironbench::core {
namespace {

scheduled_case make(std::size_t index, std::size_t step, std::vector<std::string> devices, bool alone = false) {
  scheduled_case c;
  c.index = index;
  c.step = step;
  c.devices = std::move(devices);
  c.alone = alone;
  return c;
}

TEST(CaseDispatcher, OneCaseAtATimePerDeviceAndStepsInOrder) {
  case_dispatcher d({make(0, 2, {"cpu"}, true), make(1, 0, {"cuda:0"}), make(2, 0, {"cuda:0"}), make(3, 0, {"cuda:1"}),
                     make(4, 1, {"cuda:0", "cuda:1"})});
  EXPECT_EQ(d.start_ready(), (std::vector<std::size_t>{1, 3}));  // the CPU's step waits; cuda:0's second waits
  EXPECT_TRUE(d.start_ready().empty());
  d.finish(3);
  EXPECT_TRUE(d.start_ready().empty());  // step 1 waits for all of step 0
  d.finish(1);
  EXPECT_EQ(d.start_ready(), (std::vector<std::size_t>{2}));
  d.finish(2);
  EXPECT_EQ(d.start_ready(), (std::vector<std::size_t>{4}));
  d.finish(4);
  EXPECT_EQ(d.start_ready(), (std::vector<std::size_t>{0}));
  d.finish(0);
  EXPECT_TRUE(d.idle());
}

TEST(CaseDispatcher, ACaseAloneHasNothingBesideIt) {
  case_dispatcher d({make(0, 0, {"cuda:0"}, true), make(1, 0, {"cuda:1"}, true), make(2, 0, {"cuda:2"})});
  EXPECT_EQ(d.start_ready(), (std::vector<std::size_t>{0}));
  EXPECT_TRUE(d.start_ready().empty());
  d.finish(0);
  EXPECT_EQ(d.start_ready(), (std::vector<std::size_t>{1}));
  d.finish(1);
  EXPECT_EQ(d.start_ready(), (std::vector<std::size_t>{2}));
}

TEST(CaseDispatcher, ALostDeviceStrandsItsCasesAndNoOneElses) {
  case_dispatcher d({make(0, 0, {"cuda:0"}), make(1, 0, {"cuda:0"}), make(2, 0, {"cuda:1"}),
                     make(3, 1, {"cuda:1", "cuda:0"}), make(4, 1, {"cuda:1", "cuda:2"})});
  EXPECT_EQ(d.start_ready(), (std::vector<std::size_t>{0, 2}));
  d.abandon(0);
  const auto stranded = d.take_stranded();
  ASSERT_EQ(stranded.size(), 2u);
  EXPECT_EQ(stranded[0], (std::pair<std::size_t, std::string>{1, "cuda:0"}));
  EXPECT_EQ(stranded[1], (std::pair<std::size_t, std::string>{3, "cuda:0"}));
  d.finish(2);
  EXPECT_EQ(d.start_ready(), (std::vector<std::size_t>{4}));
  EXPECT_EQ(d.lost_devices(), std::vector<std::string>{"cuda:0"});
}

TEST(CaseCost, TheMeasurementLoopsRulesBoundTheTimedPart) {
  measurement_settings s;  // warm-up 0.1 s, 5..1000 repetitions, 0.5..3 s, samples of 100 us
  case_cost c;
  c.setup_s = 1;
  c.verify_s = 0.5;
  c.repetition_s = 0;  // unknown: up to max_time
  EXPECT_DOUBLE_EQ(estimated_case_seconds(c, s), 1 + 0.5 + 0.1 + 3);
  c.repetition_s = 1e-3;  // 1000 repetitions of 1 ms end the loop after 1 s
  EXPECT_NEAR(estimated_case_seconds(c, s), 1.5 + 0.1 + 1.0, 1e-9);
  c.repetition_s = 10e-3;  // max_time ends it after 3 s and one more sample
  EXPECT_NEAR(estimated_case_seconds(c, s), 1.5 + 0.1 + 3.01, 1e-9);
  c.repetition_s = 2.0;  // 5 repetitions of 2 s outlast max_time; the warm-up is one of them
  EXPECT_NEAR(estimated_case_seconds(c, s), 1.5 + 2 + 10, 1e-9);
  c.repetition_s = 1e-6;  // batched into samples of 100 us: 1000 of them
  EXPECT_EQ(batch_for(1e-6, 100e-6), 100u);
  EXPECT_NEAR(estimated_case_seconds(c, s), 1.5 + 0.1 + 0.1, 1e-9);
  c.batched = false;
  c.untimed_per_sample_s = 1e-3;
  c.aimed_reps = 200;
  c.repetition_s = 0.02;  // 200 do not fit in 3 s: 150 are aimed for, samples of 21 ms with the flush
  EXPECT_NEAR(estimated_case_seconds(c, s), 1.5 + 0.1 + 150 * 0.021, 1e-9);
  c.measures = false;  // skipped when it runs
  EXPECT_DOUBLE_EQ(estimated_case_seconds(c, s), 1.5);
}

TEST(RunEstimate, GpusSideBySideThenTheCpu) {
  struct fixed_cost : benchmark {
    std::string name() const override { return "b"; }
    std::string summary() const override { return ""; }
    std::string unsupported_reason(const device_info&) const override { return {}; }
    std::vector<axis> axes(const device_info&) const override { return {integer_axis("n", {1, 2}, "")}; }
    case_cost cost(const parameter_set&, const device_info& d) const override {
      case_cost c;
      c.setup_s = d.kind == device_kind::cpu ? 10 : 20;
      c.repetition_s = 1e-3;  // 1 s of timed repetitions, 0.1 s of warm-up
      return c;
    }
    void run(case_state&) const override {}
  };
  registry r;
  r.add(std::make_unique<fixed_cost>());
  std::vector<device_info> devices{{"cpu", device_kind::cpu, 0, "CPU", 0, json::object()}};
  for (int i = 0; i < 8; ++i)
    devices.push_back({"cuda:" + std::to_string(i), device_kind::cuda, i, "G", 0, json::object()});
  run_options o;
  o.schedule = schedule_mode::concurrent;
  const auto plan = plan_run(r, devices, o);
  const auto e = estimate_run(plan, o);
  EXPECT_NEAR(e.total_s, 2 * 21.1 + 2 * 11.1, 1e-6);  // the 8 GPUs' two cases at once, then the CPU's
  ASSERT_EQ(e.devices.size(), 9u);
  EXPECT_EQ(e.devices[1].cases, 2u);
  EXPECT_NEAR(e.devices[1].end_s, 42.2, 1e-6);
  EXPECT_NEAR(e.devices[0].busy_s, 22.2, 1e-6);
  ASSERT_EQ(e.stages.size(), 2u);
  EXPECT_EQ(e.stages[0].stage, "gpus");
  EXPECT_EQ(e.stages[1].stage, "host");
  EXPECT_NE(describe(e).find("18 cases, at most about 1 min 4 s"), std::string::npos) << describe(e);
  o.schedule = schedule_mode::sequential;
  EXPECT_NEAR(estimate_run(plan, o).total_s, 16 * 21.1 + 2 * 11.1, 1e-6);

  EXPECT_NO_THROW(check_time_limit(e, 0));
  EXPECT_NO_THROW(check_time_limit(e, 65));
  try {
    check_time_limit(e, 60);
    FAIL() << "no usage_error";
  } catch (const usage_error& error) {
    EXPECT_NE(std::string(error.what()).find("estimated at up to 1 min 4 s, over --time-limit 1 min"),
              std::string::npos)
        << error.what();
  }
}

TEST(RunEstimate, ACaseTimeLimitFollowsItsEstimate) {
  EXPECT_DOUBLE_EQ(case_time_limit_s(10, 0), 90);
  EXPECT_DOUBLE_EQ(case_time_limit_s(10, 5), 5);
}

TEST(RunEstimate, WallTimesReadAsPeopleSayThem) {
  EXPECT_EQ(format_wall_time(0), "0 s");
  EXPECT_EQ(format_wall_time(0.42), "0.4 s");
  EXPECT_EQ(format_wall_time(42.4), "42 s");
  EXPECT_EQ(format_wall_time(125), "2 min 5 s");
  EXPECT_EQ(format_wall_time(180), "3 min");
  EXPECT_EQ(format_wall_time(3725), "1 h 2 min");
}

}  // namespace
}  // namespace ironbench::core
