// Reading a run document (the JSON of `--json -`) in tests: a case by benchmark, a metric by
// name. Header-only: the tests that use it link the core library that defines json.
#pragma once

#include <cmath>
#include <string>

#include "core/json.hpp"

namespace ironbench::testing {

/// The first case of `benchmark` in `run`, or nullptr.
inline const json* case_of(const json& run, const std::string& benchmark) {
  for (const auto& c : run.at("cases")) {
    if (c.at("benchmark") == benchmark) return &c;
  }
  return nullptr;
}

/// The value of metric `name` of case `c`, or NaN.
inline double metric_of(const json& c, const std::string& name) {
  for (const auto& m : c.at("metrics")) {
    if (m.at("name") == name) return m.at("value").get<double>();
  }
  return NAN;
}

}  // namespace ironbench::testing
