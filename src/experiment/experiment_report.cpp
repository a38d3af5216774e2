#include "experiment/experiment_report.hpp"

#include <fmt/format.h>

#include <fstream>

#include "core/error.hpp"
#include "experiment/experiment_runner.hpp"
#include "report/html_report.hpp"
#include "results/results_store.hpp"

namespace ironbench::experiment {

void write_experiment_report(const experiment_plan& plan, const results::results_store& store,
                             const std::string& path) {
  report::html_report_input input;
  input.title = fmt::format("Experiment {}", plan.name);
  results::comparison_side side;
  side.label = plan.name;
  json points = json::array();
  for (const auto& point : plan.points) {
    json values = json::object();
    for (const auto& [k, v] : point.values) values[k] = v;
    json entry = {{"index", point.index + 1},
                  {"label", point.label()},
                  {"values", values},
                  {"outcome", "not run"},
                  {"run", 0},
                  {"cases", 0}};
    results::run_filter filter;
    filter.tags = {{experiment_hash_tag, plan.hash}, {experiment_point_tag, point.key}};
    filter.limit = 1;
    const auto stored = store.list(filter);
    if (!stored.empty()) {
      auto run = store.load(stored.front().id);
      entry["run"] = stored.front().id;
      entry["outcome"] = run.tags.count(experiment_outcome_tag) ? run.tags.at(experiment_outcome_tag) : "";
      entry["cases"] = run.cases.size();
      for (const auto& c : run.cases) {
        if (c.status != core::case_status::failed) continue;
        entry["reason"] = c.reason;
        const auto tail = c.notes.find("log_tail");
        if (tail != c.notes.end()) entry["log_tail"] = tail->second;
      }
      if (run.status == core::run_status::interrupted) entry["reason"] = run.status_reason;
      side.runs.push_back(std::move(run));
    }
    points.push_back(std::move(entry));
  }
  if (side.runs.empty()) return;  // nothing stored yet: no report
  json matrix = json::array();
  if (!plan.points.empty()) {
    for (const auto& [k, v] : plan.points.front().values) matrix.push_back(k);
  }
  input.experiment = {
      {"name", plan.name}, {"hash", plan.hash}, {"recipe", plan.recipe_path}, {"matrix", matrix}, {"points", points}};
  input.sides.push_back(std::move(side));
  std::ofstream out(path);
  report::write_html_report(input, out);
  if (!out) throw error(fmt::format("cannot write {}", path));
}

}  // namespace ironbench::experiment
