// Judgements of wall-clock time, for the tests of *Timed suites (docs/testing.md, "Tests that
// judge time"). Each check fails the test (non-fatally, as EXPECT_*) when its error exceeds its
// tolerance, and prints one line to standard error whether it holds or not:
//   timed: test=Suite.Name check="median TTFT" error=0.812 tolerance=2 unit=ms value=29.81
// bench/timed_tests_under_load.sh runs the *Timed tests many times beside two busy loops and
// reports each check's worst error from these lines: a tolerance is set from that spread, with
// a margin. `error` is signed: how far the measured value is on the side the check limits (a
// negative error is inside on that side, e.g. a time that came earlier than an upper bound's
// nominal value).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

namespace ironbench::testing {

/// The running test's ctest name (Suite.Name, with a parameterised test's prefix and suffix).
inline std::string current_test_name() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  if (info == nullptr) return "?";
  return std::string(info->test_suite_name()) + "." + info->name();
}

/// One judgement: `error` <= `tolerance` (both in `unit`), `value` the measured value itself.
/// Returns whether it held.
inline bool expect_timed(const std::string& check, double error, double tolerance, const std::string& unit,
                         double value) {
  std::fprintf(stderr, "timed: test=%s check=\"%s\" error=%.6g tolerance=%.6g unit=%s value=%.6g\n",
               current_test_name().c_str(), check.c_str(), error, tolerance, unit.c_str(), value);
  std::fflush(stderr);
  const bool held = std::isfinite(error) && error <= tolerance;
  EXPECT_TRUE(held) << check << ": " << value << " " << unit << ", off by " << error << " " << unit
                    << " where the tolerance is " << tolerance << " " << unit
                    << " (measured on a loaded machine: docs/testing.md, \"Tests that judge time\")";
  return held;
}

/// |measured - expected| <= tolerance.
inline bool expect_time_near(const std::string& check, double measured, double expected, double tolerance,
                             const std::string& unit = "ms") {
  return expect_timed(check, std::fabs(measured - expected), tolerance, unit, measured);
}

/// measured <= nominal + tolerance: later (or larger) than the nominal value by at most the
/// tolerance. With nominal 0, a plain upper bound.
inline bool expect_time_not_above(const std::string& check, double measured, double nominal, double tolerance,
                                  const std::string& unit = "ms") {
  return expect_timed(check, measured - nominal, tolerance, unit, measured);
}

/// measured >= nominal - tolerance: earlier (or smaller: a rate, a count) than the nominal
/// value by at most the tolerance.
inline bool expect_time_not_below(const std::string& check, double measured, double nominal, double tolerance,
                                  const std::string& unit = "ms") {
  return expect_timed(check, nominal - measured, tolerance, unit, measured);
}

}  // namespace ironbench::testing
