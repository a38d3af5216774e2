// libFuzzer target of experiment recipes (src/experiment/recipe.hpp): the input is a recipe
// file's text, parsed as YAML into the located tree with its aliases expanded
// (parse_recipe_document), checked and read (recipe_from_node) and planned (plan_experiment:
// variables, profiles, the matrix), as `ironbench experiment plan` does. usage_error (a YAML
// syntax error, an unknown key, a value of the wrong type, an undefined variable, a bound of
// recipe_limits.hpp reached, each at its line) is the expected answer; any other exception
// escaping, or memory past libFuzzer's limit, is a finding. Aborts when a recipe is accepted
// without steps or with a step that has no kind or name, or a plan passes its point bound or
// holds a value longer than an expanded value may be.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "experiment/experiment_plan.hpp"
#include "experiment/recipe.hpp"
#include "experiment/recipe_limits.hpp"

namespace {

void check_plan(const ironbench::experiment::experiment_plan& plan) {
  using namespace ironbench::experiment;
  if (plan.points.size() > max_plan_points) std::abort();
  for (const auto& [name, value] : plan.variables) {
    if (value.size() > max_expanded_value_bytes) std::abort();
  }
  for (const auto& point : plan.points) {
    for (const auto& step : point.steps) {
      if (step.command.size() > max_expanded_value_bytes) std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto document = ironbench::experiment::parse_recipe_document(text, "fuzz.yaml");
    const auto recipe = ironbench::experiment::recipe_from_node(document, "fuzz.yaml", text);
    if (recipe.steps.empty()) std::abort();
    for (const auto& step : recipe.steps) {
      if (step.kind.empty() || step.name.empty()) std::abort();
      if (!ironbench::experiment::is_recipe_name(step.name)) std::abort();
    }
    check_plan(ironbench::experiment::plan_experiment(recipe, {}, "fuzz", "fuzz-host", {{"ironbench", "ironbench"}}));
  } catch (const ironbench::usage_error&) {
  }
  return 0;
}
