// What the runner tells a progress display while a run goes: a case started or ended, with
// each device's count of cases and estimated time left (run_estimate.hpp).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/planned_case.hpp"
#include "core/result.hpp"

namespace ironbench::core {

/// One device's progress through its cases (the cases it drives as its own).
struct device_progress {
  std::string device;
  std::size_t done = 0;   ///< cases ended (run, skipped or abandoned)
  std::size_t total = 0;  ///< cases planned on it
  std::string current;    ///< "gemm provider=cublaslt ..." while one runs, else empty
  double eta_s = 0;       ///< estimated seconds until its last case ends
  bool lost = false;      ///< a case of it did not end within its time limit (hung)
};

struct progress_event {
  enum class kind { started, finished };
  kind what = kind::started;
  std::size_t index = 0;  ///< the case's position in the plan
  std::size_t total = 0;  ///< cases in the plan
  std::size_t done = 0;   ///< cases ended so far (this one included when it ended)
  const planned_case& planned;
  const case_result* result = nullptr;  ///< set when it ended
  double eta_s = 0;                     ///< estimated seconds until the run ends
  /// Whether the run's schedule has cases of several devices running side by side (progress
  /// lines then name their device first).
  bool side_by_side = false;
  std::size_t device = 0;  ///< the case's device in `devices`
  const std::vector<device_progress>& devices;
};

/// Called on the thread that runs the plan, never concurrently, before and after each case.
using progress_callback = std::function<void(const progress_event& event)>;

}  // namespace ironbench::core
