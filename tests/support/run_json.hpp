// Reading a run document (the JSON of `--json -`, or a file) in tests: a case by benchmark, a
// metric by name, a serving point. Header-only: the tests that use it link the core library that defines json.
#pragma once

#include <cmath>
#include <cstddef>
#include <fstream>
#include <string>

#include "core/json.hpp"

namespace ironbench::testing {

/// The JSON document in the file at `path`.
inline json read_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

/// The serving point that case `i` of a serve run carries (its notes' result).
inline json point_of(const json& run, std::size_t i = 0) {
  return json::parse(run.at("cases").at(i).at("notes").at("result").get<std::string>());
}

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
