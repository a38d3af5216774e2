#include "experiment/workload_table.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace ironbench::experiment {

const in_process_workload* find_workload(const workload_table& table, const std::string& kind) {
  for (const auto& w : table) {
    if (w.kind == kind) return &w;
  }
  return nullptr;
}

void check_workload_options(const experiment_plan& plan, const workload_table& table) {
  for (const auto& point : plan.points) {
    for (const auto& step : point.steps) {
      const auto* workload = find_workload(table, step.kind);
      if (workload == nullptr) continue;
      auto arguments = step.ironbench_arguments();
      arguments.erase(arguments.begin());  // the command's name
      try {
        workload->check(arguments);
      } catch (const usage_error& e) {
        throw usage_error(fmt::format("{}: step '{}' of point {} ({}): {}", plan.recipe_path, step.name,
                                      point.index + 1, point.label(), e.what()));
      }
    }
  }
}

}  // namespace ironbench::experiment
