// One case of a run's plan: a benchmark, a device and the parameters (runner.hpp makes them).
#pragma once

#include <map>
#include <memory>
#include <string>

#include "core/benchmark.hpp"
#include "core/device_info.hpp"
#include "core/parameter_set.hpp"

namespace ironbench::core {

/// One case to run, or to record as skipped when `skip_reason` is set.
struct planned_case {
  const benchmark* bench = nullptr;
  std::shared_ptr<const device_info> device;  ///< shared by the cases of one device
  parameter_set params;
  std::map<std::string, std::string> param_units;  ///< from the axes' units
  std::string skip_reason;
};

}  // namespace ironbench::core
