// libFuzzer target of experiment recipes (src/experiment/recipe.hpp): the input is a recipe
// file's text, parsed as YAML into the located tree (parse_recipe_document) and checked and
// read (recipe_from_node), as `ironbench experiment` loads it. usage_error (a YAML syntax
// error, an unknown key, a value of the wrong type, each at its line) is the expected answer;
// any other exception escaping is a finding. Aborts when a recipe is accepted without steps
// or with a step that has no kind or name.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "experiment/recipe.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto document = ironbench::experiment::parse_recipe_document(text, "fuzz.yaml");
    const auto recipe = ironbench::experiment::recipe_from_node(document, "fuzz.yaml", text);
    if (recipe.steps.empty()) std::abort();
    for (const auto& step : recipe.steps) {
      if (step.kind.empty() || step.name.empty()) std::abort();
    }
  } catch (const ironbench::usage_error&) {
  }
  return 0;
}
