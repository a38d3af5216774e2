#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "core/runner.hpp"
#include "telemetry/case_telemetry.hpp"
#include "telemetry/gpu_sampler.hpp"
#include "telemetry/nvml_library.hpp"
#include "telemetry/pci_address.hpp"
#include "telemetry/series_summary.hpp"
#include "timed_check.hpp"

namespace ironbench::telemetry {
namespace {

using namespace std::chrono_literals;

TEST(PciAddress, ParsesRuntimeFormsAndRocmSmiBdfids) {
  const auto a = parse_pci_bus_id("0000:1B:00.0");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->bus, 0x1bu);
  EXPECT_EQ(to_string(*a), "0000:1b:00.0");
  EXPECT_EQ(parse_pci_bus_id("00000000:c1:1f.7"), (pci_address{0, 0xc1, 0x1f, 7}));
  EXPECT_EQ(parse_pci_bus_id("c1:00.1"), (pci_address{0, 0xc1, 0, 1}));
  EXPECT_FALSE(parse_pci_bus_id(""));
  EXPECT_FALSE(parse_pci_bus_id("0000:1B:00"));
  EXPECT_FALSE(parse_pci_bus_id("0000:1B:20.0"));  // device > 0x1f
  EXPECT_FALSE(parse_pci_bus_id("0000:1B:00.8"));
  EXPECT_FALSE(parse_pci_bus_id("zz:00.0"));
  EXPECT_EQ(pci_address_from_bdfid((0x2ull << 32) | (0xc1ull << 8) | (0x3ull << 3) | 1), (pci_address{2, 0xc1, 3, 1}));
  EXPECT_EQ(pci_address_from_bdfid((0xc1ull << 8) | (1ull << 28)), (pci_address{0, 0xc1, 0, 0}));
}

TEST(Decoding, ThrottleReasonsVirtualizationAndMigModes) {
  EXPECT_EQ(throttle_reason_names(0), std::vector<std::string>{});
  EXPECT_EQ(throttle_reason_names(0x4 | 0x40), (std::vector<std::string>{"sw_power_cap", "hw_thermal_slowdown"}));
  EXPECT_EQ(throttle_reason_names(1ull << 20), std::vector<std::string>{"bit_20"});
  EXPECT_EQ(nvml_virtualization_mode_name(0), "none");
  EXPECT_EQ(nvml_virtualization_mode_name(1), "passthrough");
  EXPECT_EQ(nvml_virtualization_mode_name(2), "vgpu");
  EXPECT_EQ(nvml_virtualization_mode_name(9), "mode_9");
  EXPECT_EQ(nvml_mig_mode_name(1), "enabled");
  EXPECT_EQ(nvml_mig_mode_name(0), "disabled");
}

TEST(SeriesSummary, MeanMaxEnergyUsedAndReasonsSeen) {
  std::vector<gpu_sample> samples(3);
  for (int i = 0; i < 3; ++i) {
    samples[i].time_s = 0.05 * i;
    samples[i].sm_clock_mhz = 1900 + 40 * i;  // 1900, 1940, 1980
    samples[i].power_w = 600 + 50 * i;
    samples[i].energy_j = 1000 + 30 * i;
  }
  samples[1].throttle_reasons = 0x4;
  samples[2].throttle_reasons = 0x4 | 0x8;
  samples[2].temperature_c = 70;
  const auto j = summarize(samples);
  EXPECT_EQ(j.at("samples"), 3);
  EXPECT_DOUBLE_EQ(j.at("duration_s").get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(j.at("sm_clock_mhz").at("mean").get<double>(), 1940);
  EXPECT_DOUBLE_EQ(j.at("sm_clock_mhz").at("max").get<double>(), 1980);
  EXPECT_DOUBLE_EQ(j.at("energy_used_j").get<double>(), 60);
  EXPECT_DOUBLE_EQ(j.at("temperature_c").at("max").get<double>(), 70);
  EXPECT_FALSE(j.contains("utilization_percent"));
  EXPECT_EQ(j.at("throttle_reasons"), json({"hw_slowdown", "sw_power_cap"}));
  const auto metrics = telemetry_metrics(samples);
  ASSERT_FALSE(metrics.empty());
  EXPECT_EQ(metrics[0].name, "sm_clock_mhz");
  EXPECT_DOUBLE_EQ(metrics[0].value, 1940);
  EXPECT_EQ(to_json(samples[2]).at("throttle_reasons"), json({"sw_power_cap", "hw_slowdown"}));
  EXPECT_EQ(summarize({}).at("samples"), 0);
}

// A GPU whose sensors count how often they were read.
class counting_device final : public gpu_telemetry_device {
 public:
  gpu_sample sample() const override {
    gpu_sample s;
    s.sm_clock_mhz = 1000 + reads_++;
    return s;
  }
  json static_info() const override { return {{"library", "counting"}}; }
  mutable std::atomic<int> reads_{0};
};

class counting_library final : public gpu_telemetry_library {
 public:
  std::string description() const override { return "counting"; }
  std::unique_ptr<gpu_telemetry_device> open_device(const std::string& bus, std::string& why) const override {
    if (bus != "0000:01:00.0") {
      why = "no such GPU";
      return nullptr;
    }
    return std::make_unique<counting_device>();
  }
};

// Timed (docs/testing.md, "Tests that judge time"): a sampler thread's samples in a wall-clock
// time, fewer where a loaded machine runs it late.
TEST(GpuSamplerTimed, SamplesAtItsIntervalUntilStopped) {
  auto device = std::make_shared<counting_device>();
  gpu_sampler sampler(device, 10ms);
  std::this_thread::sleep_for(120ms);
  const auto samples = sampler.stop();
  // 12 or 13 samples of 10 ms in 120 ms.
  testing::expect_time_not_below("samples at 10 ms in 120 ms", static_cast<double>(samples.size()), 12, 7, "samples");
  ASSERT_GE(samples.size(), 2u);
  EXPECT_LE(samples.size(), 20u);
  for (std::size_t i = 1; i < samples.size(); ++i) {
    EXPECT_GE(samples[i].time_s, samples[i - 1].time_s);
    EXPECT_GT(*samples[i].sm_clock_mhz, *samples[i - 1].sm_clock_mhz);
  }
  EXPECT_GE(samples.back().time_s, 0.1);
  EXPECT_TRUE(sampler.stop().empty());
}

core::device_info gpu_at(const std::string& bus) {
  core::device_info d;
  d.id = "cuda:0";
  d.kind = core::device_kind::cuda;
  d.properties = {{"pci_bus_id", bus}};
  return d;
}

TEST(CaseTelemetryTimed, MonitorsGpuCasesAndSaysWhyWhenItCannot) {
  const opened_library library{std::make_shared<counting_library>(), {}};
  const auto monitors = gpu_case_monitors(library, 5ms);
  core::device_info cpu;
  EXPECT_EQ(monitors(cpu), nullptr);

  auto monitor = monitors(gpu_at("0000:01:00.0"));
  ASSERT_NE(monitor, nullptr);
  std::this_thread::sleep_for(30ms);
  const auto seen = monitor->finish();
  EXPECT_EQ(seen.summary.at("available"), true);
  EXPECT_EQ(seen.summary.at("source"), "counting");
  testing::expect_time_not_below("samples at 5 ms in 30 ms", seen.summary.at("samples").get<double>(), 6, 4, "samples");
  EXPECT_EQ(seen.series.size(), seen.summary.at("samples").get<std::size_t>());
  ASSERT_FALSE(seen.metrics.empty());
  EXPECT_EQ(seen.metrics[0].name, "sm_clock_mhz");

  const auto elsewhere = monitors(gpu_at("0000:02:00.0"))->finish();
  EXPECT_EQ(elsewhere.summary.at("available"), false);
  EXPECT_EQ(elsewhere.summary.at("reason"), "telemetry unavailable: no such GPU");
  EXPECT_TRUE(elsewhere.series.is_null());

  const opened_library missing{nullptr, "telemetry unavailable: libnvidia-ml.so.1: cannot open shared object file"};
  const auto absent = gpu_case_monitors(missing, 5ms)(gpu_at("0000:01:00.0"))->finish();
  EXPECT_EQ(absent.summary.at("reason"), missing.unavailable_reason);
}

// The runner attaches a monitor's summary to the case and its series to the run.
class one_case final : public core::benchmark {
 public:
  std::string name() const override { return "one"; }
  std::string summary() const override { return "one case"; }
  std::string unsupported_reason(const core::device_info&) const override { return {}; }
  std::vector<core::axis> axes(const core::device_info&) const override { return {}; }
  void run(core::case_state& state) const override {
    state.measure_host([] { std::this_thread::sleep_for(1ms); });
  }
};

TEST(CaseTelemetryTimed, RunnerStoresTheSummaryWithTheCaseAndTheSeriesWithTheRun) {
  core::registry registry;
  registry.add(std::make_unique<one_case>());
  core::run_options options;
  options.settings.max_time_s = 0.05;
  options.settings.min_time_s = 0.02;
  options.settings.warmup_s = 0;
  options.monitor = gpu_case_monitors(opened_library{std::make_shared<counting_library>(), {}}, 5ms);
  const auto plan = core::plan_run(registry, {gpu_at("0000:01:00.0")}, options);
  core::run_result run;
  core::execute_plan(plan, options, run);
  ASSERT_EQ(run.cases.size(), 1u);
  EXPECT_EQ(run.cases[0].telemetry.at("available"), true);
  EXPECT_NE(run.cases[0].find_metric("sm_clock_mhz"), nullptr);
  ASSERT_EQ(run.telemetry.size(), 1u);
  EXPECT_EQ(run.telemetry[0].at("case"), 0);
  EXPECT_EQ(run.telemetry[0].at("device"), "cuda:0");
  testing::expect_time_not_below("samples at 5 ms in a case of 20 to 50 ms",
                                 static_cast<double>(run.telemetry[0].at("samples").size()), 4, 2, "samples");
}

// A GPU at 500 MHz while idle and 1500 MHz while a case measures (phase set by the case).
std::atomic<bool> measuring_phase{false};
class phased_device final : public gpu_telemetry_device {
 public:
  gpu_sample sample() const override {
    gpu_sample s;
    s.sm_clock_mhz = measuring_phase.load() ? 1500 : 500;
    return s;
  }
  json static_info() const override { return {{"library", "phased"}}; }
};
class phased_library final : public gpu_telemetry_library {
 public:
  std::string description() const override { return "phased"; }
  std::unique_ptr<gpu_telemetry_device> open_device(const std::string&, std::string&) const override {
    return std::make_unique<phased_device>();
  }
};
// 60 ms of setup, 60 ms of measurement, 60 ms of checking.
class setup_measure_check final : public core::benchmark {
 public:
  std::string name() const override { return "phases"; }
  std::string summary() const override { return "setup, measurement, check"; }
  std::string unsupported_reason(const core::device_info&) const override { return {}; }
  std::vector<core::axis> axes(const core::device_info&) const override { return {}; }
  void run(core::case_state& state) const override {
    std::this_thread::sleep_for(60ms);
    measuring_phase = true;
    state.measure_host([] { std::this_thread::sleep_for(1ms); });
    measuring_phase = false;
    std::this_thread::sleep_for(60ms);
  }
};

TEST(CaseTelemetryTimed, MetricsAreThoseOfTheMeasurementNotOfSetupAndChecking) {
  core::registry registry;
  registry.add(std::make_unique<setup_measure_check>());
  core::run_options options;
  options.settings.warmup_s = 0;
  options.settings.min_time_s = options.settings.max_time_s = 0.06;
  options.settings.target_cv = 0;
  options.monitor = gpu_case_monitors(opened_library{std::make_shared<phased_library>(), {}}, 5ms);
  const auto plan = core::plan_run(registry, {gpu_at("0000:01:00.0")}, options);
  core::run_result run;
  core::execute_plan(plan, options, run);
  ASSERT_EQ(run.cases.size(), 1u);
  const auto& c = run.cases[0];
  const auto* clock = c.find_metric("sm_clock_mhz");
  ASSERT_NE(clock, nullptr);
  // The whole case averages about 830 MHz; its measurement ran at 1500.
  SCOPED_TRACE(c.telemetry.dump());
  // Samples while the case measured read 1500 MHz; one taken a moment late reads 500.
  testing::expect_time_not_below("the case's clock (samples of the measurement)", clock->value, 1500, 100, "MHz");
  EXPECT_EQ(c.telemetry.at("metrics_over"), "the measurement");
  EXPECT_LT(c.telemetry.at("sm_clock_mhz").at("mean").get<double>(), 1200) << c.telemetry.dump();
  EXPECT_GE(c.telemetry.at("measurement").at("sm_clock_mhz").at("mean").get<double>(), 1400);
}

TEST(SeriesSummary, SamplesWithinAWindow) {
  std::vector<gpu_sample> samples(5);
  for (std::size_t i = 0; i < samples.size(); ++i) samples[i].time_s = 0.1 * static_cast<double>(i);
  const auto within = samples_within(samples, 0.1, 0.35);
  ASSERT_EQ(within.size(), 3u);
  EXPECT_DOUBLE_EQ(within.front().time_s, samples[1].time_s);
  EXPECT_DOUBLE_EQ(within.back().time_s, samples[3].time_s);
  EXPECT_TRUE(samples_within(samples, 0.45, 0.48).empty());
}

// The real loaders, against stand-in libraries built by the tests.
TEST(Nvml, MissingLibraryIsTelemetryUnavailable) {
  setenv("IRONBENCH_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  const auto opened = open_nvml();
  unsetenv("IRONBENCH_NVML_LIBRARY");
  EXPECT_EQ(opened.library, nullptr);
  EXPECT_EQ(opened.unavailable_reason.rfind("telemetry unavailable: ", 0), 0u);
  EXPECT_NE(opened.unavailable_reason.find("/nonexistent/libnvidia-ml.so.1"), std::string::npos);
}

TEST(Nvml, ReadsAndDecodesEverySensorThroughDlopen) {
  setenv("IRONBENCH_NVML_LIBRARY", IRONBENCH_FAKE_NVML, 1);
  const auto opened = open_nvml();
  unsetenv("IRONBENCH_NVML_LIBRARY");
  ASSERT_NE(opened.library, nullptr) << opened.unavailable_reason;
  EXPECT_NE(opened.library->description().find("580.95.05"), std::string::npos);
  std::string why;
  EXPECT_EQ(opened.library->open_device("0000:99:00.0", why), nullptr);
  EXPECT_NE(why.find("Not Found"), std::string::npos);
  const auto gpu = opened.library->open_device("0000:1B:00.0", why);
  ASSERT_NE(gpu, nullptr) << why;
  const auto s = gpu->sample();
  EXPECT_EQ(s.utilization_percent, 97);
  EXPECT_EQ(s.memory_used_bytes, 1073741824.0);
  EXPECT_DOUBLE_EQ(*s.power_w, 688.25);  // the instantaneous field, not the 1 s average
  EXPECT_GT(*s.energy_j, 12345.6);
  EXPECT_EQ(s.sm_clock_mhz, 1980);
  EXPECT_EQ(s.memory_clock_mhz, 2619);
  EXPECT_EQ(s.temperature_c, 61);
  EXPECT_EQ(throttle_reason_names(*s.throttle_reasons),
            (std::vector<std::string>{"sw_power_cap", "hw_thermal_slowdown"}));
  const auto info = gpu->static_info();
  EXPECT_EQ(info.at("driver_version"), "580.95.05");
  EXPECT_EQ(info.at("mig_mode"), "enabled");
  EXPECT_EQ(info.at("virtualization_mode"), "passthrough");
  EXPECT_DOUBLE_EQ(info.at("power_limit_w").get<double>(), 700);
  EXPECT_EQ(info.at("power_reading"), "instantaneous (NVML_FI_DEV_POWER_INSTANT)");
}

TEST(Nvml, PowerFallsBackToTheAveragedReadingWhereTheDriverHasNoInstantField) {
  setenv("IRONBENCH_NVML_LIBRARY", IRONBENCH_FAKE_NVML, 1);
  setenv("FAKE_NVML_NO_INSTANT_POWER", "1", 1);
  const auto opened = open_nvml();
  unsetenv("IRONBENCH_NVML_LIBRARY");
  ASSERT_NE(opened.library, nullptr) << opened.unavailable_reason;
  std::string why;
  const auto gpu = opened.library->open_device("0000:1B:00.0", why);
  ASSERT_NE(gpu, nullptr) << why;
  EXPECT_DOUBLE_EQ(*gpu->sample().power_w, 700.5);
  EXPECT_NE(gpu->static_info().at("power_reading").get<std::string>().find("one-second average"), std::string::npos);
  unsetenv("FAKE_NVML_NO_INSTANT_POWER");
}

TEST(RocmSmi, FindsTheGpuByBusIdAndReadsTheRocm6Layout) {
  setenv("IRONBENCH_ROCM_SMI_LIBRARY", IRONBENCH_FAKE_ROCM_SMI, 1);
  const auto opened = open_rocm_smi();
  unsetenv("IRONBENCH_ROCM_SMI_LIBRARY");
  ASSERT_NE(opened.library, nullptr) << opened.unavailable_reason;
  EXPECT_NE(opened.library->description().find("rocm_smi 7.4.0"), std::string::npos);
  std::string why;
  EXPECT_EQ(opened.library->open_device("0000:99:00.0", why), nullptr);
  EXPECT_NE(why.find("2 GPUs"), std::string::npos);
  const auto gpu = opened.library->open_device("0000:C1:00.0", why);
  ASSERT_NE(gpu, nullptr) << why;
  const auto s = gpu->sample();
  EXPECT_EQ(s.utilization_percent, 88);
  EXPECT_DOUBLE_EQ(*s.power_w, 750);
  EXPECT_NEAR(*s.energy_j, 15.3, 1e-4);
  EXPECT_DOUBLE_EQ(*s.sm_clock_mhz, 2100);
  EXPECT_DOUBLE_EQ(*s.memory_clock_mhz, 1300);
  EXPECT_DOUBLE_EQ(*s.temperature_c, 74);
  EXPECT_FALSE(s.throttle_reasons.has_value());
  const auto info = gpu->static_info();
  EXPECT_EQ(info.at("compute_partition"), "CPX");
  EXPECT_EQ(info.at("memory_partition"), "NPS4");
  EXPECT_EQ(info.at("driver_version"), "6.10.5");
}

}  // namespace
}  // namespace ironbench::telemetry
