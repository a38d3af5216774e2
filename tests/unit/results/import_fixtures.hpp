// What the import tests share: reading a fixture of tests/data, a metric by name, and the
// round trip of imported cases through ironbench's result JSON.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "core/result_json.hpp"

namespace ironbench::results::testing {

/// tests/data/FOLDER/NAME as text (a failed expectation when empty).
inline std::string read_fixture_file(const std::string& folder, const std::string& name) {
  std::ifstream in(std::string(IRONBENCH_TEST_DATA) + "/" + folder + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << folder << "/" << name;
  return text.str();
}

/// The value of metric `name`; throws when the case has none.
inline double metric(const core::case_result& c, const std::string& name) {
  const auto* m = c.find_metric(name);
  if (m == nullptr) throw std::runtime_error("no metric " + name);
  return m->value;
}

/// The cases through ironbench's result JSON and back.
inline std::vector<core::case_result> round_trip(const std::vector<core::case_result>& cases) {
  core::run_result run;
  run.cases = cases;
  return core::run_from_json(json::parse(core::to_json(run).dump()), "round trip").cases;
}

/// Every field an import fills is the same in `a` and `b`.
inline void expect_same_cases(const std::vector<core::case_result>& a, const std::vector<core::case_result>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].benchmark, b[i].benchmark);
    EXPECT_EQ(a[i].device, b[i].device);
    EXPECT_EQ(a[i].params, b[i].params);
    EXPECT_EQ(a[i].param_units, b[i].param_units);
    EXPECT_EQ(a[i].status, b[i].status);
    EXPECT_EQ(a[i].reason, b[i].reason);
    EXPECT_EQ(a[i].notes, b[i].notes);
    EXPECT_EQ(a[i].work.bytes_read, b[i].work.bytes_read);
    EXPECT_EQ(a[i].work.bytes_written, b[i].work.bytes_written);
    EXPECT_EQ(a[i].timing.has_value(), b[i].timing.has_value());
    if (a[i].timing && b[i].timing) {
      EXPECT_EQ(a[i].timing->samples_s, b[i].timing->samples_s);
    }
    ASSERT_EQ(a[i].metrics.size(), b[i].metrics.size());
    for (std::size_t m = 0; m < a[i].metrics.size(); ++m) {
      EXPECT_EQ(a[i].metrics[m].name, b[i].metrics[m].name);
      EXPECT_EQ(a[i].metrics[m].value, b[i].metrics[m].value);
      EXPECT_EQ(a[i].metrics[m].unit, b[i].metrics[m].unit);
    }
  }
}

}  // namespace ironbench::results::testing
