#include "experiment/plan_text.hpp"

#include <fmt/format.h>

#include "core/text.hpp"

namespace ironbench::experiment {
namespace {

// What the runner checks beyond the command itself.
std::string checks_of(const planned_step& s) {
  std::vector<std::string> checks;
  if (s.kind == "service") {
    if (!s.ready_url.empty()) {
      checks.push_back(fmt::format("ready: GET {}/v1/models lists {}, then a one-token completion", s.ready_url,
                                   s.ready_model.empty() ? "a model" : "'" + s.ready_model + "'"));
    }
    if (!s.ready_log_regex.empty()) checks.push_back(fmt::format("ready: a log line matches /{}/", s.ready_log_regex));
    checks.push_back(
        fmt::format("within {:g} s; stop: SIGTERM, SIGKILL after {:g} s", s.ready_timeout_s, s.stop_grace_s));
  }
  std::vector<std::string> metrics;
  for (const auto& m : s.metrics) {
    metrics.push_back(m.method == "regex"  ? "/" + m.pattern + "/"
                      : m.method == "json" ? m.file + "#" + m.pointer
                      : m.method == "csv"  ? m.file + " column " + m.column
                                           : "performance lines");
  }
  if (!metrics.empty()) checks.push_back("metrics: " + join(metrics, ", "));
  if (!s.fail_on.empty()) checks.push_back("fails on: /" + join(s.fail_on, "/, /") + "/");
  if (s.timeout_s > 0) checks.push_back(fmt::format("timeout {:g} s", s.timeout_s));
  return join(checks, "; ");
}

}  // namespace

void write_plan(const experiment_plan& plan, std::ostream& out) {
  std::vector<std::string> factors;
  for (const auto& [name, count] : plan.matrix_sizes) factors.push_back(fmt::format("{} {}", count, name));
  const auto grid = factors.empty() ? std::string() : " (" + join(factors, " x ") + ")";
  out << fmt::format("experiment {} ({}), hash {}: {} point{}{} x {} repeat{}\n", plan.name, plan.recipe_path,
                     plan.hash, plan.points.size(), plan.points.size() == 1 ? "" : "s", grid, plan.repeat,
                     plan.repeat == 1 ? "" : "s");
  if (!plan.description.empty()) out << plan.description << "\n";
  std::vector<std::string> tags;
  for (const auto& [k, v] : plan.tags) tags.push_back(k + "=" + v);
  if (!tags.empty()) out << "tags: " << join(tags, " ") << "\n";
  for (const auto& point : plan.points) {
    out << fmt::format("\npoint {}/{}: {} (key {})\n", point.index + 1, plan.points.size(), point.label(), point.key);
    for (const auto& s : point.steps) {
      out << fmt::format("  {:<12} {}\n", s.name, s.command_line());
      const auto checks = checks_of(s);
      if (!checks.empty()) out << fmt::format("  {:<12} {}\n", "", checks);
    }
  }
}

}  // namespace ironbench::experiment
