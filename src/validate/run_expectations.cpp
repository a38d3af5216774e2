#include "validate/run_expectations.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "core/error.hpp"
#include "core/statistics.hpp"
#include "results/results_store.hpp"
#include "results/run_selector.hpp"
#include "validate/expected_values.hpp"

namespace ironbench::validate {
namespace {

bool published(const core::run_result& run) { return run.tool.value("name", "") == "published reference"; }

bool same_benchmark(const std::string& reference, const std::string& measured) {
  return reference == measured || (reference == measured + "_summary");
}

bool parameters_agree(const core::parameter_set& reference, const core::parameter_set& measured) {
  for (const auto& [name, value] : reference.entries()) {
    if (measured.contains(name) && core::to_string(measured.at(name)) != core::to_string(value)) return false;
  }
  return true;
}

}  // namespace

run_expectations::run_expectations(std::vector<core::run_result> runs, std::string label, double factor)
    : runs_(std::move(runs)), label_(std::move(label)), factor_(factor) {}

std::optional<expectation> run_expectations::find(const core::case_result& measured) const {
  const auto metric = judged_metric(measured.benchmark);
  if (metric.empty()) return std::nullopt;
  std::vector<double> values;
  std::string unit;
  for (const auto& run : runs_) {
    for (const auto& c : run.cases) {
      if (!same_benchmark(c.benchmark, measured.benchmark) || !parameters_agree(c.params, measured.params)) continue;
      if (!published(run) && c.device != measured.device) continue;
      if (c.status != core::case_status::valid) continue;
      if (const auto* m = c.find_metric(metric)) {
        values.push_back(m->value);
        unit = m->unit;
      }
    }
  }
  if (values.empty()) return std::nullopt;
  const double middle = core::percentile(values, 50);
  return expectation{middle * factor_, unit,
                     fmt::format("median of {} matching case(s) of {}{}", values.size(), label_,
                                 factor_ != 1 ? fmt::format(" x {:g}", factor_) : std::string()),
                     label_};
}

run_expectations load_run_expectations(const std::string& text, double factor, const std::string& database) {
  if (!(factor > 0 && factor <= 10)) throw usage_error("--expect-factor takes a number in (0, 10]");
  std::string selector;
  if (text.rfind("ref:", 0) == 0) {
    selector = text;
  } else if (text.rfind("tag:", 0) == 0 && text.find('=') != std::string::npos) {
    selector = text.substr(4);
  } else {
    throw usage_error(fmt::format("--expect takes ref:NAME or tag:KEY=VALUE, not '{}'", text));
  }
  std::unique_ptr<results::results_store> store;
  auto side = results::select_side(selector, [&]() -> results::results_store& {
    if (!store) store = std::make_unique<results::results_store>(results::database_path(database));
    return *store;
  });
  return {std::move(side.runs), text, factor};
}

}  // namespace ironbench::validate
