#include "core/runner.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace ironbench::core {
namespace {

// A benchmark whose behaviour per case is chosen by its "mode" axis.
class scripted_benchmark final : public benchmark {
 public:
  explicit scripted_benchmark(std::string name, bool default_suite = true)
      : name_(std::move(name)), default_suite_(default_suite) {}
  std::string name() const override { return name_; }
  std::string summary() const override { return "scripted"; }
  std::string unsupported_reason(const device_info& d) const override {
    return d.kind == device_kind::cpu ? "" : "cpu only";
  }
  std::vector<axis> axes(const device_info&) const override {
    return {string_axis("mode", {"ok"}, "", {"ok", "wrong", "skip", "throw", "nothing"}),
            size_axis("size", {1024}, "")};
  }
  std::uint64_t memory_required(const parameter_set& p, const device_info&) const override {
    return static_cast<std::uint64_t>(p.integer("size"));
  }
  void run(case_state& state) const override {
    const auto mode = state.params().string("mode");
    if (mode == "skip") state.skip("not here");
    if (mode == "throw") throw error("device lost");
    if (mode == "nothing") return;
    state.add_flops(1e9);
    state.add_bytes_read(3e9);
    state.add_bytes_written(1e9);
    state.set_peak_flops({1e12, "test peak"});
    state.measure([](std::size_t n) { return 0.01 * static_cast<double>(n); });
    state.require(mode != "wrong", "wrong answer");
  }
  bool in_default_suite() const override { return default_suite_; }

 private:
  std::string name_;
  bool default_suite_;
};

struct fixture : ::testing::Test {
  registry benchmarks;
  std::vector<device_info> devices{{"cpu", device_kind::cpu, 0, "CPU", 1u << 20, json::object()},
                                   {"cuda:0", device_kind::cuda, 0, "GPU", 1u << 20, json::object()}};
  run_options options;

  fixture() {
    benchmarks.add(std::make_unique<scripted_benchmark>("alpha"));
    benchmarks.add(std::make_unique<scripted_benchmark>("beta", false));
    options.settings.warmup_s = 0;
    options.settings.min_time_s = 0;
    options.settings.min_sample_s = 0;
  }

  void override_axis(const char* text) { options.overrides.push_back(parse_axis_override(text)); }
};

TEST_F(fixture, DefaultSuiteSkipsUnsupportedDevicesWithAReason) {
  const auto plan = plan_run(benchmarks, devices, options);
  ASSERT_EQ(plan.size(), 2u);  // alpha on cpu, alpha on cuda:0 (skipped); beta is not default
  EXPECT_EQ(plan[0].bench->name(), "alpha");
  EXPECT_EQ(plan[1].skip_reason, "cpu only");
  EXPECT_EQ(plan[0].param_units.at("size"), "B");
}

TEST_F(fixture, ComputesRatesFromDeclaredWork) {
  options.benchmarks = {"alpha"};
  const auto plan = plan_run(benchmarks, {devices[0]}, options);
  const auto result = run_case(plan[0], options);
  EXPECT_EQ(result.status, case_status::valid);
  ASSERT_NE(result.find_metric("tflops"), nullptr);
  EXPECT_NEAR(result.find_metric("tflops")->value, 0.1, 1e-12);      // 1e9 / 0.01 s / 1e12
  EXPECT_NEAR(result.find_metric("bandwidth")->value, 400.0, 1e-9);  // 4e9 B / 0.01 s / 1e9
  EXPECT_NEAR(result.find_metric("peak_percent")->value, 10.0, 1e-9);
  EXPECT_EQ(result.notes.at("peak"), "1 TFLOP/s: test peak");
}

TEST_F(fixture, CaseOutcomes) {
  options.benchmarks = {"alpha"};
  override_axis("mode=ok,wrong,skip,throw,nothing");
  const auto plan = plan_run(benchmarks, {devices[0]}, options);
  run_result run;
  std::size_t callbacks = 0;
  execute_plan(plan, options, run, [&](std::size_t, std::size_t total, const planned_case&, const case_result*) {
    EXPECT_EQ(total, 5u);
    ++callbacks;
  });
  EXPECT_EQ(callbacks, 10u);
  ASSERT_EQ(run.cases.size(), 5u);
  EXPECT_EQ(run.cases[0].status, case_status::valid);
  EXPECT_EQ(run.cases[1].status, case_status::invalid);
  EXPECT_EQ(run.cases[1].reason, "wrong answer");
  EXPECT_TRUE(run.cases[1].timing.has_value());  // numbers are kept, flagged
  EXPECT_EQ(run.cases[2].status, case_status::skipped);
  EXPECT_EQ(run.cases[2].reason, "not here");
  EXPECT_EQ(run.cases[3].status, case_status::failed);
  EXPECT_EQ(run.cases[3].reason, "device lost");
  EXPECT_EQ(run.cases[4].status, case_status::failed);
  EXPECT_EQ(run.status, run_status::invalid);
}

TEST_F(fixture, AllValidRunIsValid) {
  options.benchmarks = {"alpha", "beta", "alpha"};
  run_result run;
  execute_plan(plan_run(benchmarks, {devices[0]}, options), options, run);
  EXPECT_EQ(run.cases.size(), 2u);  // a benchmark named twice runs once
  EXPECT_EQ(run.status, run_status::valid);
}

TEST_F(fixture, PlanningErrorsAreUsageErrors) {
  options.benchmarks = {"gamma"};
  EXPECT_THROW((void)plan_run(benchmarks, devices, options), usage_error);

  options.benchmarks = {"alpha"};
  override_axis("nosuch=1");
  EXPECT_THROW((void)plan_run(benchmarks, devices, options), usage_error);

  options.overrides.clear();
  override_axis("beta:mode=ok");  // beta is not selected
  EXPECT_THROW((void)plan_run(benchmarks, devices, options), usage_error);

  options.overrides.clear();
  override_axis("size=2M");  // more than the device's 1 MiB
  try {
    (void)plan_run(benchmarks, devices, options);
    FAIL() << "no exception";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("needs 2 MiB"), std::string::npos) << e.what();
  }

  options.overrides.clear();
  override_axis("size=1:200000");
  EXPECT_THROW((void)plan_run(benchmarks, devices, options), usage_error);
}

TEST_F(fixture, CancelMarksTheRunInterruptedAndKeepsResults) {
  std::atomic<bool> cancel{false};
  options.cancel = &cancel;
  options.benchmarks = {"alpha"};
  override_axis("size=1:4");
  run_result run;
  execute_plan(plan_run(benchmarks, {devices[0]}, options), options, run,
               [&](std::size_t index, std::size_t, const planned_case&, const case_result* r) {
                 if (index == 1 && r != nullptr) cancel = true;
               });
  EXPECT_EQ(run.cases.size(), 2u);
  EXPECT_EQ(run.status, run_status::interrupted);
  EXPECT_EQ(run.status_reason, "interrupted after 2 of 4 cases");
}

}  // namespace
}  // namespace ironbench::core
