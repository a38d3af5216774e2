// The burn-in's judgements on made numbers (a steady, a dropping and an unsteady throughput;
// error counts flat, corrected, uncorrected, replays and XIDs), its flags' parsers, the host
// sensors read from a fake /sys tree, and a run's hardware error deltas read through the
// stand-in NVML with counters that rise on demand.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "session/run_setup.hpp"
#include "temp_dir.hpp"
#include "validate/burn_in.hpp"
#include "validate/burn_in_verdict.hpp"
#include "validate/host_sensors.hpp"

namespace ironbench::validate {
namespace {

using telemetry::error_delta;

TEST(BurnInVerdict, ReferenceIntervalsAreAThirdFromOneToThree) {
  EXPECT_EQ(reference_intervals(2), 1U);
  EXPECT_EQ(reference_intervals(3), 1U);
  EXPECT_EQ(reference_intervals(6), 2U);
  EXPECT_EQ(reference_intervals(9), 3U);
  EXPECT_EQ(reference_intervals(720), 3U);
}

TEST(BurnInVerdict, SteadyThroughputPasses) {
  const auto j = judge_throughput({100, 101, 99, 100, 100.5, 99.5}, {});
  EXPECT_EQ(j.result, verdict::pass) << j.rule;
  EXPECT_NEAR(j.first_median, 100.5, 1e-9);  // median of {100, 101}
  EXPECT_NEAR(j.last_median, 100, 1e-9);     // median of {100.5, 99.5}
  EXPECT_NEAR(j.drop, 1 - 100 / 100.5, 1e-12);
  EXPECT_LT(j.cv, 0.01);
}

TEST(BurnInVerdict, ASustainedDropFailsAtTheBound) {
  // Nine intervals: the first three at 100, the last three at 88 (a 12 % drop).
  const std::vector<double> values{100, 100, 100, 95, 92, 90, 88, 88, 88};
  burn_in_bounds b;
  b.max_cv = 0.5;
  auto j = judge_throughput(values, b);
  EXPECT_EQ(j.result, verdict::fail) << j.rule;
  EXPECT_NEAR(j.drop, 0.12, 1e-12);
  EXPECT_NE(j.rule.find("0.880 x the first 3 (FAIL below 0.90)"), std::string::npos) << j.rule;
  b.max_drop = 0.125;  // a bound just above the drop
  EXPECT_EQ(judge_throughput(values, b).result, verdict::pass);
}

TEST(BurnInVerdict, AnUnsteadyThroughputFailsOnItsSpread) {
  // No drop between the ends, but every other interval at 80 %: a CV of about 11 %.
  const std::vector<double> values{100, 80, 100, 80, 100, 80, 100};
  const auto j = judge_throughput(values, {});
  EXPECT_EQ(j.result, verdict::fail) << j.rule;
  EXPECT_NEAR(j.drop, 0, 1e-12);
  EXPECT_GT(j.cv, 0.05);
  burn_in_bounds wide;
  wide.max_cv = 0.15;
  EXPECT_EQ(judge_throughput(values, wide).result, verdict::pass);
}

TEST(BurnInVerdict, OneIntervalIsNotJudged) {
  EXPECT_EQ(judge_throughput({100}, {}).result, verdict::skip);
  EXPECT_EQ(judge_throughput({}, {}).result, verdict::skip);
}

error_delta rise(const std::string& device, const std::string& counter, std::uint64_t by) {
  error_delta d;
  d.rises.push_back({device, counter, telemetry::class_of(counter), 5, 5 + by});
  return d;
}

TEST(BurnInVerdict, ErrorCountsThatStayFlatPass) {
  const auto j =
      judge_errors("cuda:0", {error_delta{}, error_delta{}, rise("cuda:1", "ecc_uncorrected_volatile", 1)}, {});
  EXPECT_EQ(j.result, verdict::pass) << j.rule;  // cuda:1's error is not cuda:0's
}

TEST(BurnInVerdict, RisingCorrectedCountsFailBeyondTheAllowance) {
  const std::vector<error_delta> deltas{rise("cuda:0", "ecc_corrected_volatile", 2), error_delta{},
                                        rise("cuda:0", "ecc_corrected_volatile", 1)};
  auto j = judge_errors("cuda:0", deltas, {});
  EXPECT_EQ(j.result, verdict::fail) << j.rule;
  EXPECT_EQ(j.corrected, 3U);
  burn_in_bounds b;
  b.max_corrected = 3;
  j = judge_errors("cuda:0", deltas, b);
  EXPECT_EQ(j.result, verdict::pass) << j.rule;
}

TEST(BurnInVerdict, AnyUncorrectedErrorFails) {
  burn_in_bounds b;
  b.max_corrected = 1000;
  for (const char* counter : {"ecc_uncorrected_volatile", "remapping_failed", "ras_umc_ue", "edac_mc0_ue"}) {
    const auto j = judge_errors("hip:0", {rise("hip:0", counter, 1)}, b);
    EXPECT_EQ(j.result, verdict::fail) << counter << ": " << j.rule;
    EXPECT_EQ(j.uncorrected, 1U);
  }
}

TEST(BurnInVerdict, ReplaysAndApplicationXidsWarnHardwareXidsFail) {
  EXPECT_EQ(judge_errors("cuda:0", {rise("cuda:0", "pcie_replays", 4)}, {}).result, verdict::warn);
  EXPECT_EQ(judge_errors("cuda:0", {rise("cuda:0", "remapped_rows_pending", 1)}, {}).result, verdict::warn);
  error_delta xid;
  xid.xids["cuda:0"] = {13};
  EXPECT_EQ(judge_errors("cuda:0", {xid}, {}).result, verdict::warn);
  xid.xids["cuda:0"] = {13, 79};
  const auto j = judge_errors("cuda:0", {xid}, {});
  EXPECT_EQ(j.result, verdict::fail) << j.rule;
  EXPECT_EQ(j.xids, (std::vector<unsigned>{13, 79}));
}

// `--duration 20s --interval 5s` once ran 53 s in intervals of 11-16 s: the end is now bounded
// by the duration plus one interval, whatever the intervals take.
TEST(BurnInDuration, AnotherIntervalStartsOnlyIfItEndsWithinTheDurationAndOneInterval) {
  EXPECT_TRUE(next_interval_fits(0, 0, 0, 20, 5));
  EXPECT_TRUE(next_interval_fits(1, 12, 12, 20, 5));  // two intervals always run
  EXPECT_TRUE(next_interval_fits(2, 10, 5, 20, 5));   // planned pace: 15 s
  EXPECT_TRUE(next_interval_fits(3, 20, 5, 20, 5));   // the last one may end at 25 s
  EXPECT_FALSE(next_interval_fits(4, 21, 5, 20, 5));
  EXPECT_FALSE(next_interval_fits(2, 22, 11, 20, 5));  // the slow intervals of the report: stop at 2
  // Whatever the intervals take, the run stops by duration + interval + the last interval once
  // two have run: simulate 11-16 s intervals.
  const double lengths[] = {11, 16, 13, 12, 15, 14};
  double elapsed = 0;
  std::size_t measured = 0;
  for (const double length : lengths) {
    if (!next_interval_fits(measured, elapsed, measured > 0 ? lengths[measured - 1] : 0, 20, 5)) break;
    elapsed += length;
    ++measured;
  }
  EXPECT_EQ(measured, 2u);
  EXPECT_LE(elapsed, 27.0 + 1e-9);  // two intervals (the minimum) of 11 and 16 s
  // Intervals at their planned length run as planned.
  elapsed = 0;
  measured = 0;
  while (measured < 4 && next_interval_fits(measured, elapsed, 5, 20, 5)) {
    elapsed += 5;
    ++measured;
  }
  EXPECT_EQ(measured, 4u);
  EXPECT_LE(elapsed, 25.0);
}

TEST(BurnInFlags, DurationsAndBounds) {
  EXPECT_EQ(parse_duration("30s", "--duration"), 30);
  EXPECT_EQ(parse_duration("10m", "--duration"), 600);
  EXPECT_EQ(parse_duration("2h", "--duration"), 7200);
  EXPECT_EQ(parse_duration("1.5h", "--duration"), 5400);
  EXPECT_EQ(parse_duration("90", "--duration"), 90);
  for (const char* bad : {"", "ten", "0s", "-5m", "10 parsecs", "5d"}) {
    EXPECT_THROW((void)parse_duration(bad, "--duration"), usage_error) << bad;
  }
  validation_settings s;
  s.lvl = level::burn_in;
  s.burn_in_duration_s = 6;
  s.burn_in_interval_s = 2;
  EXPECT_NO_THROW(check_burn_in_settings(s));
  s.burn_in_duration_s = 3;  // fewer than two intervals
  EXPECT_THROW(check_burn_in_settings(s), usage_error);
  s.burn_in_duration_s = 6;
  s.burn_in_interval_s = 0.5;
  EXPECT_THROW(check_burn_in_settings(s), usage_error);
  s.burn_in_interval_s = 2;
  s.burn_in.max_drop = 1;
  EXPECT_THROW(check_burn_in_settings(s), usage_error);
  s.burn_in.max_drop = 0.1;
  s.burn_in.max_cv = 0;
  EXPECT_THROW(check_burn_in_settings(s), usage_error);
  EXPECT_EQ(parse_level("burn-in"), level::burn_in);
  EXPECT_STREQ(to_string(level::burn_in), "burn-in");
}

void write(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

TEST(BurnInHostSensors, CpufreqHwmonAndRaplFromSysfs) {
  testing::temp_dir root;
  const auto& r = root.path();
  write(r / "sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "3000000\n");
  write(r / "sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", "2000000\n");
  write(r / "sys/class/hwmon/hwmon0/name", "nvme\n");
  write(r / "sys/class/hwmon/hwmon0/temp1_input", "90000\n");  // not a CPU sensor
  write(r / "sys/class/hwmon/hwmon1/name", "coretemp\n");
  write(r / "sys/class/hwmon/hwmon1/temp1_input", "61000\n");
  write(r / "sys/class/hwmon/hwmon1/temp2_input", "67000\n");
  write(r / "sys/class/powercap/intel-rapl:0/energy_uj", "1000000\n");
  write(r / "sys/class/powercap/intel-rapl:0/max_energy_range_uj", "262143328850\n");
  write(r / "sys/class/powercap/intel-rapl:0:0/energy_uj", "5000000\n");  // a subdomain, inside the package
  const platform::sysfs_reader reader(r);
  const auto before = read_host_sensors(reader);
  EXPECT_EQ(before.clock_mhz, 2500);
  EXPECT_EQ(before.clock_source, "cpufreq scaling_cur_freq");
  EXPECT_EQ(before.temperature_c, 67);
  EXPECT_EQ(before.energy_j, 1);
  EXPECT_TRUE(before.not_available.empty());
  write(r / "sys/class/powercap/intel-rapl:0/energy_uj", "201000000\n");
  const auto after = read_host_sensors(reader);
  EXPECT_NEAR(*power_between(before, after, 2.0), 100, 1e-9);
  // A counter that wrapped: from 262000 J to 100 J over 2 s, with a range of 262143.32885 J.
  host_sensor_reading b, a;
  b.energy_j = 262000;
  a.energy_j = 100;
  a.energy_range_j = 262143.32885;
  EXPECT_NEAR(*power_between(b, a, 2.0), (262143.32885 - 262000 + 100) / 2, 1e-6);
}

TEST(BurnInHostSensors, WhatIsMissingIsNamed) {
  testing::temp_dir root;
  write(root.path() / "proc/cpuinfo", "processor\t: 0\ncpu MHz\t\t: 2596.132\nprocessor\t: 1\ncpu MHz\t\t: 2596.132\n");
  const auto r = read_host_sensors(platform::sysfs_reader(root.path()));
  ASSERT_TRUE(r.clock_mhz);
  EXPECT_NEAR(*r.clock_mhz, 2596.132, 1e-9);
  EXPECT_NE(r.clock_source.find("/proc/cpuinfo"), std::string::npos);
  EXPECT_FALSE(r.temperature_c);
  EXPECT_FALSE(r.energy_j);
  EXPECT_EQ(r.not_available.size(), 2U);
}

// A run's deltas through the stand-in NVML: flat counters record no rise and no finding; a
// corrected count that rises at every read makes a warning, an uncorrected one a critical
// finding.
TEST(RunHardwareErrors, RecordedBeforeAndAfterWithAFindingWhenTheyRose) {
  setenv("IRONBENCH_NVML_LIBRARY", IRONBENCH_FAKE_NVML, 1);
  core::device_info gpu;
  gpu.id = "cuda:0";
  gpu.kind = core::device_kind::cuda;
  gpu.properties = {{"pci_bus_id", "0000:1B:00.0"}};
  static const auto nvml = telemetry::open_nvml();
  ASSERT_TRUE(nvml.library) << nvml.unavailable_reason;
  testing::temp_dir no_sys;
  const auto run_with = [&](const char* variable) {
    if (variable != nullptr) setenv(variable, "1", 1);
    session::live_host host;
    host.hardware_errors = std::make_shared<telemetry::hardware_error_watch>(
        std::vector<core::device_info>{gpu}, [](core::device_kind) -> const telemetry::opened_library& { return nvml; },
        no_sys.path().string());
    host.hardware_errors_before = host.hardware_errors->read();
    core::run_result run;
    session::record_hardware_errors(run, host);
    if (variable != nullptr) unsetenv(variable);
    return run;
  };
  const auto flat = run_with(nullptr);
  EXPECT_TRUE(flat.host.at("hardware_errors").at("rises").empty()) << flat.host.dump();
  EXPECT_EQ(flat.host.at("hardware_errors").at("before").at("devices").at(0).at("source"), "nvml");
  EXPECT_TRUE(flat.findings.empty()) << flat.findings.dump();

  const auto corrected = run_with("FAKE_NVML_ECC_CORRECTED_STEP");
  ASSERT_EQ(corrected.findings.size(), 1U) << corrected.findings.dump();
  EXPECT_EQ(corrected.findings[0].at("check"), "hardware_errors");
  EXPECT_EQ(corrected.findings[0].at("severity"), "warning");
  EXPECT_EQ(corrected.host.at("hardware_errors").at("rises").at(0).at("counter"), "ecc_corrected_volatile");

  const auto uncorrected = run_with("FAKE_NVML_ECC_UNCORRECTED_STEP");
  ASSERT_EQ(uncorrected.findings.size(), 1U);
  EXPECT_EQ(uncorrected.findings[0].at("severity"), "critical");
  EXPECT_EQ(uncorrected.findings[0].at("device"), "cuda:0");
}

}  // namespace
}  // namespace ironbench::validate
