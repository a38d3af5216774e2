#include "core/runner.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>

#include "core/case_stability.hpp"
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
    return {string_axis("mode", {"ok"}, "", {"ok", "wrong", "skip", "throw", "nothing", "scatter"}),
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
    // "scatter": every other sample takes 100 times as long, as on a host another job shares.
    std::size_t sample = 0;
    state.measure([&](std::size_t n) {
      const double each = mode == "scatter" && sample++ % 2 == 1 ? 1.0 : 0.01;
      return each * static_cast<double>(n);
    });
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
  execute_plan(plan, options, run, [&](const progress_event& e) {
    EXPECT_EQ(e.total, 5u);
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
  execute_plan(plan_run(benchmarks, {devices[0]}, options), options, run, [&](const progress_event& e) {
    if (e.index == 1 && e.result != nullptr) cancel = true;
  });
  EXPECT_EQ(run.cases.size(), 2u);
  EXPECT_EQ(run.status, run_status::interrupted);
  EXPECT_EQ(run.status_reason, "interrupted after 2 of 4 cases");
}

// A monitor that reports a fixed host load, as the host-load monitor would on a busy host.
class fixed_load_monitor final : public case_monitor {
 public:
  case_observation finish() override {
    case_observation seen;
    seen.load = host_load{48, 3};
    return seen;
  }
};

TEST_F(fixture, ACaseAsNoisyAsNoiseIsMarkedUnstableWithWhatElseRan) {
  options.benchmarks = {"alpha"};
  override_axis("mode=ok,scatter");
  options.settings.max_reps = 10;
  options.monitor = [](const device_info&) { return std::make_unique<fixed_load_monitor>(); };
  run_result run;
  execute_plan(plan_run(benchmarks, {devices[0]}, options), options, run);
  ASSERT_EQ(run.cases.size(), 2u);
  EXPECT_FALSE(run.cases[0].unstable.has_value());  // steady samples: CV 0
  ASSERT_TRUE(run.cases[0].load.has_value());
  EXPECT_DOUBLE_EQ(run.cases[0].load->others_percent, 48);
  const auto& noisy = run.cases[1];
  EXPECT_EQ(noisy.status, case_status::valid);  // verified, so still valid, but marked
  ASSERT_TRUE(noisy.unstable.has_value());
  EXPECT_GT(noisy.unstable->cv, 0.9);
  EXPECT_GT(noisy.unstable->robust_cv, 0.5);
  EXPECT_DOUBLE_EQ(noisy.unstable->max_cv, 0.5);
  ASSERT_TRUE(noisy.unstable->load.has_value());
  EXPECT_DOUBLE_EQ(noisy.unstable->load->steal_percent, 3);
  EXPECT_EQ(run.status, run_status::valid);

  options.settings.unstable_cv = 0;  // the rule turned off
  run_result unjudged;
  execute_plan(plan_run(benchmarks, {devices[0]}, options), options, unjudged);
  EXPECT_FALSE(unjudged.cases[1].unstable.has_value());
}

TEST(CombinedMonitors, EachSeesTheCaseAndTheirObservationsMerge) {
  struct recording final : case_monitor {
    explicit recording(int id, int* windows) : id(id), windows(windows) {}
    void measured_between(const time_window&) override { ++*windows; }
    case_observation finish() override {
      case_observation seen;
      if (id == 1) seen.summary = json{{"from", 1}};
      if (id == 2) seen.load = host_load{10, 0};
      seen.metrics.push_back({"m" + std::to_string(id), 1.0, "", ""});
      return seen;
    }
    int id;
    int* windows;
  };
  int windows = 0;
  const auto combined = combine_monitors(
      {[&](const device_info&) { return std::make_unique<recording>(1, &windows); }, case_monitor_factory{},
       [&](const device_info&) { return std::make_unique<recording>(2, &windows); }});
  const device_info cpu{"cpu", device_kind::cpu, 0, "CPU", 1u << 20, json::object()};
  auto monitor = combined(cpu);
  ASSERT_NE(monitor, nullptr);
  monitor->measured_between(time_window{});
  const auto seen = monitor->finish();
  EXPECT_EQ(windows, 2);
  EXPECT_EQ(seen.summary, (json{{"from", 1}}));
  ASSERT_TRUE(seen.load.has_value());
  EXPECT_DOUBLE_EQ(seen.load->others_percent, 10);
  ASSERT_EQ(seen.metrics.size(), 2u);
  EXPECT_EQ(combine_monitors({})(cpu), nullptr);
}

measurement timed(std::vector<double> samples) {
  measurement m;
  m.samples_s = std::move(samples);
  m.time_s = summarize(m.samples_s);
  return m;
}

TEST(CaseStability, TheRuleJudgesTheSpreadOfTheMiddleSamples) {
  // Normal samples: the robust CV estimates the CV.
  std::mt19937 random(7);
  std::normal_distribution<double> around_one(1.0, 0.05);
  std::vector<double> normal;
  for (int i = 0; i < 10000; ++i) normal.push_back(around_one(random));
  const auto n = timed(normal);
  EXPECT_NEAR(robust_cv(n.time_s) / n.time_s.cv, 1.0, 0.05);

  // 2 % of the samples preempted a hundredfold: a huge CV, the median and middle untouched.
  std::vector<double> preempted(980, 40e-6);
  for (int i = 0; i < 20; ++i) preempted.push_back(4e-3);
  const auto p = timed(preempted);
  EXPECT_GT(p.time_s.cv, 1.0);
  EXPECT_FALSE(judge_stability(p, 0.5, std::nullopt).has_value());

  // Half the samples slowed tenfold by a job sharing the CPU: as noisy as noise.
  std::vector<double> shared;
  for (int i = 0; i < 100; ++i) shared.push_back(i % 2 == 0 ? 1e-3 : 1e-2);
  const auto unstable = judge_stability(timed(shared), 0.5, host_load{48.4, 0.2});
  ASSERT_TRUE(unstable.has_value());
  EXPECT_EQ(unstable->samples, 100u);
  EXPECT_GT(unstable->robust_cv, 0.5);
  EXPECT_EQ(unstable->describe(),
            fmt::format("robust CV {:.0f} % (CV {:.0f} %) over 100 samples (unstable above 50 %); other processes used "
                        "48 % of the host's CPUs and the hypervisor stole 0 % meanwhile",
                        unstable->robust_cv * 100, unstable->cv * 100));
  EXPECT_FALSE(judge_stability(timed(shared), 0, std::nullopt).has_value());          // 0 turns the rule off
  EXPECT_FALSE(judge_stability(timed({1e-3, 1e-2}), 0.5, std::nullopt).has_value());  // two samples say nothing
  EXPECT_DOUBLE_EQ(robust_cv(summary{}), 0);
}

}  // namespace
}  // namespace ironbench::core
